#include "chart/crf_train_stochastic.h"

#include <cmath>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "optim/gradient_step.h"

namespace structrank {

CrfStochastic::CrfStochastic(CrfObjective& objective, const CrfTrainOptions& options)
    : objective_(objective), opt_(options), rng_(options.seed) {
  if (opt_.batch < 1) throw InputError("chart CRF: batch size must be positive");
  if (opt_.tau <= 0) opt_.tau = 5.0 * objective_.num_sentences() / opt_.batch;
}

double CrfStochastic::Steps(int steps, int64_t& k, const std::atomic<bool>* cancel) {
  std::vector<double>& weights = objective_.model().crf.theta;
  const size_t dim = weights.size();
  const int32_t D = objective_.num_sentences();
  double objective_sum = 0;
  int64_t sentences = 0;
  std::vector<int32_t> batch(opt_.batch);
  std::vector<double> objective(opt_.batch);
  std::vector<SentenceFeatureIds> records(opt_.batch);
  if (average_swapped_) SwapAverage();  // train the raw iterate, never the mean
  for (int step = 0; step < steps; ++step) {
    if (cancel && cancel->load()) throw Cancelled();
    std::uniform_int_distribution<int32_t> pick(0, D - 1);
    for (auto& s : batch) s = pick(rng_);
    objective_.Batch(batch, objective, records, cancel);
    // theta -= eta_k * (gradient + (b / |D|) * (theta - mean) / sigma^2), or the AdaGrad
    // step on the same sum. One pass over the weights does the step, the running sum of the
    // iterates and the zeroing of the gradient entries that are not zero (the next batch
    // starts from a zero gradient without a separate fill of every entry).
    const double prior = static_cast<double>(opt_.batch) / D / opt_.sigma2;
    if (opt_.adagrad && adagrad_.size() != dim) adagrad_.assign(dim, 0.0);
    if (opt_.average && average_sum_.size() != dim) average_sum_.assign(dim, 0.0), average_count_ = 0;
    double* sum = opt_.average ? average_sum_.data() : nullptr;
    const double eta = opt_.adagrad ? opt_.eta0 : opt_.eta0 * opt_.tau / (opt_.tau + static_cast<double>(k));
    TakeStep(prior, eta, sum);
    objective_.MarkGradientsClean();
    if (opt_.average) ++average_count_;
    ++k;
    for (double o : objective) objective_sum += o;
    sentences += static_cast<int64_t>(batch.size());
  }
  return sentences ? objective_sum / sentences : 0.0;
}

void CrfStochastic::TakeStep(double prior, double eta, double* sum) {
  std::vector<double*> grads;
  for (auto& g : objective_.thread_gradients()) grads.push_back(g.data());
  const std::vector<double>& mean = objective_.prior_mean();
  GradientStep step;
  step.theta = objective_.model().crf.theta.data();
  step.squared_sum = opt_.adagrad ? adagrad_.data() : nullptr;
  step.iterate_sum = sum;
  step.prior_mean = mean.empty() ? nullptr : mean.data();
  step.gradients = grads.data();
  step.num_gradients = static_cast<int>(grads.size());
  step.prior = prior;
  step.eta = eta;
  step.dim = objective_.model().crf.theta.size();
  ApplyGradientStep(step);
}

void CrfStochastic::ResetAverage() {
  if (average_swapped_) SwapAverage();
  average_sum_.assign(objective_.model().crf.theta.size(), 0.0);
  average_count_ = 0;
}

void CrfStochastic::SwapAverage() {
  if (!opt_.average || average_count_ == 0 || average_sum_.size() != objective_.model().crf.theta.size())
    return;
  const double scale = static_cast<double>(average_count_);
  // Sum <-> mean conversions around the exchange keep one extra vector only.
  if (!average_swapped_)
    for (double& v : average_sum_) v /= scale;
  objective_.model().crf.theta.swap(average_sum_);
  if (average_swapped_)
    for (double& v : average_sum_) v *= scale;
  average_swapped_ = !average_swapped_;
}

void CrfStochastic::SaveState(ByteWriter& out) const {
  out.PutVector(adagrad_);
  std::ostringstream rng;  // the standard's portable text form of the engine's state
  rng << rng_;
  out.PutString(rng.str());
  // Iterate averaging: while the pass's mean is swapped in, average_sum_ holds the raw iterate.
  out.PutVector(average_sum_);
  out.Put<int64_t>(average_count_);
  out.Put<uint8_t>(average_swapped_ ? 1 : 0);
}

void CrfStochastic::LoadState(ByteReader& in, size_t dim) {
  std::vector<double> adagrad = in.GetVector<double>();
  if (!adagrad.empty() && adagrad.size() != dim)
    throw ModelError("checkpoint: the CRF weights do not fit this model (other training trees or options?)");
  std::istringstream rng(in.GetString());
  rng >> rng_;
  if (rng.fail()) throw ModelError("checkpoint: bad random engine state");
  std::vector<double> average_sum = in.GetVector<double>();
  const int64_t average_count = in.Get<int64_t>();
  const bool average_swapped = in.Get<uint8_t>() != 0;
  if (!average_sum.empty() && average_sum.size() != dim)
    throw ModelError("checkpoint: the averaged weights do not fit this model");
  adagrad_ = std::move(adagrad);
  average_sum_ = std::move(average_sum);
  average_count_ = average_count;
  average_swapped_ = average_swapped;
}

}  // namespace structrank
