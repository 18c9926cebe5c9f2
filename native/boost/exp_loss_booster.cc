#include "boost/exp_loss_booster.h"

#include "core/errors.h"

namespace structrank {

ExpLossBooster::ExpLossBooster(const PairProblem* problem, double a0, double eps, bool naive)
    : loss_(problem, a0, eps) {
  if (naive)
    naive_ = std::make_unique<NaiveExpLossRounds>(&loss_);
  else
    sparse_ = std::make_unique<SparseExpLossRounds>(&loss_);
}

int64_t ExpLossBooster::Run(int64_t n, const std::atomic<bool>* cancel) {
  int64_t done = 0;
  for (; done < n; ++done) {
    if (cancel && (done & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    if (!(naive_ ? naive_->Round() : sparse_->Round())) break;
  }
  return done;
}

void ExpLossBooster::Replay(const BoostModel& done, const std::atomic<bool>* cancel) {
  const BoostModel& m = loss_.model();
  if (m.rounds() != 0) throw InputError("boosting: replay needs a fresh booster");
  if (done.num_features != m.num_features || done.a0 != m.a0 || done.eps != m.eps ||
      done.deltas.size() != done.features.size()) {
    throw ModelError("boosting checkpoint does not fit this training problem (features, a0 or eps differ)");
  }
  for (std::size_t t = 0; t < done.features.size(); ++t) {
    if (cancel && (t & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    const int32_t k = done.features[t];
    if (k < 0 || k >= m.num_features) throw ModelError("boosting checkpoint names a feature out of range");
    if (naive_)
      naive_->Replay(k, done.deltas[t]);
    else
      sparse_->Replay(k, done.deltas[t]);
  }
  if (sparse_) sparse_->Replayed();
}

}  // namespace structrank
