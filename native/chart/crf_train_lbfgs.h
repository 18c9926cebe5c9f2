// Full-batch L-BFGS training of the CRF-CFG (native/optim, history m = 10, backtracking
// Armijo line search) on the corpus objective with its prior.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "chart/crf_objective.h"
#include "core/byte_io.h"
#include "optim/lbfgs.h"

namespace structrank {

class CrfLbfgs {
 public:
  explicit CrfLbfgs(CrfObjective& objective) : objective_(objective) {}
  // Runs `iterations` iterations, `k` counting them; returns the objective per sentence
  // (prior included). Stops early once L-BFGS reports convergence (later calls do nothing).
  double Steps(int iterations, int64_t& k, const std::atomic<bool>* cancel);
  // Checkpoints: whether L-BFGS has started and, if so, its state.
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in);

 private:
  // The full-batch objective as L-BFGS calls it: at the point it asks for (theta set from
  // it), with the cancel flag of the current Steps call.
  Objective LbfgsObjective();
  static LbfgsOptions LbfgsSettings();

  CrfObjective& objective_;
  std::unique_ptr<Lbfgs> lbfgs_;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace structrank
