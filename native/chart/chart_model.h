// The chart parser model: grammar, lexicon, the PCFG's relative-frequency rule scores and,
// once trained, the CRF-CFG's weights. Parsing returns the k best binarized trees (symbol
// ids, pre-order) with their log-probabilities, or a flat fallback when nothing covers.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "chart/chart.h"
#include "chart/coarse_pass.h"
#include "chart/crf_features.h"
#include "chart/gold_tree.h"
#include "chart/grammar.h"
#include "chart/kbest.h"
#include "chart/latent_grammar.h"
#include "chart/lexicon.h"
#include "chart/mbr.h"
#include "core/object_pool.h"
#include "core/thread_pool.h"

namespace structrank {

// Sentences as flat token lists: sentence s has tokens [offsets[s], offsets[s + 1]).
struct Corpus {
  std::vector<std::string> tokens;
  std::vector<int32_t> offsets;
  int32_t size() const { return static_cast<int32_t>(offsets.size()) - 1; }
  int32_t Length(int32_t s) const { return offsets[s + 1] - offsets[s]; }
};

struct SymbolInfo {
  int32_t num_bases = 0;
  std::vector<uint8_t> is_tag;
  std::vector<int32_t> base;
  // Optional (may be empty): symbol -> relaxation group, the symbols that differ only in
  // their parent annotation (-1 = never relaxed); symbol -> 1 for verb tags.
  std::vector<int32_t> relax_group;
  std::vector<uint8_t> is_verb;
};

struct PcfgOptions {
  int rare_threshold = 1;
  // Grammar relaxation (Finkel, Kleeman & Manning 2008): for every rule X^P -> alpha, add X^Q -> alpha for
  // every other state X^Q of the same relaxation group; every rule of X^Q then scores (1 - relax_weight)
  // P_ML(alpha | X^Q) + relax_weight P_ML(alpha | X^*), the second term pooled over all parent annotations of
  // X.
  bool relax = false;
  double relax_weight = 0.01;
  // Word clusters (`word<TAB>cluster`), parallel arrays.
  std::vector<std::string> cluster_words, cluster_ids;
  // Lexicon::shape_backoff: 0 keeps the unknown-word model the CRF parser was measured with.
  double shape_backoff = 0;
};

struct SentenceParse {
  std::vector<ParseCandidate> candidates;
  bool fallback = false;  // no tree of the grammar covers the sentence: flat X over the best tags
  // MBR parses only: the brackets of expected count >= kMinBracketPosterior.
  std::vector<BracketPosterior> brackets;
  // A CRF's Viterbi k-best parsed with_mbr_tree: the MBR tree of the same chart (then
  // `brackets` are its posteriors). Not had when the list's first tree stands for it: a
  // fallback, a PCFG parse, a chart no MBR tree covers.
  bool has_mbr_tree = false;
  ParseCandidate mbr_tree;
};

// The fallback tree's label (TypeScript writes it as X).
constexpr int32_t kFallbackLabel = -1;

// The parse-time coarse pass keeps, per cell, the entries within this many nats of the cell's
// best: on both dev treebanks the same F1 as the exact pass (to 0.01), and the floresta-pt
// ensemble 16% faster, its long sentences' charts being the costliest (docs/design/parser-speed.md).
constexpr double kCoarseBeam = 15;

// What the coarse pass found for one sentence (ChartModel::MaskByCoarsePass).
enum class CoarseOutcome {
  kMasked,    // the chart is masked to the entries the pass keeps
  kNoTree,    // no tree covers the sentence with its tokens' tags: the PCFG scores every rule
              // and tag the CRF's chart holds, so the CRF has no tree either; no mask
  kUnmasked,  // the pass kept nothing and proves nothing (the PCFG scores something -inf):
              // no mask, the CRF parses the whole chart
};

class ChartModel {
 public:
  Grammar grammar;
  Lexicon lexicon;
  std::vector<double> binary_logp, unary_logp, root_logp;
  bool use_crf = false;
  CrfWeights crf;
  // A latent-annotation PCFG (chart/latent_grammar.h), of which this model is the expansion:
  // its symbols are the subsymbols, its lexicon the base grammar's. Null for every other model.
  std::shared_ptr<const LatentGrammar> latent;

  // Reads the grammar and the PCFG off gold trees (pairs/tree_offsets as in gold_tree.h).
  static std::unique_ptr<ChartModel> BuildPcfg(const SymbolInfo& symbols, const Corpus& corpus,
                                               const std::vector<int32_t>& pairs,
                                               const std::vector<int32_t>& tree_offsets,
                                               const PcfgOptions& options,
                                               std::vector<GoldItems>* gold_out = nullptr);
  static std::unique_ptr<ChartModel> BuildPcfg(const SymbolInfo& symbols, const Corpus& corpus,
                                               const std::vector<int32_t>& pairs,
                                               const std::vector<int32_t>& tree_offsets, int rare_threshold,
                                               std::vector<GoldItems>* gold_out = nullptr) {
    PcfgOptions options;
    options.rare_threshold = rare_threshold;
    return BuildPcfg(symbols, corpus, pairs, tree_offsets, options, gold_out);
  }
  // Rules added by relaxation (0 without it).
  int64_t relaxed_binary = 0, relaxed_unary = 0;

  // Tokens of one sentence with their allowed tags.
  std::vector<Token> Tokens(const Corpus& corpus, int32_t s) const;
  // A latent PCFG: the token's tags (the lexicon's) replaced by their subsymbols.
  void ExpandTags(Token& token) const;
  // Lexical scores of the PCFG for each token's allowed tags.
  LexScores PcfgLex(const std::vector<Token>& tokens) const;

  // The flat fallback: X over each word's best tag by its lexical score.
  static SentenceParse FlatParse(const LexScores& lex);
  // beam: parse-time pruning of the Viterbi chart (see Chart::beam); infinity = exact.
  // prune > 0: coarse-to-fine, the CRF's chart keeps only the entries the PCFG pass keeps
  // (CoarseEntries); 0 = exhaustive.
  // mbr: a CRF's k best trees are those of most expected correct brackets (chart/mbr.h;
  // k = 1: its MBR tree) instead of its most probable ones.
  // with_mbr_tree (mbr false): a CRF's Viterbi k-best and its MBR tree from one chart
  // (SentenceParse::mbr_tree): what two calls give, at the cost of one parse.
  // prune_retry: when no tree covers the sentence under the tag dictionary, the retry with
  // every tag is coarse-to-fine at `prune` too (exhaustive only if that pruning loses every
  // tree); false: the retry is exhaustive, as in model files written before it existed.
  SentenceParse Parse(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg = false,
                      double beam = INFINITY, double prune = 0, bool mbr = false, bool prune_retry = false,
                      bool with_mbr_tree = false) const;
  // The CRF's Viterbi k-best of a sentence already prepared (`sent`) on `ch`, its mask (if
  // any) kept, each tree's score less log_z: ParseOnce's Viterbi pass for a caller that has
  // the sentence's scores and log Z (ParseEnsemble's `viterbi_k`). A flat fallback when the
  // chart holds no tree.
  SentenceParse ViterbiOn(const CrfSentence& sent, int k, Chart& ch, double log_z) const;
  // Parse with a CRF model for a sentence whose coarse pass (MaskByCoarsePass at `prune`)
  // found CoarseOutcome::kNoTree: what Parse gives, without running that pass again.
  SentenceParse ParseWithoutTree(const std::vector<Token>& tokens, int k, Chart& ch, bool mbr, double prune,
                                 bool prune_retry) const;
  // The coarse pass: PCFG Viterbi inside-outside; keeps the chart entries (cell * S +
  // symbol) of the pre- and post-unary layers whose max-marginal (best tree through the
  // entry) is >= threshold times the best tree's probability. Returns the number of
  // entries the PCFG chart had (0 when the PCFG covers nothing: nothing is kept).
  // beam < infinity: the pass keeps, in each cell, only the entries at most `beam` below the
  // cell's best (CoarseInside); training's pass is exact.
  int64_t CoarseEntries(const std::vector<Token>& tokens, double threshold, Chart& ch,
                        std::vector<int32_t>& keep_pre, std::vector<int32_t>& keep_post,
                        double beam = std::numeric_limits<double>::infinity()) const;
  // Masks ch (mask_pre, mask_post) to the entries CoarseEntries keeps, its pass within
  // kCoarseBeam, or exact when the beam drops every tree. The caller clears the masks after
  // the sentence.
  CoarseOutcome MaskByCoarsePass(const std::vector<Token>& tokens, double prune, Chart& ch) const;
  // max_bytes > 0: MaskByCoarsePass keeps the entries its pass keeps, per sentence (its words,
  // tags and threshold), up to max_bytes, and reuses them. Training scores its dev set after
  // every pass with the same PCFG, so the dev set's coarse passes run once. 0: off, and the
  // kept entries are freed. The PCFG must not change while it is on.
  void KeepCoarseMasks(size_t max_bytes) const;
  // max_length > 0: longer sentences get the flat fallback without a chart (its time grows
  // with the cube of the length and its memory with the square).
  std::vector<SentenceParse> ParseAll(const Corpus& corpus, int k, int threads,
                                      const std::atomic<bool>* cancel, bool force_pcfg = false,
                                      double beam = INFINITY, int max_length = 0, double prune = 0,
                                      bool mbr = false, bool prune_retry = false,
                                      bool with_mbr_tree = false) const;

  std::vector<uint8_t> Serialize() const;

  // The most bytes a chart or a sentence's scores keep from one sentence to the next: the
  // rows of a longer sentence are freed after it, so a parse holds one long sentence's rows at a
  // time, not the longest of every buffer (floresta-pt-fn, a 115-word sentence: 185 MB of chart
  // rows over 869 symbols). Below it, rows are reused, not allocated and faulted in again.
  static constexpr size_t kKeptBufferBytes = size_t{96} << 20;
  // Whether `x` (a chart, a sentence's scores, posteriors: anything with HeldBytes) may keep its
  // buffers for the next sentence.
  template <class T>
  static bool Keeps(const T& x) {
    return x.HeldBytes() <= kKeptBufferBytes;
  }
  // Empties `x` when it may not keep its buffers (a chart's `cancel` is then unset).
  template <class T>
  static void DropIfOversized(T& x) {
    if (!Keeps(x)) x = T();
  }

  // Charts are big (a row of scores per cell, sized by this grammar): ParseAll and
  // ParseEnsemble reuse them across calls (the CLI parses in chunks of 16 sentences).
  std::unique_ptr<Chart> AcquireChart() const;
  void ReleaseChart(std::unique_ptr<Chart> chart) const;
  // So are a sentence's CRF scores (rows per cell, per boundary and rule): reused across
  // sentences and calls.
  std::unique_ptr<CrfSentence> AcquireSentence() const;
  void ReleaseSentence(std::unique_ptr<CrfSentence> sentence) const;
  // One sentence's scorer for a scope (given back when it ends, also on an exception).
  PoolLease<CrfSentence> LeaseSentence() const { return PoolLease<CrfSentence>(sentence_pool_); }

 private:
  // no_tree (may be null): set when the coarse pass proved that no tree covers the sentence.
  SentenceParse ParseOnce(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg, double beam,
                          double prune, bool mbr, bool with_mbr_tree, bool* no_tree) const;
  // The CRF's flat fallback for a sentence no tree covers (what its passes would end in).
  SentenceParse NoTreeParse(const std::vector<Token>& tokens) const;
  // When `out` is a fallback: parses again with every tag allowed for every word (pruned at
  // `prune` when prune_retry, else exhaustively), and keeps that parse if it has a tree.
  void RetryWithEveryTag(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg, bool mbr,
                         double prune, bool prune_retry, bool with_mbr_tree, SentenceParse& out) const;
  // The coarse pass's outcome and kept entries for one sentence (KeepCoarseMasks).
  struct CoarseKeep {
    CoarseOutcome outcome = CoarseOutcome::kUnmasked;
    std::vector<int32_t> keep_pre, keep_post;
  };
  CoarseKeep RunCoarsePass(const std::vector<Token>& tokens, double prune, Chart& ch) const;
  mutable std::mutex mask_mutex_;
  mutable std::unordered_map<std::string, CoarseKeep> kept_masks_;
  mutable size_t kept_mask_bytes_ = 0, max_mask_bytes_ = 0;
  // Up to 8 idle charts; a sentence's scores for every thread that may parse at once; neither
  // when it holds more than kKeptBufferBytes.
  mutable ObjectPool<Chart> chart_pool_{8, Keeps<Chart>};
  mutable ObjectPool<CrfSentence> sentence_pool_{static_cast<size_t>(kMaxThreads), Keeps<CrfSentence>};
  // The coarse pass's view of the PCFG, built on the first coarse pass (the PCFG is final
  // by then) rather than once per sentence.
  const CoarseRules& Coarse() const;
  mutable std::once_flag coarse_once_;
  mutable std::unique_ptr<const CoarseRules> coarse_rules_;

 public:
  static std::unique_ptr<ChartModel> Deserialize(const uint8_t* data, size_t size);
};

struct PcfgScorer {
  const double* binary;
  const double* unary;
  const double* root;
  double Binary(int32_t r, int, int, int) const { return binary[r]; }
  double Unary(int32_t u, int, int) const { return unary[u]; }
  double Root(int32_t r) const { return root[r]; }
};

}  // namespace structrank
