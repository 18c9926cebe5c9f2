// A PCFG with latent annotations (Matsuzaki, Miyao & Tsujii 2005; Petrov, Barrett, Thibaux &
// Klein 2006) as it is stored: a base grammar whose every symbol has some subsymbols, and per
// base rule the probabilities of its rules over their subsymbols (what EM trains,
// chart/latent_pcfg.h). Parsing expands it into an ordinary ChartModel over the subsymbols,
// each mapped to its base symbol's base category, so it parses and mixes its posteriors into a
// CRF's like any PCFG. Only the rules above kLatentMinRuleProb are kept, as quantized
// log-probabilities at positions coded as gaps: about a tenth of the expanded rules' bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "chart/grammar.h"
#include "chart/lexicon.h"
#include "core/byte_io.h"

namespace structrank {

class ChartModel;

// Rules less probable than this are left out: EM drives most of a block's entries towards 0.
constexpr double kLatentMinRuleProb = 1e-8;
// Log-probabilities and word splits are stored in steps of 1 / kLatentLogScale nats (a relative
// error of at most 0.025%): -log kLatentMinRuleProb fits 16 bits.
constexpr double kLatentLogScale = 2048;

struct LatentGrammar {
  Grammar base;                   // the base grammar: its rules index the blocks
  std::vector<int32_t> num_subs;  // base symbol -> number of subsymbols
  // The rules over subsymbols, by their positions (ascending) in the base rules' dense blocks
  // laid end to end, and -log P(rule | the parent's subsymbol) x kLatentLogScale. A binary
  // rule's block is [(a * nl + b) * nr + c], a unary rule's [a * nc + b], a root rule's [a]
  // (P(the top symbol's subsymbol a | ROOT)).
  std::vector<uint64_t> binary_at, unary_at, root_at;
  std::vector<uint16_t> binary, unary, root;
  // How the subsymbols of a tag t score a word (chart/lexicon.h gives log P(word | t)):
  // log P(word | t_x) = log P(word | t) + log P(x | t, c) - log P(x | t), c the word's class
  // (the word if seen at least word_min times, else its signature). split_at holds c x
  // (subsymbols) + x, ascending; split the log ratio x kLatentLogScale. A class and
  // subsymbol without an entry scores 0 (the prior stands for it).
  int32_t num_words = 0;  // classes: word ids, then num_words + signature id
  int32_t word_min = 1;
  std::vector<uint64_t> split_at;
  std::vector<int16_t> split;

  // Derived by Finish() (not stored).
  std::vector<int32_t> first_sub;  // base symbol -> its first subsymbol (they are consecutive)
  std::vector<int32_t> symbol_of;  // subsymbol -> base symbol
  std::unordered_map<uint64_t, double> split_of;

  // Checks the sizes and derives the indexes; InputError when they do not fit.
  void Finish();
  int32_t num_symbols() const { return static_cast<int32_t>(symbol_of.size()); }
  // The word class of a token, -1 when it has none.
  int32_t ClassOf(const Lexicon& lexicon, const Token& token) const;
  double SplitScore(int32_t word_class, int32_t sub) const;
  static uint16_t RuleCode(double p);
  static int16_t SplitCode(double log_ratio);

  void Write(ByteWriter& out) const;
  static LatentGrammar Read(ByteReader& in);
};

// The parser over the subsymbols of `latent`, scoring words with `lexicon` (over the base
// grammar's symbols) and the splits.
std::unique_ptr<ChartModel> ExpandLatent(std::shared_ptr<const LatentGrammar> latent, Lexicon lexicon);

}  // namespace structrank
