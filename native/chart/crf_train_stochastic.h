// Stochastic training of the CRF-CFG: batches drawn with replacement (as Finkel, Kleeman &
// Manning 2008 train), each batch's gradient plus its share of the prior taken as one step:
// SGD with the decaying gain eta0 tau / (tau + k), or AdaGrad (Duchi, Hazan & Singer 2011,
// per-weight step eta0 / sqrt(sum of squared gradients)); optionally with iterate averaging.
#pragma once
#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

#include "chart/crf_objective.h"
#include "core/byte_io.h"

namespace structrank {

class CrfStochastic {
 public:
  CrfStochastic(CrfObjective& objective, const CrfTrainOptions& options);
  // Runs `steps` batches, `k` the steps taken so far (the SGD gain's schedule; advanced by
  // each step); returns the mean objective per sentence over them.
  double Steps(int steps, int64_t& k, const std::atomic<bool>* cancel);
  // Iterate averaging (options.average): restart the mean; exchange the model's weights
  // with the mean of the iterates since the restart (a second call swaps them back).
  void ResetAverage();
  void SwapAverage();
  // Checkpoints: the AdaGrad sums, the batch sampler's RNG and the averaging state.
  // LoadState checks them against `dim` weights.
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in, size_t dim);

 private:
  // The step (AdaGrad or SGD, gain eta) over all weights from the batch's gradients
  // (zeroing them), the iterates added to `sum` when averaging.
  void TakeStep(double prior, double eta, double* sum);

  CrfObjective& objective_;
  CrfTrainOptions opt_;
  std::mt19937_64 rng_;
  std::vector<double> adagrad_;      // sums of squared gradients
  std::vector<double> average_sum_;  // sum of the iterates since ResetAverage (or the mean, while swapped in)
  int64_t average_count_ = 0;
  bool average_swapped_ = false;
};

}  // namespace structrank
