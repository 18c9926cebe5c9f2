// The naive ExpLoss round (Collins & Koo 2005, figure 3): every round re-sums Z and every
// W+/W- from all pairs and scans every feature's gain, so a round costs T. It picks the same
// features as the sparse round (exp_loss_sparse.h) and is kept as its reference: the tests
// compare the two, and the benchmark measures the sparse round's savings against it.
#pragma once
#include <cstdint>

#include "boost/exp_loss.h"

namespace structrank {

class NaiveExpLossRounds {
 public:
  // `loss` must outlive the rounds and change only through them.
  explicit NaiveExpLossRounds(ExpLoss* loss) : loss_(*loss) {}

  // One round; false when no feature can lower the loss.
  bool Round();
  // Applies a round of an earlier run (k, delta) as Round did.
  void Replay(int32_t k, double delta);

 private:
  ExpLoss& loss_;
};

}  // namespace structrank
