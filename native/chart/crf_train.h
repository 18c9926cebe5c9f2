// Training the CRF-CFG: the corpus objective (crf_objective.h) driven by one of the
// training algorithms, one file each: stochastic batches with SGD or AdaGrad and iterate
// averaging (crf_train_stochastic.h), or full-batch L-BFGS (crf_train_lbfgs.h). CrfTrainer
// dispatches between them and holds what they share: the step count and the checkpoint.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "chart/chart_model.h"
#include "chart/crf_objective.h"
#include "chart/crf_train_lbfgs.h"
#include "chart/crf_train_stochastic.h"
#include "core/byte_io.h"

namespace structrank {

class CrfTrainer {
 public:
  CrfTrainer(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold, CrfTrainOptions options);
  // Runs `steps` SGD batches; returns the mean objective per sentence over them.
  double Steps(int steps, const std::atomic<bool>* cancel) { return stochastic_.Steps(steps, k_, cancel); }
  // Runs `iterations` L-BFGS iterations (native/optim, history m = 10, backtracking Armijo
  // line search) on the full-batch objective; returns the objective per sentence (prior
  // included). Stops early once L-BFGS reports convergence.
  double LbfgsSteps(int iterations, const std::atomic<bool>* cancel) {
    return lbfgs_.Steps(iterations, k_, cancel);
  }
  // Distributed training (crf_shard.cc): the objective without the prior of sentences
  // [first, last) at weights `theta` (set as the model's), the gradient into `grad`.
  double ShardObjective(const std::vector<double>& theta, int32_t first, int32_t last,
                        std::vector<double>& grad, const std::atomic<bool>* cancel) {
    return objective_.Shard(theta, first, last, grad, cancel);
  }
  int64_t steps_done() const { return k_; }
  // Training checkpoints: the weights, the step count, the batch sampler's RNG, the AdaGrad
  // sums and the L-BFGS state; loaded into a fresh trainer of the same model, corpus and
  // options, the next steps are those of one uninterrupted run. (The prefilter and feature
  // caches are rebuilt as sentences come up: they change speed, not results.)
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in);
  // Iterate averaging (options.average): restart the mean; exchange the model's weights
  // with the mean of the iterates since the restart (a second call swaps them back).
  void ResetAverage() { stochastic_.ResetAverage(); }
  void SwapAverage() { stochastic_.SwapAverage(); }
  int32_t num_sentences() const { return objective_.num_sentences(); }
  // Fraction of chart entries kept by prefiltering, over the sentences prefiltered so far.
  double kept_fraction() const { return objective_.kept_fraction(); }
  // Bytes held by the feature-id cache, and how many sentences it covers.
  int64_t feature_cache_bytes() const { return objective_.feature_cache_bytes(); }
  int64_t feature_cache_sentences() const { return objective_.feature_cache_sentences(); }
  // Sentence objectives computed so far over all calls (prefilter included): safe to read
  // from another thread while Steps or LbfgsSteps runs, for progress inside a pass.
  int64_t sentences_evaluated() const { return objective_.sentences_evaluated(); }

 private:
  CrfObjective objective_;
  CrfStochastic stochastic_;
  CrfLbfgs lbfgs_;
  int64_t k_ = 0;  // steps taken: batches or L-BFGS iterations
};

}  // namespace structrank
