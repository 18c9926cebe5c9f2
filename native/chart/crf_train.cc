#include "chart/crf_train.h"

#include "core/errors.h"

namespace structrank {

CrfTrainer::CrfTrainer(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold, CrfTrainOptions options)
    : objective_(model, std::move(corpus), std::move(gold), options),
      stochastic_(objective_, options),
      lbfgs_(objective_) {}

namespace {
constexpr uint32_t kCrfTrainerStateVersion = 1;
}  // namespace

void CrfTrainer::SaveState(ByteWriter& out) const {
  out.Put<uint32_t>(kCrfTrainerStateVersion);
  out.Put<int64_t>(k_);
  out.PutVector(objective_.model().crf.theta);
  stochastic_.SaveState(out);
  lbfgs_.SaveState(out);
}

void CrfTrainer::LoadState(ByteReader& in) {
  if (in.Get<uint32_t>() != kCrfTrainerStateVersion)
    throw ModelError("checkpoint: unknown CRF parser trainer state version");
  std::vector<double>& weights = objective_.model().crf.theta;
  const int64_t k = in.Get<int64_t>();
  std::vector<double> theta = in.GetVector<double>();
  if (k < 0 || theta.size() != weights.size())
    throw ModelError("checkpoint: the CRF weights do not fit this model (other training trees or options?)");
  stochastic_.LoadState(in, theta.size());
  k_ = k;
  weights = std::move(theta);
  lbfgs_.LoadState(in);
  if (!in.AtEnd()) throw ModelError("checkpoint: trailing bytes after the CRF parser trainer state");
}

}  // namespace structrank
