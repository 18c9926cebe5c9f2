#include "chart/crf_train_lbfgs.h"

#include "core/errors.h"

namespace structrank {

Objective CrfLbfgs::LbfgsObjective() {
  return [this](const std::vector<double>& x, std::vector<double>& grad) {
    objective_.model().crf.theta = x;
    return objective_.Full(grad, cancel_);
  };
}

LbfgsOptions CrfLbfgs::LbfgsSettings() {
  LbfgsOptions options;
  options.memory = 10;
  return options;
}

double CrfLbfgs::Steps(int iterations, int64_t& k, const std::atomic<bool>* cancel) {
  // native/optim's L-BFGS drives the full-batch objective; it evaluates at its own points,
  // so theta is set from the point it asks for and, after each call, from its best point.
  std::vector<double>& theta = objective_.model().crf.theta;
  cancel_ = cancel;
  try {
    if (!lbfgs_) {
      lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), theta, LbfgsSettings());
    }
    for (int it = 0; it < iterations; ++it) {
      const bool more = lbfgs_->Iterate();
      ++k;
      if (!more) break;  // converged: later calls do nothing
    }
  } catch (...) {
    if (lbfgs_) theta = lbfgs_->x();
    throw;
  }
  theta = lbfgs_->x();
  return lbfgs_->value() / objective_.num_sentences();
}

void CrfLbfgs::SaveState(ByteWriter& out) const {
  out.Put<uint8_t>(lbfgs_ ? 1 : 0);
  if (lbfgs_) lbfgs_->SaveState(out);
}

void CrfLbfgs::LoadState(ByteReader& in) {
  lbfgs_.reset();
  if (in.Get<uint8_t>() != 0) {
    lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), in, LbfgsSettings());
    if (lbfgs_->x().size() != objective_.model().crf.theta.size())
      throw ModelError("checkpoint: L-BFGS state does not fit this model");
  }
}

}  // namespace structrank
