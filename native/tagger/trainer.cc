#include "tagger/trainer.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/errors.h"

namespace structrank {

TaggerTrainer::TaggerTrainer(TaggerModel& model, const TaggerCorpus& corpus, TrainOptions options)
    : model_(model), options_(options) {
  if (model.num_labels() == 0) throw InputError("no labels in the training data");
  for (int32_t y : corpus.labels) {
    if (y < 0) throw InputError("training data has a token without a label");
  }
  if (!options_.start_weights && model.algorithm == TaggerAlgorithm::kMaxent) {
    throw InputError("training without start weights is for the CRF and the perceptron");
  }
  w_ = model.weights.ToVector();
  w_.resize(model.num_weights(), 0.0);
  order_.resize(corpus.sentences());
  std::iota(order_.begin(), order_.end(), 0);
  if (model.algorithm != TaggerAlgorithm::kCrf) options_.sgd_warmup = 0;
  if (model.algorithm == TaggerAlgorithm::kMaxent) {
    maxent_ = std::make_unique<MaxentEncoder>(model, corpus, options_.c2, options_.threads);
    lbfgs_ = std::make_unique<LbfgsTraining>(*maxent_, options_.lbfgs_memory);
    return;
  }
  const bool lbfgs = model.algorithm == TaggerAlgorithm::kCrf && options_.optimizer == CrfOptimizer::kLbfgs;
  chain_ = std::make_unique<ChainEncoder>(model, corpus, options_.c2, options_.threads,
                                          options_.start_weights, lbfgs);
  if (lbfgs) lbfgs_ = std::make_unique<LbfgsTraining>(*chain_, options_.lbfgs_memory);
  if (model.algorithm == TaggerAlgorithm::kPerceptron) {
    perceptron_ = std::make_unique<PerceptronTraining>(*chain_, w_.size(), options_.perceptron_slots);
  }
  if (!options_.start_weights) {
    for (int64_t k : chain_->lattice().start_weight) w_[k] = 0;  // (the averaging sums start at 0)
  }
}

TaggerTrainer::~TaggerTrainer() = default;

void TaggerTrainer::Shuffle() {
  if (!options_.shuffle) return;
  std::mt19937_64 rng(options_.seed + static_cast<uint64_t>(steps_) * 7919);
  std::shuffle(order_.begin(), order_.end(), rng);
}

bool TaggerTrainer::Step(const std::atomic<bool>* cancel) {
  if (converged_) return false;
  if (perceptron_) {
    Shuffle();
    loss_ = static_cast<double>(perceptron_->Epoch(order_, w_, cancel));
  } else if (!lbfgs_ || steps_ < options_.sgd_warmup) {
    Shuffle();
    loss_ = SgdEpoch(*chain_, order_, options_.eta0, options_.c2, w_, sgd_, cancel);
  } else {
    if (!lbfgs_->started()) {
      for (double& v : w_) v *= sgd_.scale;  // hand over the SGD weights, if any
      sgd_.scale = 1.0;
    }
    bool more = lbfgs_->Iterate(w_, cancel);
    w_ = lbfgs_->x();
    loss_ = lbfgs_->value();
    converged_ = !more;
  }
  ++steps_;
  return !converged_;
}

void TaggerTrainer::ExportWeights() {
  std::vector<double> w(w_.size());
  if (perceptron_) {
    perceptron_->Average(w_, w);
  } else {
    for (std::size_t k = 0; k < w_.size(); ++k) w[k] = sgd_.scale * w_[k];
  }
  model_.weights = std::move(w);
}

namespace {
constexpr uint32_t kTrainerStateVersion = 1;
}  // namespace

void TaggerTrainer::SaveState(ByteWriter& out) const {
  out.Put<uint32_t>(kTrainerStateVersion);
  out.Put<int32_t>(steps_);
  out.Put<uint8_t>(converged_ ? 1 : 0);
  out.Put<double>(loss_);
  out.PutVector(w_);
  out.PutVector(perceptron_ ? perceptron_->sums() : std::vector<double>());
  out.Put<double>(perceptron_ ? perceptron_->count() : 1.0);
  out.Put<double>(sgd_.scale);
  out.Put<int64_t>(sgd_.t);
  out.PutVector(order_);
  if (lbfgs_) {
    lbfgs_->SaveState(out);
  } else {
    out.Put<uint8_t>(0);
  }
}

void TaggerTrainer::LoadState(ByteReader& in) {
  if (in.Get<uint32_t>() != kTrainerStateVersion)
    throw ModelError("checkpoint: unknown tagger trainer state version");
  steps_ = in.Get<int32_t>();
  converged_ = in.Get<uint8_t>() != 0;
  loss_ = in.Get<double>();
  std::vector<double> w = in.GetVector<double>(), u = in.GetVector<double>();
  if (w.size() != w_.size() || u.size() != (perceptron_ ? perceptron_->sums().size() : 0))
    throw ModelError("checkpoint: the weights do not fit this model (other training data or templates?)");
  w_ = std::move(w);
  const double c = in.Get<double>();
  if (perceptron_) {
    perceptron_->sums() = std::move(u);
    perceptron_->count() = c;
  }
  sgd_.scale = in.Get<double>();
  sgd_.t = in.Get<int64_t>();
  std::vector<int64_t> order = in.GetVector<int64_t>();
  if (order.size() != order_.size())
    throw ModelError("checkpoint: the sentence count differs from the training data");
  for (int64_t s : order) {
    if (s < 0 || s >= static_cast<int64_t>(order_.size())) throw ModelError("checkpoint: bad sentence order");
  }
  order_ = std::move(order);
  if (lbfgs_) {
    lbfgs_->LoadState(in, w_.size());
  } else if (in.Get<uint8_t>() != 0) {
    throw ModelError("checkpoint: L-BFGS state for a trainer without L-BFGS");
  }
  if (!in.AtEnd()) throw ModelError("checkpoint: trailing bytes after the tagger trainer state");
}

}  // namespace structrank
