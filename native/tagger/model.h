// A linear-chain tagging model: attributes x labels restricted to the pairs seen in
// training (as CRFsuite does), plus label-transition weights of order 1 or 2.
// The same model and weight layout serve the averaged perceptron, the CRF and the
// locally normalized maxent tagger; they differ only in how the weights are trained
// and (for maxent) how sequences are decoded.
//
// Weight vector layout: [node features (attribute, label)][edge features (attribute,
// previous label, label)][(L+1) x L first-order transitions, row L = sentence start]
// [order 2: (L+1) x L x L second-order transitions (t-2, t-1, t)].
// A (previous label, label) pair is coded p * L + c, p == L for the sentence start; there
// are P = (L+1) * L pairs.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_io.h"
#include "core/csr.h"
#include "core/interner.h"
#include "tagger/features.h"
#include "core/flat_array.h"

// A cache prefetch hint (a no-op where the compiler has none).
#if defined(__GNUC__) || defined(__clang__)
#define SR_PREFETCH(...) __builtin_prefetch(__VA_ARGS__)
#else
#define SR_PREFETCH(...) ((void)0)
#endif

namespace structrank {

enum class TaggerAlgorithm : int32_t { kPerceptron = 0, kCrf = 1, kMaxent = 2 };

// Sentences as CSR rows of attribute ids (one row per token) with gold label ids.
struct TaggerCorpus {
  std::vector<int64_t> sentence_start{0};  // token offsets; sentence s = [start[s], start[s+1])
  CsrMatrix attributes;                    // rows = tokens
  CsrMatrix edge_attributes;               // rows = tokens: attributes of edge templates
  std::vector<int32_t> labels;             // gold label per token, -1 when unknown or absent
  int64_t sentences() const { return static_cast<int64_t>(sentence_start.size()) - 1; }
  int64_t tokens() const { return static_cast<int64_t>(labels.size()); }
};

class TaggerModel {
 public:
  TaggerAlgorithm algorithm = TaggerAlgorithm::kCrf;
  int32_t order = 1;
  int32_t beam = 8;  // maxent decoding beam
  FeatureConfig config;
  Interner labels;
  AttributeTable attributes;
  // The big arrays are FlatArrays: built as vectors by training, used in place from the
  // file bytes by a loaded model (Deserialize with `keep`).
  FlatArray<int64_t> attr_offset{0};  // attribute a's features are [attr_offset[a], attr_offset[a+1])
  FlatArray<int32_t> feature_label;   // label of each feature
  // Attribute a's edge features: [edge_offset[a], edge_offset[a+1]); empty when the model
  // has no edge features (read only when has_edge_features()).
  FlatArray<int64_t> edge_offset;
  FlatArray<int32_t> edge_pair;  // (previous label, label) pair of each edge feature
  FlatArray<double> weights;

  int32_t num_labels() const { return labels.size(); }
  int64_t num_node_features() const { return static_cast<int64_t>(feature_label.size()); }
  bool has_edge_features() const { return !edge_pair.empty(); }
  int32_t num_pairs() const { return (num_labels() + 1) * num_labels(); }
  int64_t num_features() const { return num_node_features() + static_cast<int64_t>(edge_pair.size()); }
  int64_t Trans1(int32_t prev, int32_t cur) const {  // prev == L: sentence start
    return num_features() + static_cast<int64_t>(prev) * num_labels() + cur;
  }
  int64_t Trans2(int32_t prev2, int32_t prev, int32_t cur) const {  // prev2 == L: start
    int64_t L = num_labels();
    return num_features() + (L + 1) * L + (static_cast<int64_t>(prev2) * L + prev) * L + cur;
  }
  int64_t num_weights() const {
    int64_t L = num_labels();
    return num_features() + (L + 1) * L + (order == 2 ? (L + 1) * L * L : 0);
  }

  // Reads sentences (tab-separated input columns, blank line between sentences) and
  // optional gold labels (one per token line, same layout). With `grow`, unseen
  // attributes and labels are added; otherwise unknown attributes are dropped.
  TaggerCorpus BuildCorpus(std::string_view text, std::string_view labels_text, bool grow);
  // BuildCorpus for tagging (no labels, unknown attributes dropped), extracting features
  // on `threads` threads.
  TaggerCorpus LookupCorpus(std::string_view text, int threads,
                            const std::atomic<bool>* cancel = nullptr) const;
  // LookupCorpus over sentences already split into fields (views that must outlive the call).
  TaggerCorpus LookupSentences(const std::vector<SentenceFields>& sentences, int threads,
                               const std::atomic<bool>* cancel = nullptr) const;
  // The same into `corpus`, cleared first with its capacity kept: a caller that looks up
  // block after block into one corpus writes to memory already mapped.
  void LookupSentences(const std::vector<SentenceFields>& sentences, int threads,
                       const std::atomic<bool>* cancel, TaggerCorpus& corpus) const;
  // Creates one feature per (attribute, label) pair seen in `corpus`; zero weights.
  void BuildFeatures(const TaggerCorpus& corpus);

  // score[i * L + y] = sum of the weights of token i's attributes with label y.
  void Emissions(const TaggerCorpus& corpus, int64_t sentence, const double* w, double* score) const;
  // delta[i * P + pair] = sum of the edge-feature weights of token i with that pair
  // (only when has_edge_features()).
  void EdgeScores(const TaggerCorpus& corpus, int64_t sentence, const double* w, double* delta,
                  double scale = 1.0) const;

  // Writes payload version 3 (docs/formats.md): the small parts, then each big array
  // (the attribute slot table included) 8-byte aligned within the payload. Version 2 (16-byte
  // slots) only for tests of the reader.
  void Serialize(ByteWriter& w, int version = 3) const;
  // Reads payload version 1, 2 or 3. With `keep` (the bytes `r` reads, kept alive by it), a
  // version-2 or -3 payload's arrays are used in place where the host is little-endian and
  // they are aligned (a version-2 slot table is copied); otherwise they are copied. Either
  // way every offset and index is checked.
  static TaggerModel Deserialize(ByteReader& r, std::shared_ptr<const void> keep = nullptr);
};

}  // namespace structrank
