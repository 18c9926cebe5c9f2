// ExpLoss boosting on a pair problem with either round algorithm (exp_loss.h): the rounds,
// cancellation and resuming from the rounds of an earlier run.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "boost/boost_model.h"
#include "boost/exp_loss.h"
#include "boost/exp_loss_naive.h"
#include "boost/exp_loss_sparse.h"
#include "boost/pair_problem.h"

namespace structrank {

class ExpLossBooster {
 public:
  // `problem` must outlive the booster. `naive`: figure 3's rounds instead of figure 4's.
  ExpLossBooster(const PairProblem* problem, double a0, double eps, bool naive);

  // Runs up to n more rounds. Returns the number run: fewer when no feature can lower
  // the loss any more. Polls `cancel` and throws Cancelled when it is set.
  int64_t Run(int64_t n, const std::atomic<bool>* cancel = nullptr);

  // Continues from the rounds of `done` (a checkpoint, or a saved model), trained on the
  // same problem with the same a_0 and eps: applies each round's update exactly as Run did,
  // so margins, W+/W- and the loss are bit for bit those of the run that made `done`, and
  // further rounds pick the same features. Only on a fresh booster.
  void Replay(const BoostModel& done, const std::atomic<bool>* cancel = nullptr);

  const BoostModel& model() const { return loss_.model(); }
  BoostModel& model() { return loss_.model(); }
  double loss() const { return loss_.loss(); }
  double plus(int32_t k) const { return loss_.plus(k); }
  double minus(int32_t k) const { return loss_.minus(k); }

 private:
  ExpLoss loss_;
  std::unique_ptr<SparseExpLossRounds> sparse_;  // one of the two
  std::unique_ptr<NaiveExpLossRounds> naive_;
};

}  // namespace structrank
