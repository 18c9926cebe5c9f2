// One shard's part of the CRF parser's full-batch objective, for training spread over
// workers (lib/distributed/parser-gradient.ts): a coordinator adds the shards' sums and
// the prior as Full does and takes the L-BFGS step itself.
#include <mutex>

#include "chart/crf_objective.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

double CrfObjective::Shard(const std::vector<double>& theta, int32_t first, int32_t last,
                           std::vector<double>& grad, const std::atomic<bool>* cancel) {
  const size_t dim = m_.crf.theta.size();
  if (theta.size() != dim) throw InputError("chart CRF shard: the weights do not fit this model");
  if (first < 0 || last > corpus_.size() || first >= last)
    throw InputError("chart CRF shard: bad sentence range");
  m_.crf.theta = theta;
  grads_clean_ = false;
  for (auto& gvec : grads_) gvec.assign(dim, 0.0);
  std::vector<double> values(threads_, 0.0);
  // The same per-thread sums as Full (one thread: the same order, the same bits).
  std::mutex install;
  ParallelForFixed(
      static_cast<size_t>(last - first), threads_, 4,
      [&](size_t begin, size_t end, int t) {
        SentenceFeatureIds record;
        for (size_t q = begin; q < end; ++q) {
          const int32_t s = first + static_cast<int32_t>(q);
          record.edge_offsets.clear();
          values[t] += SentenceTerm(s, charts_[t], grads_[t].data(), &record);
          if (!record.edge_offsets.empty()) {
            std::lock_guard<std::mutex> lock(install);
            Install(s, record);
          }
        }
      },
      cancel);
  double value = 0;
  for (double v : values) value += v;
  grad.assign(dim, 0.0);
  for (const auto& gvec : grads_)
    for (size_t f = 0; f < dim; ++f) grad[f] += gvec[f];
  return value;
}

}  // namespace structrank
