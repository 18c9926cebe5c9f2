#include "tagger/train_lbfgs.h"

#include "core/errors.h"

namespace structrank {

LbfgsTraining::LbfgsTraining(TaggerEncoder& encoder, int memory) : encoder_(encoder) {
  options_.memory = memory;
}

Objective LbfgsTraining::Bound() {
  return [this](const std::vector<double>& x, std::vector<double>& g) {
    return encoder_.ObjectiveAndGradient(x, g, cancel_);
  };
}

bool LbfgsTraining::Iterate(const std::vector<double>& w, const std::atomic<bool>* cancel) {
  cancel_ = cancel;
  if (!lbfgs_) lbfgs_ = std::make_unique<Lbfgs>(Bound(), w, options_);
  return lbfgs_->Iterate();
}

void LbfgsTraining::SaveState(ByteWriter& out) const {
  out.Put<uint8_t>(lbfgs_ ? 1 : 0);
  if (lbfgs_) lbfgs_->SaveState(out);
}

void LbfgsTraining::LoadState(ByteReader& in, std::size_t num_weights) {
  lbfgs_.reset();
  if (in.Get<uint8_t>() == 0) return;
  lbfgs_ = std::make_unique<Lbfgs>(Bound(), in, options_);
  if (lbfgs_->x().size() != num_weights) throw ModelError("checkpoint: L-BFGS state does not fit this model");
}

}  // namespace structrank
