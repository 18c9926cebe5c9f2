#include "boost/exp_loss_naive.h"

namespace structrank {

bool NaiveExpLossRounds::Round() {
  loss_.Resum();
  int32_t k = -1;
  double best = 0;
  for (int32_t f = 0; f < loss_.num_features(); ++f) {
    const double gain = loss_.Gain(f);
    if (k < 0 || gain > best) k = f, best = gain;
  }
  if (k < 0 || !(best > 0)) return false;
  loss_.Update(k, loss_.Delta(k), nullptr);
  return true;
}

void NaiveExpLossRounds::Replay(int32_t k, double delta) {
  loss_.Resum();
  loss_.Update(k, delta, nullptr);
}

}  // namespace structrank
