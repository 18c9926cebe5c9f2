// LogLoss feature selection (Collins & Koo 2005, section 4.6), the slow alternative to ExpLoss
// boosting: the same greedy loop, but each feature's best update BestWt(k) minimizes
//   LogLoss(a + d e_k) = sum_i -log P(x_{i,1}) (+ C (a_k + d)^2)
// by a 1-D safeguarded Newton search, so every round visits every feature's candidates.
// a_0 is fixed to 1 as in the paper. Per sentence with feature k, the loss depends on d
// only through q_i (model mass on candidates with k) and h_k(x_{i,1}):
//   sum_i [log(1 - q_i + q_i e^d) - h_k(x_{i,1}) d].
#pragma once
#include <atomic>
#include <vector>

#include "boost/boost_model.h"
#include "boost/rerank_data.h"

namespace structrank {

struct FeatureSentenceMass {
  double q;      // model probability of the sentence's candidates carrying the feature
  bool on_best;  // h_k(x_{i,1})
};

// argmin_d sum_i [log(1 - q_i + q_i e^d) - on_best_i d] + l2 ((a + d)^2 - a^2); returns d and
// writes the objective's value at d (its change from d = 0) into `change`.
double BestLogLossUpdate(const std::vector<FeatureSentenceMass>& groups, double a, double l2, double* change);

class LogLossSelector {
 public:
  LogLossSelector(const RerankData* data, double l2, int threads);
  int64_t Run(int64_t n, const std::atomic<bool>* cancel = nullptr);
  // Continues from the rounds of `done` (a checkpoint of the same problem and l2): applies
  // each round's update as Run did, so the state is that of the run that made `done`.
  void Replay(const BoostModel& done, const std::atomic<bool>* cancel = nullptr);
  const BoostModel& model() const { return model_; }
  BoostModel& model() { return model_; }
  double loss() const { return loss_; }

 private:
  void Refresh();                   // probabilities and loss from F_
  void Apply(int32_t k, double d);  // one round: a_[k] += d, scores, loss, the model's record

  const RerankData& data_;
  double l2_;
  int threads_;
  BoostModel model_;
  std::vector<int64_t> best_;
  std::vector<int32_t> sentence_of_;
  std::vector<int64_t> inv_ptr_;
  std::vector<int32_t> inv_cands_;
  std::vector<double> F_, p_, a_;
  double loss_ = 0;
};

}  // namespace structrank
