// The parser's lexicon: word and signature counts per tag, the tag dictionary for known
// words, word-shape signatures for rare and unknown words, and the generative estimate
// log P(word | tag) of the PCFG baseline.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_io.h"
#include "core/interner.h"

namespace structrank {

// Word shape in the style of Klein & Manning's unknown-word classes: capitalization (and
// whether the word starts the sentence), digits, dashes, and a common suffix.
std::string WordSignature(std::string_view word, bool sentence_initial);

// What the parser knows about one token of a sentence.
struct Token {
  std::string text;
  std::string signature;
  int32_t word = -1;       // vocabulary id, -1 if unknown
  int32_t sig = -1;        // signature id, -1 if never seen
  std::vector<int32_t> tags;  // tags the token may take
};

struct Lexicon {
  int32_t num_tags_symbols = 0;  // size of the symbol space (tags are a subset)
  int32_t rare_threshold = 1;    // words seen at most this often also get signature tags
  Interner words, signatures;
  std::vector<double> word_count;
  std::vector<std::vector<std::pair<int32_t, double>>> word_tags;  // tag dictionary with counts
  std::vector<std::vector<std::pair<int32_t, double>>> sig_tags;   // counts over rare words
  std::vector<double> sig_count;
  std::vector<double> tag_count, rare_tag_count;
  double total = 0, rare_total = 0;
  std::vector<int32_t> open_tags;  // tags seen with rare words

  // Counts one training token; call Finish() once after all of them.
  void Add(std::string_view word, bool sentence_initial, int32_t tag);
  void Finish();
  // Second pass over the training data for signature counts (needs final word counts).
  void AddRare(std::string_view word, bool sentence_initial, int32_t tag);
  void FinishRare();

  Token Lookup(std::string_view word, bool sentence_initial) const;
  // Generative log P(word | tag), smoothed with the signature model for rare/unknown words.
  double LogProb(const Token& token, int32_t tag) const;
  // Every tag seen in training, for the second attempt at a sentence the tag dictionary
  // leaves uncovered; tags never seen with the word score as unknown-word tags, 1e-3 times.
  void Relax(Token& token) const;

  void Write(ByteWriter& out) const;
  static Lexicon Read(ByteReader& in, int32_t num_symbols);

 private:
  double TagGivenSignature(int32_t sig, int32_t tag) const;
};

}  // namespace structrank
