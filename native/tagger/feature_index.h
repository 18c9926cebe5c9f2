// The CRF training loops' own layout of the node-feature weights ("slots"), and of the
// training corpus's attribute occurrences. Attribute a owns n = span[a].n slots from
// span[a].first:
//   - dense: an attribute with at least `dense_min` features gets W = PadLanes(L) slots,
//     label y in slot first + y (a label it has no feature for, and the W - L pads, hold 0,
//     and their gradient is dropped), so a token's scores and gradient are whole vector
//     registers per such attribute: its dense rows are summed in registers and stored once;
//   - sparse: the others get one slot per feature, in the model's order, with its label.
// Frequent attributes pair with many labels: on conll2000's chunk template 8 features are
// visited per attribute occurrence on average, and the scattered one-label-at-a-time adds
// were the largest cost of an L-BFGS iteration. The attributes are laid out most frequent
// first, so that the slots the loops use most share cache lines and pages.
//
// The occurrences are the corpus's, each token's dense attributes first and then its sparse
// ones, each given by its first slot (and a sparse one's slot count): the loops read no
// attribute table and take no unpredictable dense-or-sparse branch per occurrence. Every
// emission score is summed in that order, every gradient entry in the corpus's token order:
// the model's own loops (TaggerModel::Emissions) give the same bits on a corpus whose
// tokens list their attributes in that order.
#pragma once
#include <cstdint>
#include <vector>

#include "tagger/chain.h"
#include "tagger/model.h"

namespace structrank {

struct FeatureIndex {
  struct Span {
    uint32_t first, n;  // the attribute's slots are [first, first + n)
  };
  int32_t L = 0;
  std::vector<Span> span;      // per attribute
  std::vector<uint8_t> label;  // label of each sparse slot (dense slots: unused)
  // The occurrences of the corpus the index was built for, at the corpus's positions
  // (attributes.row_ptr), each token's dense ones first: first slot, and slot count.
  std::vector<uint32_t> first;
  std::vector<uint8_t> count;
  std::vector<uint32_t> dense;  // per token: how many of its occurrences are dense

  // At least this many features make an attribute dense (measured on conll2000: bench/peers).
  static constexpr int32_t kDenseMin = 6;

  // False when the model does not fit (a padded dense row of 256 slots or more, 2^32 slots
  // or more): the callers then use the model's own tables.
  static bool Fits(const TaggerModel& model);
  // The layout for `corpus`: attributes ordered by their number of occurrences in it, most
  // first (ties by id), or by id.
  static FeatureIndex For(const TaggerModel& model, const TaggerCorpus& corpus, int32_t dense_min = kDenseMin,
                          bool by_frequency = true);

  std::size_t size() const { return label.size(); }
  // The loops' vector ("pack"): attribute a's n weights at 2 first .. + n, then their n
  // gradient sums, so that the gradient pass of a sentence finds its lines where the
  // emission pass brought them into the cache.
  std::size_t pack_size() const { return 2 * size(); }
  bool Dense(int32_t a) const { return static_cast<int32_t>(span[a].n) == PadLanes(L); }
  // Built for this corpus (the same number of tokens and occurrences).
  bool Indexes(const TaggerCorpus& corpus) const;

  // Pack weight of f's slot = w[f] for every node feature f. A pack starts as zeros, and
  // the other entries are left as they are: reused from one evaluation to the next, it
  // needs no refilling.
  void Gather(const TaggerModel& model, const double* w, double* pack) const;
  // The pack position of node feature f's weight, f one of attribute a's features.
  uint32_t WeightPosition(const TaggerModel& model, int32_t a, int64_t f) const {
    return 2 * span[a].first +
           static_cast<uint32_t>(Dense(a) ? model.feature_label[f] : f - model.attr_offset[a]);
  }
  // WeightPosition of every node feature (what Gather writes w[f] to).
  std::vector<uint32_t> WeightPositions(const TaggerModel& model) const;
  // out[f] += the pack's gradient sum of f's slot, for every node feature f; the sums are
  // reset to 0 for the next evaluation.
  void AddTo(const TaggerModel& model, double* pack, double* out) const;

  // score[i * L + y] = sum of the pack weights of sentence s's token i's attributes with
  // label y, over its dense attributes and then its sparse ones.
  void Emissions(const TaggerCorpus& corpus, int64_t s, const double* pack, double* score) const;
  // Gradient sum of a slot += m[i * L + label(slot)], for every slot of every token i of s.
  void AddGradient(const TaggerCorpus& corpus, int64_t s, const double* m, double* pack) const;
};

}  // namespace structrank
