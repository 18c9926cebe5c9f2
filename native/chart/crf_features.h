// Features of the CRF-CFG (Finkel, Kleeman & Manning 2008) and the per-sentence scorer built from them.
// Rule features are dense blocks indexed by rule id (the rule; rule x span-length bucket;
// rule x heavy, i.e. the span ends the sentence; rule x child span-length buckets; unary
// and root rules alike). Word features are sparse, kept only if seen in a gold tree:
// parent base category x words at and just outside the span edges, x the split point's
// words; single-word unaries x the word; lexicon features tag (and tag base) x word, word
// class, suffixes. A word is its lowercased form if frequent, else its signature.
// The span and split features depend on the parent's base category, not on the rule, so
// each sentence precomputes them once per (span, base) and (split, base).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "chart/chart.h"
#include "chart/gold_tree.h"
#include "chart/grammar.h"
#include "chart/lexicon.h"
#include "core/attribute_table.h"
#include "core/byte_io.h"

namespace structrank {

constexpr int kLenBuckets = 6;
inline int LenBucket(int len) {
  return len <= 1 ? 0 : len == 2 ? 1 : len <= 4 ? 2 : len <= 8 ? 3 : len <= 16 ? 4 : 5;
}

enum CrfTemplate : uint64_t {
  kLexWord = 1,
  kLexSig,
  kLexSuffix2,
  kLexSuffix3,
  kLexBaseWord,
  kLexBaseSig,
  kSpanFirst,
  kSpanLast,
  kSpanBefore,
  kSpanAfter,
  kSplitLeft,
  kSplitRight,
  kUnaryWord,
  kLexCluster,
  kLexClusterPrefix,
  kLexBaseCluster,
  kRuleVerbLeft,
  kRuleVerbRight,
  kLexShape,
  // Surface span templates (x 2 word representations: word, shape); see SurfaceSlot.
  kSurfFirst = 64,
  kSurfBefore = 66,
  kSurfLast = 68,
  kSurfAfter = 70,
  kSurfSplitLeft = 72,
  kSurfSplitRight = 74,
  kSurfSpanShape = 76
};
// A word template plus this: the word's tag set in place of the word (CrfWeights::tag_sets).
constexpr uint64_t kSurfTagSet = 32;
// A word template plus this: the word's cluster in place of the word (CrfWeights::surface_clusters).
constexpr uint64_t kSurfCluster = 48;

// Lexicon feature keys per (position, tag): 6 always, up to 4 more from word clusters, one
// word shape with surface features.
constexpr int kMaxLexKeys = 11;

// What a surface feature is conjoined with: a binary rule, a unary rule or a parent symbol.
constexpr uint64_t kConjUnary = 1ULL << 32, kConjParent = 2ULL << 32;

inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
inline uint64_t FeatureKey(uint64_t templ, uint64_t a, uint64_t value) {
  return Mix64(Mix64(templ * 0x100000001b3ULL + a) ^ value);
}
inline uint64_t StringHash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return Mix64(h);
}

struct CrfWeights {
  // Dense block offsets into theta.
  int64_t binary_rule = 0, binary_len = 0, binary_heavy = 0, binary_children = 0;
  int64_t unary_rule = 0, unary_len = 0, root_rule = 0, tag_prior = 0, base_len = 0, base_heavy = 0;
  int64_t pcfg_lex = 0;  // one weight on the PCFG's log P(word | tag), a real-valued feature
  // Surface span features (Hall, Durrett & Klein 2014): hashed into 2^surface_bits weights
  // at surface_begin (0 bits = none). The hash of (template, word representation) picks a
  // row and the rule or parent an offset in it (surface_rows; older models hash all three):
  // no dictionary, every combination has a weight.
  int surface_bits = 0;
  int64_t surface_begin = 0;
  // Of the distinct surface features seen in the gold trees, the fraction that share their
  // slot with another one (set by InitCrf; not serialized).
  double surface_collision_rate = 0;
  int64_t surface_gold_features = 0;
  int64_t sparse_begin = 0;
  std::vector<double> theta;
  AttributeTable sparse;  // key -> sparse feature id; its weight is theta[sparse_begin + id]
  // Verb-lexicalized rule features (Finkel, Kleeman & Manning 2008, table 1: a binary rule with a verb-tag
  // child, x that verb's lowercased word); verb_words holds the hashes of the words they exist for, so the
  // scorer looks features up only at those positions.
  bool verb_features = false;
  std::unordered_set<uint64_t> verb_words;
  // The surface features also see each word's tag set (the tags the lexicon allows it, its
  // ambiguity class): coarser than the word, finer than its shape (payload version 6).
  bool tag_sets = false;
  // With word clusters (Lexicon::cluster_names), the surface features also see each word's
  // cluster; a word without one, its shape (payload version 8).
  bool surface_clusters = false;

  void Layout(const Grammar& g);
  // Adds a sparse feature (training only); returns its index.
  int32_t AddSparse(uint64_t key);
  int32_t Find(uint64_t key) const {  // the key's index into theta, -1 if absent
    const int32_t id = sparse.Find(key);
    return id < 0 ? -1 : static_cast<int32_t>(sparse_begin + id);
  }
  // Surface rows (payload version 7): the hash of (template, word representation) picks a
  // row's first slot and the conjunction is an offset from it (rules, then unary rules, then
  // symbols), so the weights of one word at one boundary lie side by side and the chart's
  // passes over rules read them in order; before, each (template, conjunction, value) was
  // hashed on its own and every read was a random one.
  bool surface_rows = false;
  int64_t conj_unary_offset = 0, conj_parent_offset = 0;  // set by Layout
  static uint64_t SurfaceRow(uint64_t templ, uint64_t value) { return FeatureKey(templ, 0, value); }
  uint64_t ConjOffset(uint64_t conj) const {
    const uint64_t kind = conj >> 32, index = conj & 0xffffffffULL;
    return index + static_cast<uint64_t>(kind == 0 ? 0 : kind == 1 ? conj_unary_offset : conj_parent_offset);
  }
  // The weight index of the surface feature at `offset` (ConjOffset) in `row` (SurfaceRow).
  int64_t SurfaceSlotInRow(uint64_t row, uint64_t offset) const {
    return surface_begin + static_cast<int64_t>((row + offset) & ((1ULL << surface_bits) - 1));
  }
  // The weight index of a surface feature.
  int64_t SurfaceSlot(uint64_t templ, uint64_t conj, uint64_t value) const {
    if (surface_rows) return SurfaceSlotInRow(SurfaceRow(templ, value), ConjOffset(conj));
    return surface_begin +
           static_cast<int64_t>(FeatureKey(templ, conj, value) & ((1ULL << surface_bits) - 1));
  }
  // `nonzero_only` false: every weight, as payload versions before 5 stored them (for tests).
  void Write(ByteWriter& out, bool nonzero_only = true) const;
  // `nonzero_only`: the weights as Write stores them (payload version 5); before, every weight.
  static CrfWeights Read(ByteReader& in, const Grammar& g, int surface_bits = 0, bool nonzero_only = true);
};

// The resolved sparse feature ids of one sentence (lookups that found nothing dropped), in
// CSR form: what Prepare() and Flush() otherwise look up in the hash map on every pass.
// The trainer caches them per training sentence across passes.
// The edge and split rows are per position, each entry naming its base category: fewer
// than one (position, base) pair in three has a feature, so offsets per pair would be most
// of the bytes on a treebank with hundreds of labels.
struct SentenceFeatureIds {
  std::vector<int32_t> edge_offsets, edge;    // slot p; entry id * 4 + edge template
  std::vector<uint16_t> edge_base;            // the base category of each edge entry
  std::vector<int32_t> split_offsets, split;  // slot k; entry id
  std::vector<uint16_t> split_base;           // the base category of each split entry
  std::vector<int32_t> lex_offsets, lex;      // slot = (position, index into its tags)
  std::vector<int32_t> unary_offsets, unary;  // slot = position; entries (unary rule, id) pairs
  size_t Bytes() const {
    return 4 * (edge_offsets.size() + edge.size() + split_offsets.size() + split.size() + lex_offsets.size() +
                lex.size() + unary_offsets.size() + unary.size()) +
           2 * (edge_base.size() + split_base.size());
  }
};
// The most base categories SentenceFeatureIds can name (CrfWeights::Layout refuses more).
constexpr int32_t kMaxFeatureBases = 65536;

// Per-sentence scores (a Scorer for Inside/Outside/KBest) and gradient bookkeeping.
class CrfSentence {
 public:
  // `cached`: feature ids resolved by an earlier Prepare of the same sentence and weights
  // layout (no hash lookups); otherwise they are resolved here and, if `record` is set,
  // copied there for later passes.
  void Prepare(const CrfWeights& w, const Grammar& g, const Lexicon& lex, const std::vector<Token>& tokens,
               const SentenceFeatureIds* cached = nullptr, SentenceFeatureIds* record = nullptr);
  const LexScores& lex() const { return lex_; }
  // The bytes its per-cell and per-boundary rows hold (what grows with the longest sentence so far).
  size_t HeldBytes() const;
  // Softmax-margin training (Gimpel & Smith 2010): adds `cost` to the score of every (span,
  // base category) that is not a node of the gold tree, so that the normalizer weighs each
  // tree by its wrong brackets and training pushes hardest on the trees that score worst.
  void AddSpanCost(const GoldItems& gold, double cost);

  double Binary(int32_t r, int i, int k, int j) const {
    const double* t = w_->theta.data();
    const BinaryRule& rule = g_->binary[r];
    const int32_t b = g_->base[rule.parent];
    double s =
        t[w_->binary_rule + r] + t[w_->binary_len + r * kLenBuckets + LenBucket(j - i)] +
        t[w_->binary_children + (static_cast<int64_t>(r) * kLenBuckets + LenBucket(k - i)) * kLenBuckets +
          LenBucket(j - k)] +
        span_base_[static_cast<size_t>(Cell(i, j)) * B_ + b] + split_base_[static_cast<size_t>(k) * B_ + b];
    if (j == n_) s += t[w_->binary_heavy + r];
    if (verb_on_ && g_->binary_verb[r]) s += VerbScore(r, i, k, j);
    if (surface_on_) {
      const size_t R = g_->binary.size();
      s += SurfaceRule(0, i * R + r, i, r, false) + SurfaceRule(1, j * R + r, j, r, false) +
           SurfaceRule(2, k * R + r, k, r, false);
    }
    return s;
  }
  // Verb-lexicalized features of one binary application: rule x the word of a child that
  // is a verb tag (so that child spans one word). Out of line: few applications have any,
  // and Binary must stay small enough to be inlined into the chart passes.
  double VerbScore(int32_t r, int i, int k, int j) const;
  // The verb feature keys of a binary application (0 = none); for building the dictionary.
  void VerbKeys(int32_t r, int i, int k, int j, uint64_t out[2]) const;
  double Unary(int32_t u, int i, int j) const {
    const double* t = w_->theta.data();
    const int32_t b = g_->base[g_->unary[u].parent];
    double s = t[w_->unary_rule + u] + t[w_->unary_len + u * kLenBuckets + LenBucket(j - i)] +
               span_base_[static_cast<size_t>(Cell(i, j)) * B_ + b];
    if (j - i == 1) s += unary_word_score_[static_cast<size_t>(i) * U_ + u];
    if (surface_on_)
      s += SurfaceRule(3, static_cast<size_t>(i) * U_ + u, i, u, true) +
           SurfaceRule(4, static_cast<size_t>(j) * U_ + u, j, u, true);
    return s;
  }
  double Root(int32_t rr) const { return w_->theta[w_->root_rule + rr]; }

  // Gradient: Add* record `coeff` times the features of one rule application; dense and
  // single-word features go straight into grad, span/split/lexicon ones into per-sentence
  // masses that Flush() distributes.
  void BeginGradient();
  void AddBinary(int32_t r, int i, int k, int j, double coeff, double* grad);
  void AddUnary(int32_t u, int i, int j, double coeff, double* grad);
  void AddLex(int i, int32_t tag, double coeff, double* grad);
  void AddRoot(int32_t rr, double coeff, double* grad) { grad[w_->root_rule + rr] += coeff; }
  void Flush(double* grad);

  // The sparse feature keys of each kind (used to build the feature dictionary).
  void SpanKeys(int32_t b, int i, int j, uint64_t out[4]) const;
  void SplitKeys(int32_t b, int k, uint64_t out[2]) const;
  // Word-edge keys anchored at position p (0 where the template has no word there).
  void EdgeKeys(int32_t b, int p, uint64_t out[4]) const;
  int LexKeys(int i, int32_t tag, uint64_t out[kMaxLexKeys]) const;
  uint64_t UnaryWordKey(int32_t u, int i) const { return FeatureKey(kUnaryWord, u, word_key_[i]); }

  // Binds to weights and grammar and computes word keys only (no scores).
  void BindKeys(const CrfWeights& w, const Grammar& g, const Lexicon& lex, const std::vector<Token>& tokens);

  // Surface features of one boundary (for tests and the collision count): the (template,
  // word representation) pairs of a span's left edge at i (first word i, word before i-1),
  // right edge at j (last word j-1, word after j), or split at k (words k-1 and k).
  enum class Edge { kLeft, kRight, kSplit };
  struct SurfaceKey {
    uint64_t templ, value;
  };
  // Two words x their representations: word and shape, then the tag set (CrfWeights::tag_sets)
  // and the cluster (CrfWeights::surface_clusters) when the model has them.
  static constexpr int kMaxSurfaceKeys = 8;
  int NumSurfaceKeys() const { return 4 + (w_->tag_sets ? 2 : 0) + (w_->surface_clusters ? 2 : 0); }
  void SurfaceKeys(Edge edge, int p, SurfaceKey out[kMaxSurfaceKeys]) const;
  // The weight index of `key` (whose SurfaceRow is `row`) conjoined with `conj`, in either
  // layout of the surface table.
  int64_t KeySlot(const SurfaceKey& key, uint64_t row, uint64_t conj) const {
    return w_->surface_rows ? w_->SurfaceSlotInRow(row, w_->ConjOffset(conj))
                            : w_->SurfaceSlot(key.templ, conj, key.value);
  }
  // The span shape of words [i, j): one symbol per word (its first character's class),
  // the first and last 4 words of longer spans.
  uint64_t SpanShapeKey(int i, int j) const;

 private:
  int Cell(int i, int j) const { return i * (2 * n_ - i + 1) / 2 + (j - i - 1); }
  const CrfWeights* w_ = nullptr;
  const Grammar* g_ = nullptr;
  void ResolveIds(SentenceFeatureIds& out) const;
  int n_ = 0, B_ = 0, U_ = 0;
  SentenceFeatureIds own_ids_;
  const SentenceFeatureIds* ids_ = nullptr;
  // Rule x word of single-word unaries, per (position, unary rule): weight and feature id.
  std::vector<double> unary_word_score_;
  std::vector<int32_t> unary_word_id_;
  std::vector<uint64_t> word_key_, sig_key_, suffix2_key_, suffix3_key_;
  // Cluster keys per position (0 = the word has no cluster / no such prefix).
  std::vector<uint64_t> cluster_key_, cluster_p4_key_, cluster_p6_key_;
  std::vector<uint64_t> lower_key_;  // hash of the lowercased word
  std::vector<uint8_t> verb_pos_;    // the word has verb features
  bool verb_on_ = false;
  const std::vector<Token>* tokens_ = nullptr;
  std::vector<double> span_base_, split_base_;
  // Surface features: per boundary x binary rule (left edge, right edge, split) and per
  // boundary x unary rule (left, right), each summing its templates x representations x
  // (rule, parent); the masses of the same shapes for the gradient.
  bool surface_on_ = false;
  std::vector<uint64_t> rep_word_, rep_shape_, rep_tag_set_, rep_cluster_;  // positions -1 .. n (index + 1)
  std::vector<char> shape_symbol_;                                          // per word: its span-shape symbol
  // Filled lazily: the coarse-to-fine mask leaves most (boundary, rule) pairs unused, and
  // each costs four to eight reads of the hashed table. A bit per entry says it is computed
  // (a sentence clears 64 times fewer bytes than the scores would take).
  // Tables 0-2: binary rules at the left edge, right edge, split; 3-4: unary, left, right.
  mutable std::vector<double> surf_[5];
  mutable std::vector<uint64_t> surf_known_[5];
  mutable std::vector<double> surf_parent_[3];  // per edge: boundary x symbol (NaN = not yet)
  std::vector<SurfaceKey> edge_keys_[3];        // per edge: boundary x kMaxSurfaceKeys keys
  std::vector<uint64_t> edge_rows_[3];          // the same keys' SurfaceRow
  double SurfaceRule(int table, size_t at, int p, int32_t rule, bool unary) const {
    uint64_t& known = surf_known_[table][at >> 6];
    const uint64_t bit = uint64_t{1} << (at & 63);
    if (!(known & bit)) surf_[table][at] = ComputeSurface(table % 3, p, rule, unary), known |= bit;
    return surf_[table][at];
  }
  double ComputeSurface(int edge, int p, int32_t rule, bool unary) const;
  std::vector<double> mass_left_, mass_right_, mass_split_, mass_uleft_, mass_uright_;
  std::vector<int64_t> shape_slot_;  // per (cell, base): the span-shape x parent-base slot
  void PrepareSurface();
  void FlushSurface(double* grad);
  std::vector<double> span_mass_, split_mass_;
  // Word-edge feature weights per position and base: span start, span end - 1, the word
  // before the start (position i), the word after the end (position j); n + 1 rows each.
  std::vector<double> edge_[4];
  std::vector<double> edge_mass_[4];
  LexScores lex_;
  std::vector<std::vector<double>> lex_mass_, lex_logp_;
};

}  // namespace structrank
