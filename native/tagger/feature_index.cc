#include "tagger/feature_index.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/simd.h"
#include "tagger/chain.h"

namespace structrank {

namespace {

// The two loops over a sentence's attribute occurrences, one clone per vector unit: a dense
// attribute is a vector add of L lanes, a sparse one a loop over its labelled slots.
struct Rows {
  const int64_t* row_ptr;
  const uint32_t* dense;
  const uint32_t* first;
  const uint8_t* count;
  const uint8_t* label;
  int32_t L;
};

#ifdef SR_HAS_LANES  // core/simd.h
// A token's dense attributes, rows of W = R N slots (pads 0): summed in R registers, the L
// scores stored once.
template <int N, int W>
SR_ALWAYS_INLINE int64_t SumDense(int64_t k, int64_t dense_end, const uint32_t* first,
                                  const double* SR_RESTRICT pack, int32_t L, double* SR_RESTRICT sc) {
  constexpr int R = W / N;
  Vec<N> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Vec<N>{};
  for (; k < dense_end; ++k) {
    const double* x = pack + 2 * std::size_t{first[k]};
    for (int r = 0; r < R; ++r) {
      Vec<N> t;
      std::memcpy(&t, x + N * r, sizeof t);
      acc[r] += t;
    }
  }
  double row[W];
  std::memcpy(row, acc, sizeof row);
  std::memcpy(sc, row, sizeof(double) * L);
  return k;
}

// The gradient rows of a token's dense attributes += its L marginals (pads += 0).
template <int N, int W>
SR_ALWAYS_INLINE int64_t AddDense(int64_t k, int64_t dense_end, const uint32_t* first,
                                  const double* SR_RESTRICT mi, int32_t L, double* SR_RESTRICT pack) {
  constexpr int R = W / N;
  double row[W] = {};
  std::memcpy(row, mi, sizeof(double) * L);
  Vec<N> m[R];
  std::memcpy(m, row, sizeof row);
  for (; k < dense_end; ++k) {
    double* g = pack + 2 * std::size_t{first[k]} + W;
    for (int r = 0; r < R; ++r) {
      Vec<N> t;
      std::memcpy(&t, g + N * r, sizeof t);
      t += m[r];
      std::memcpy(g + N * r, &t, sizeof t);
    }
  }
  return k;
}
#endif

template <int N>
SR_ALWAYS_INLINE void SumScoresBody(const Rows& r, int64_t begin, int64_t end, const double* SR_RESTRICT pack,
                                    double* SR_RESTRICT score) {
  const int32_t L = r.L, W = PadLanes(L);
  for (int64_t t = begin; t < end; ++t) {
    double* SR_RESTRICT sc = score + (t - begin) * L;
    int64_t k = r.row_ptr[t];
    const int64_t dense_end = k + r.dense[t];
#ifdef SR_HAS_LANES
    switch (W) {
      case 8:
        k = SumDense<N, 8>(k, dense_end, r.first, pack, L, sc);
        break;
      case 16:
        k = SumDense<N, 16>(k, dense_end, r.first, pack, L, sc);
        break;
      case 24:
        k = SumDense<N, 24>(k, dense_end, r.first, pack, L, sc);
        break;
      case 32:
        k = SumDense<N, 32>(k, dense_end, r.first, pack, L, sc);
        break;
      default:
        break;
    }
#endif
    for (; k < dense_end; ++k) {
      const double* SR_RESTRICT x = pack + 2 * std::size_t{r.first[k]};  // the weights
      for (int32_t y = 0; y < L; ++y) sc[y] += x[y];
    }
    for (; k < r.row_ptr[t + 1]; ++k) {
      const uint32_t f = r.first[k], n = r.count[k];
      const double* SR_RESTRICT x = pack + 2 * std::size_t{f};
      const uint8_t* lab = r.label + f;
      for (uint32_t j = 0; j < n; ++j) sc[lab[j]] += x[j];
    }
  }
}

template <int N>
SR_ALWAYS_INLINE void AddMarginalsBody(const Rows& r, int64_t begin, int64_t end, const double* SR_RESTRICT m,
                                       double* SR_RESTRICT pack) {
  const int32_t L = r.L, W = PadLanes(L);
  for (int64_t t = begin; t < end; ++t) {
    const double* SR_RESTRICT mi = m + (t - begin) * L;
    int64_t k = r.row_ptr[t];
    const int64_t dense_end = k + r.dense[t];
#ifdef SR_HAS_LANES
    switch (W) {
      case 8:
        k = AddDense<N, 8>(k, dense_end, r.first, mi, L, pack);
        break;
      case 16:
        k = AddDense<N, 16>(k, dense_end, r.first, mi, L, pack);
        break;
      case 24:
        k = AddDense<N, 24>(k, dense_end, r.first, mi, L, pack);
        break;
      case 32:
        k = AddDense<N, 32>(k, dense_end, r.first, mi, L, pack);
        break;
      default:
        break;
    }
#endif
    for (; k < dense_end; ++k) {
      double* SR_RESTRICT g = pack + 2 * std::size_t{r.first[k]} + W;  // the gradient, after the weights
      for (int32_t y = 0; y < L; ++y) g[y] += mi[y];
    }
    for (; k < r.row_ptr[t + 1]; ++k) {
      const uint32_t f = r.first[k], n = r.count[k];
      double* SR_RESTRICT g = pack + 2 * std::size_t{f} + n;
      const uint8_t* lab = r.label + f;
      for (uint32_t j = 0; j < n; ++j) g[j] += mi[lab[j]];
    }
  }
}

SR_SIMD_DISPATCH(SumScores,
                 (const Rows& r, int64_t begin, int64_t end, const double* SR_RESTRICT pack,
                  double* SR_RESTRICT score),
                 (r, begin, end, pack, score))
SR_SIMD_DISPATCH(AddMarginals,
                 (const Rows& r, int64_t begin, int64_t end, const double* SR_RESTRICT m,
                  double* SR_RESTRICT pack),
                 (r, begin, end, m, pack))

}  // namespace

bool FeatureIndex::Fits(const TaggerModel& model) {
  // Dense attributes take W slots: at most W per feature.
  const int64_t W = PadLanes(model.num_labels());
  return W < 256 && model.num_node_features() < (int64_t{1} << 32) / std::max<int64_t>(1, W);
}

FeatureIndex FeatureIndex::For(const TaggerModel& model, const TaggerCorpus& corpus, int32_t dense_min,
                               bool by_frequency) {
  FeatureIndex x;
  x.L = model.num_labels();
  // An attribute with every label is dense whatever dense_min says: "L slots" means dense.
  dense_min = std::max(1, std::min(dense_min, x.L));
  const int32_t A = static_cast<int32_t>(model.attr_offset.size()) - 1;
  const std::vector<int32_t>& cols = corpus.attributes.cols;
  std::vector<int32_t> order(A);
  std::iota(order.begin(), order.end(), 0);
  if (by_frequency) {
    std::vector<uint32_t> seen(A, 0);
    for (int32_t a : cols) {
      if (a >= 0 && a < A) ++seen[a];
    }
    std::stable_sort(order.begin(), order.end(), [&](int32_t p, int32_t q) { return seen[p] > seen[q]; });
  }
  x.span.resize(A);
  uint32_t at = 0;
  for (int32_t a : order) {
    const int64_t k = model.attr_offset[a + 1] - model.attr_offset[a];
    x.span[a] = Span{at, static_cast<uint32_t>(k >= dense_min ? PadLanes(x.L) : k)};
    at += x.span[a].n;
  }
  x.label.assign(at, 0);
  for (int32_t a = 0; a < A; ++a) {
    if (x.Dense(a)) continue;
    for (int64_t f = model.attr_offset[a]; f < model.attr_offset[a + 1]; ++f) {
      x.label[x.span[a].first + (f - model.attr_offset[a])] = static_cast<uint8_t>(model.feature_label[f]);
    }
  }
  // The occurrences, each token's dense attributes first (a sparse slot count is below L < 256).
  x.first.resize(cols.size());
  x.count.resize(cols.size());
  x.dense.resize(corpus.attributes.rows());
  for (int64_t t = 0; t < corpus.attributes.rows(); ++t) {
    int64_t k = corpus.attributes.RowBegin(t);
    for (bool dense : {true, false}) {
      for (int64_t j = corpus.attributes.RowBegin(t); j < corpus.attributes.RowEnd(t); ++j) {
        const int32_t a = cols[j];
        if (x.Dense(a) != dense) continue;
        x.first[k] = x.span[a].first;
        x.count[k++] = static_cast<uint8_t>(x.span[a].n);
        if (dense) ++x.dense[t];
      }
    }
  }
  return x;
}

bool FeatureIndex::Indexes(const TaggerCorpus& corpus) const {
  return first.size() == corpus.attributes.cols.size() &&
         dense.size() == static_cast<std::size_t>(corpus.attributes.rows());
}

std::vector<uint32_t> FeatureIndex::WeightPositions(const TaggerModel& model) const {
  std::vector<uint32_t> at(static_cast<std::size_t>(model.num_node_features()));
  const int32_t A = static_cast<int32_t>(span.size());
  for (int32_t a = 0; a < A; ++a) {
    for (int64_t f = model.attr_offset[a]; f < model.attr_offset[a + 1]; ++f)
      at[f] = WeightPosition(model, a, f);
  }
  return at;
}

void FeatureIndex::Gather(const TaggerModel& model, const double* w, double* pack) const {
  const int32_t A = static_cast<int32_t>(span.size());
  for (int32_t a = 0; a < A; ++a) {
    for (int64_t f = model.attr_offset[a]; f < model.attr_offset[a + 1]; ++f)
      pack[WeightPosition(model, a, f)] = w[f];
  }
}

void FeatureIndex::AddTo(const TaggerModel& model, double* pack, double* out) const {
  const int32_t A = static_cast<int32_t>(span.size());
  for (int32_t a = 0; a < A; ++a) {
    const bool dense = Dense(a);
    double* g = pack + 2 * std::size_t{span[a].first} + span[a].n;
    for (int64_t f = model.attr_offset[a]; f < model.attr_offset[a + 1]; ++f) {
      double& sum = g[dense ? model.feature_label[f] : f - model.attr_offset[a]];
      out[f] += sum;
      sum = 0;
    }
  }
}

void FeatureIndex::Emissions(const TaggerCorpus& corpus, int64_t s, const double* pack, double* score) const {
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  std::memset(score, 0, sizeof(double) * (end - begin) * L);
  const Rows r{corpus.attributes.row_ptr.data(), dense.data(), first.data(), count.data(), label.data(), L};
  SumScores(r, begin, end, pack, score);
}

void FeatureIndex::AddGradient(const TaggerCorpus& corpus, int64_t s, const double* m, double* pack) const {
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  const Rows r{corpus.attributes.row_ptr.data(), dense.data(), first.data(), count.data(), label.data(), L};
  AddMarginals(r, begin, end, m, pack);
}

}  // namespace structrank
