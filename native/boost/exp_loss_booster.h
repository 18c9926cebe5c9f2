// ExpLoss feature selection (Collins & Koo 2005, sections 4.4-4.5): each round picks
//   k* = argmax_k (sqrt(W+_k) - sqrt(W-_k))^2   (= argmin BestLoss(k))
// and adds delta* = 0.5 log((W+ + eps Z) / (W- + eps Z)) to a_{k*}.
// The sparse algorithm (figure 4) keeps margins and W+/W- and revisits only the pairs in
// A+_{k*} u A-_{k*}; the naive one (figure 3) recomputes every W+/W- from all pairs.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "boost/boost_model.h"
#include "boost/pair_problem.h"
#include "boost/tournament_tree.h"

namespace structrank {

class ExpLossBooster {
 public:
  // `problem` must outlive the booster.
  ExpLossBooster(const PairProblem* problem, double a0, double eps, bool naive);

  // Runs up to n more rounds. Returns the number run: fewer when no feature can lower
  // the loss any more. Polls `cancel` and throws Cancelled when it is set.
  int64_t Run(int64_t n, const std::atomic<bool>* cancel = nullptr);

  // Continues from the rounds of `done` (a checkpoint, or a saved model), trained on the
  // same problem with the same a_0 and eps: applies each round's update exactly as Run did,
  // so margins, W+/W- and the loss are bit for bit those of the run that made `done`, and
  // further rounds pick the same features. Only on a fresh booster.
  void Replay(const BoostModel& done, const std::atomic<bool>* cancel = nullptr);

  const BoostModel& model() const { return model_; }
  BoostModel& model() { return model_; }
  double loss() const { return Z_; }
  double plus(int32_t k) const { return W_[k].plus; }
  double minus(int32_t k) const { return W_[k].minus; }

 private:
  bool SparseRound();
  bool NaiveRound();
  int64_t Apply(int32_t k, double delta, bool track);  // returns C_t
  double Gain(int32_t k) const;
  void RecordRound(int32_t k, double delta, int64_t cost);

  const PairProblem& pp_;
  bool naive_;
  BoostModel model_;
  std::vector<double> margin_;  // M_{i,j}
  std::vector<double> w_;       // S_{i,j} exp(-M_{i,j})
  // W+_k, W-_k and the round that last touched k, side by side: one cache line per update.
  struct FeatureState {
    double plus = 0, minus = 0;
    int64_t stamp = -1;
  };
  std::vector<FeatureState> W_;
  std::vector<double> gain_;
  double Z_ = 0;
  TournamentTree tree_;
  std::vector<int32_t> touched_;
  int64_t stamp_ = 0;
};

}  // namespace structrank
