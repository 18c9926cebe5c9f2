#include "tagger/encoder.h"

namespace structrank {

void AddEmissionGradient(const TaggerModel& model, const TaggerCorpus& corpus, int64_t s, const double* m,
                         double scale, double* grad) {
  const int32_t L = model.num_labels();
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  const int64_t* off = model.attr_offset.data();
  const int32_t* lab = model.feature_label.data();
  const int64_t* row_ptr = corpus.attributes.row_ptr.data();
  const int32_t* cols = corpus.attributes.cols.data();
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) SR_PREFETCH(grad + off[cols[k]], 1);
  for (int64_t t = begin; t < end; ++t) {
    const double* mi = m + (t - begin) * L;
    for (int64_t k = corpus.attributes.RowBegin(t); k < corpus.attributes.RowEnd(t); ++k) {
      int32_t a = corpus.attributes.cols[k];
      for (int64_t f = off[a]; f < off[a + 1]; ++f) grad[f] += scale * mi[lab[f]];
    }
  }
}

double SumThreadGradients(std::vector<ObjectiveScratch>& buffers, const ChainLattice* lat,
                          std::vector<double>& grad, double loss) {
  for (auto& b : buffers) {
    loss += b.loss;
    for (std::size_t k = 0; k < b.grad.size(); ++k) grad[k] += b.grad[k];  // empty: summed in place
    if (lat) {
      for (std::size_t e = 0; e < b.edge.size(); ++e) {
        grad[lat->edge_w1[e]] += b.edge[e];
        if (lat->edge_w2[e] >= 0) grad[lat->edge_w2[e]] += b.edge[e];
      }
      for (std::size_t q = 0; q < b.start.size(); ++q) grad[lat->start_weight[q]] += b.start[q];
    }
  }
  return loss;
}

}  // namespace structrank
