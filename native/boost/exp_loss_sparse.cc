#include "boost/exp_loss_sparse.h"

namespace structrank {

namespace {

std::vector<double> AllGains(const ExpLoss& loss) {
  std::vector<double> gain(loss.num_features());
  for (int32_t k = 0; k < loss.num_features(); ++k) gain[k] = loss.Gain(k);
  return gain;
}

}  // namespace

SparseExpLossRounds::SparseExpLossRounds(ExpLoss* loss)
    : loss_(*loss), gain_(AllGains(*loss)), tree_(&gain_) {}

bool SparseExpLossRounds::Round() {
  const int32_t k = tree_.Best();
  if (k < 0 || !(gain_[k] > 0)) return false;
  loss_.Update(k, loss_.Delta(k), &touched_);
  for (int32_t f : touched_.list) gain_[f] = loss_.Gain(f);
  tree_.UpdateMany(touched_.list);
  return true;
}

void SparseExpLossRounds::Replay(int32_t k, double delta) { loss_.Update(k, delta, &touched_); }

void SparseExpLossRounds::Replayed() {
  for (int32_t k = 0; k < loss_.num_features(); ++k) gain_[k] = loss_.Gain(k);
  tree_.Rebuild();
}

}  // namespace structrank
