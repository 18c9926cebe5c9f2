#include "tagger/feature_index.h"

#include <cstring>

namespace structrank {

bool FeatureIndex::Fits(const TaggerModel& model) {
  return model.num_labels() <= 256 && model.num_node_features() < (int64_t{1} << 32);
}

FeatureIndex FeatureIndex::For(const TaggerModel& model) {
  FeatureIndex x;
  x.offset.assign(model.attr_offset.begin(), model.attr_offset.end());
  x.label.assign(model.feature_label.begin(), model.feature_label.end());
  return x;
}

void FeatureIndex::Emissions(const TaggerCorpus& corpus, int64_t s, int32_t L, const double* w,
                             double* score) const {
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  std::memset(score, 0, sizeof(double) * (end - begin) * L);
  const int64_t* row_ptr = corpus.attributes.row_ptr.data();
  const int32_t* cols = corpus.attributes.cols.data();
  const uint32_t* off = offset.data();
  const uint8_t* lab = label.data();
  // The sentence's feature ranges are scattered over a large table: ask for them all first.
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) SR_PREFETCH(off + cols[k]);
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) {
    const uint32_t f = off[cols[k]];
    SR_PREFETCH(w + f);
    SR_PREFETCH(lab + f);
  }
  for (int64_t t = begin; t < end; ++t) {
    double* sc = score + (t - begin) * L;
    for (int64_t k = row_ptr[t]; k < row_ptr[t + 1]; ++k) {
      const int32_t a = cols[k];
      for (uint32_t f = off[a]; f < off[a + 1]; ++f) sc[lab[f]] += w[f];
    }
  }
}

void FeatureIndex::AddGradient(const TaggerCorpus& corpus, int64_t s, int32_t L, const double* m,
                               double* grad) const {
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  const int64_t* row_ptr = corpus.attributes.row_ptr.data();
  const int32_t* cols = corpus.attributes.cols.data();
  const uint32_t* off = offset.data();
  const uint8_t* lab = label.data();
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) SR_PREFETCH(grad + off[cols[k]], 1);
  for (int64_t t = begin; t < end; ++t) {
    const double* mi = m + (t - begin) * L;
    for (int64_t k = row_ptr[t]; k < row_ptr[t + 1]; ++k) {
      const int32_t a = cols[k];
      for (uint32_t f = off[a]; f < off[a + 1]; ++f) grad[f] += mi[lab[f]];
    }
  }
}

}  // namespace structrank
