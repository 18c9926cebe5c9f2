// The log-linear (MaxEnt) reranker (Collins 2005, lecture notes): minimizes
//   -sum_i log P(x_{i,1} | s_i) + C sum_{k>=1} a_k^2,  P = softmax over the sentence's F(x),
// over a_0 (unpenalized) and every feature weight, by L-BFGS (the shared native/optim
// optimizer); gradients on all cores.
#pragma once
#include <atomic>
#include <functional>
#include <vector>

#include "optim/lbfgs.h"
#include "boost/rerank_data.h"

namespace structrank {

struct LoglinearResult {
  double a0 = 0;
  std::vector<double> weights;
  double objective = 0;
  int iterations = 0;
  bool converged = false;      // L-BFGS can make no further progress
  std::vector<uint8_t> state;  // the L-BFGS state (with save_state), for a checkpoint
};

// Objective and gradient at params = [a0, a_1..a_m] (exposed for tests).
double LoglinearObjective(const RerankData& data, const std::vector<int64_t>& best, double l2,
                          const std::vector<double>& params, std::vector<double>& grad, int threads);

// Called after every iteration with (iteration, objective); return false to stop.
using IterationCallback = std::function<bool(int, double)>;

LoglinearResult TrainLoglinear(const RerankData& data, double l2, int max_iterations, int threads,
                               const IterationCallback& callback = nullptr,
                               const std::atomic<bool>* cancel = nullptr);

// Checkpointed training: continues from `resume` (an L-BFGS state of a previous call, or
// empty to start) up to max_iterations in all, and returns the state in result.state, so
// that calls of a few iterations each end at the point of one long call.
LoglinearResult TrainLoglinear(const RerankData& data, double l2, int max_iterations, int threads,
                               const std::vector<uint8_t>& resume, const IterationCallback& callback,
                               const std::atomic<bool>* cancel);

}  // namespace structrank
