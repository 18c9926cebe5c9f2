// L-BFGS training (CRF, maxent), one iteration per step, over an encoder's objective on the
// whole corpus (CRFsuite's train_lbfgs.c). The optimizer itself is optim/lbfgs.h.
#pragma once
#include <atomic>
#include <memory>
#include <vector>

#include "core/byte_io.h"
#include "optim/lbfgs.h"
#include "tagger/encoder.h"

namespace structrank {

class LbfgsTraining {
 public:
  LbfgsTraining(TaggerEncoder& encoder, int memory);
  // False until the first Iterate (or a loaded state) has started the optimizer.
  bool started() const { return lbfgs_ != nullptr; }
  // One iteration; the first starts from w (evaluating the objective there). Returns false
  // when the optimizer has converged.
  bool Iterate(const std::vector<double>& w, const std::atomic<bool>* cancel);
  const std::vector<double>& x() const { return lbfgs_->x(); }
  double value() const { return lbfgs_->value(); }

  // Checkpoint section: whether the optimizer has started, then its state.
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in, std::size_t num_weights);

 private:
  Objective Bound();

  TaggerEncoder& encoder_;
  LbfgsOptions options_;
  std::unique_ptr<Lbfgs> lbfgs_;
  const std::atomic<bool>* cancel_ = nullptr;  // of the Iterate in progress
};

}  // namespace structrank
