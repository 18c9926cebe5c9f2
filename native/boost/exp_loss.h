// ExpLoss boosting (Collins & Koo 2005, sections 4.4-4.5): the objective and its state, as
// the boosting rounds see it. Each round picks
//   k* = argmax_k (sqrt(W+_k) - sqrt(W-_k))^2   (= argmin BestLoss(k))
// and adds delta* = 0.5 log((W+ + eps Z) / (W- + eps Z)) to a_{k*}. Two round algorithms,
// one file each, pick k* from this state: exp_loss_sparse.cc (figure 4: revisits only the
// pairs of k* and the features they touch) and exp_loss_naive.cc (figure 3: re-sums every
// W+/W- from all pairs); exp_loss_booster.h runs either one.
#pragma once
#include <cstdint>
#include <vector>

#include "boost/boost_model.h"
#include "boost/pair_problem.h"

namespace structrank {

// The features whose W+/W- one update changed, each listed once.
struct TouchedFeatures {
  int64_t round = 0;  // the update's number: a feature is listed when its stamp differs
  std::vector<int32_t> list;
};

class ExpLoss {
 public:
  // The state at a = (a0, 0, ..., 0). `problem` must outlive it.
  ExpLoss(const PairProblem* problem, double a0, double eps);
  ExpLoss(const ExpLoss&) = delete;
  ExpLoss& operator=(const ExpLoss&) = delete;

  // The loss reduction of k's best update, (sqrt(W+_k) - sqrt(W-_k))^2.
  double Gain(int32_t k) const;
  // The smoothed update of a_k, 0.5 log((W+_k + eps Z) / (W-_k + eps Z)).
  double Delta(int32_t k) const;
  // Adds delta to a_k and records the round in the model: margins of A+_k pairs grow, those
  // of A-_k shrink, Z follows. With `touched`, each pair's weight change is also pushed into
  // W+/W- of the features of B+/B- (figure 4), and those features are listed there.
  void Update(int32_t k, double delta, TouchedFeatures* touched);
  // Z and every W+/W- summed afresh from the pair weights (figure 3's first step).
  void Resum();

  int32_t num_features() const { return pp_.num_features; }
  const BoostModel& model() const { return model_; }
  BoostModel& model() { return model_; }
  double loss() const { return Z_; }
  double plus(int32_t k) const { return W_[k].plus; }
  double minus(int32_t k) const { return W_[k].minus; }

 private:
  const PairProblem& pp_;
  BoostModel model_;
  std::vector<double> margin_;  // M_{i,j}
  std::vector<double> w_;       // S_{i,j} exp(-M_{i,j})
  // W+_k, W-_k and the update that last listed k, side by side: one cache line per update.
  struct FeatureState {
    double plus = 0, minus = 0;
    int64_t stamp = -1;
  };
  std::vector<FeatureState> W_;
  double Z_ = 0;
  double z_summed_ = 0;  // Z when the sums were last made from scratch
  // Z below this fraction of z_summed_ is summed afresh (see Update).
  static constexpr double kResumBelow = 1e-6;
};

}  // namespace structrank
