#include "perceptron/reranker_model.h"

#include <cmath>
#include <string>
#include <unordered_map>

#include "core/errors.h"
#include "perceptron/linear_sum_bank.h"
#include "perceptron/structured_banks.h"

namespace structrank {

RerankerModel::RerankerModel(PerceptronRun run, std::unique_ptr<CandidateBank> support,
                             std::vector<double> support_logprob, double beta, double base_weight)
    : run_(std::move(run)),
      support_(std::move(support)),
      support_logprob_(std::move(support_logprob)),
      beta_(beta),
      base_weight_(base_weight) {
  if (support_->size() != static_cast<int64_t>(run_.support.size()) ||
      support_logprob_.size() != run_.support.size()) {
    throw InputError("perceptron model: support bank and record disagree in size");
  }
}

RerankerModel RerankerModel::Train(const CandidateBank& train, const RankingSet& set, double beta,
                                   bool primal, const PerceptronOptions& options, TrainStats* stats) {
  set.Validate(true);
  if (train.size() != set.candidates()) {
    throw InputError("perceptron: " + std::to_string(train.size()) + " candidate structures for " +
                     std::to_string(set.candidates()) + " candidates");
  }
  PerceptronRun run;
  if (primal) {
    if (train.kind() != KernelKind::kLinear)
      throw InputError("perceptron: the primal form needs explicit features");
    const auto& linear = static_cast<const LinearBank&>(train);
    run = TrainPrimalPerceptron(set, linear.rows(), linear.num_features(), beta, options);
  } else if (ChunkScorerFactory fast =
                 options.compressed ? train.CompressedTrainer(set, beta) : ChunkScorerFactory{}) {
    run = TrainPerceptron(set, options, fast);
  } else {
    std::unique_ptr<CandidateKernel> kernel = train.KernelWith(train);
    CombinedKernel combined(kernel.get(), beta, set.logprob.data(), set.logprob.data());
    run = TrainDualPerceptron(set, combined, options, stats);
  }
  std::vector<double> logprob;
  logprob.reserve(run.support.size());
  for (int32_t id : run.support) logprob.push_back(set.logprob[id]);
  std::unique_ptr<CandidateBank> support = train.Select(run.support);
  return RerankerModel(std::move(run), std::move(support), std::move(logprob), beta, options.base_weight);
}

MixingEpochResult RerankerModel::MixingEpoch(const CandidateBank& train, const RankingSet& set, double beta,
                                             bool primal, const PerceptronOptions& options,
                                             const std::vector<double>& start, int64_t first, int64_t last) {
  set.Validate(true);
  if (train.size() != set.candidates())
    throw InputError("perceptron: candidate structures and candidates disagree in size");
  if (primal) {
    if (train.kind() != KernelKind::kLinear)
      throw InputError("perceptron: the primal form needs explicit features");
    const auto& linear = static_cast<const LinearBank&>(train);
    return PrimalMixingEpoch(set, linear.rows(), linear.num_features(), beta, options, start, first, last);
  }
  std::unique_ptr<CandidateKernel> kernel = train.KernelWith(train);
  CombinedKernel combined(kernel.get(), beta, set.logprob.data(), set.logprob.data());
  return DualMixingEpoch(set, combined, options, start, first, last);
}

RerankerModel RerankerModel::FromCoefficients(const CandidateBank& train, const RankingSet& set, double beta,
                                              double base_weight, const std::vector<double>& last,
                                              const std::vector<double>& averaged) {
  set.Validate(false);
  const int64_t n = set.candidates();
  if (train.size() != n || static_cast<int64_t>(last.size()) != n ||
      static_cast<int64_t>(averaged.size()) != n) {
    throw InputError("perceptron: one coefficient per training candidate expected");
  }
  PerceptronRun run;  // no mistake record: the coefficients are the model
  std::vector<double> logprob, coef_last, coef_averaged;
  for (int32_t c = 0; c < n; ++c) {
    if (last[c] == 0 && averaged[c] == 0) continue;
    if (!std::isfinite(last[c]) || !std::isfinite(averaged[c]))
      throw InputError("perceptron: coefficients must be finite");
    run.support.push_back(c);
    logprob.push_back(set.logprob[c]);
    coef_last.push_back(last[c]);
    coef_averaged.push_back(averaged[c]);
  }
  std::unique_ptr<CandidateBank> support = train.Select(run.support);
  RerankerModel model(std::move(run), std::move(support), std::move(logprob), beta, base_weight);
  model.mixed_last_ = std::move(coef_last);
  model.mixed_averaged_ = std::move(coef_averaged);
  return model;
}

std::vector<double> RerankerModel::Coefficients(PredictMode mode) const {
  if (run_.chunks.empty()) return mode == PredictMode::kAveraged ? mixed_averaged_ : mixed_last_;
  return run_.Coefficients(mode);
}

std::vector<int32_t> RerankerModel::Choose(const CandidateBank& query, const RankingSet& query_set,
                                           PredictMode mode, int threads, const std::atomic<bool>* cancel,
                                           std::vector<double>* scores, bool compressed) const {
  query_set.Validate(false);
  if (query.size() != query_set.candidates())
    throw InputError("perceptron: query bank and candidates disagree in size");
  if (query.kind() != support_->kind())
    throw InputError("perceptron: query candidates are of another kind than the model's");
  std::unique_ptr<CandidateKernel> kernel = support_->KernelWith(query);
  CombinedKernel combined(kernel.get(), beta_, support_logprob_.data(), query_set.logprob.data());
  if (mode == PredictMode::kVoted && mixed()) {
    throw InputError("perceptron: a parameter-mixed model has no voted prediction (use last or averaged)");
  }
  if (mode == PredictMode::kVoted) {
    std::unique_ptr<SupportColumns> fast = compressed ? support_->CompressedColumns(query) : nullptr;
    if (fast) {
      LogprobPlusColumns columns(std::move(fast), support_logprob_.data(), support_->size(), beta_,
                                 query_set.logprob.data());
      return ChooseVoted(run_, query_set, columns, threads, cancel, scores, base_weight_);
    }
    KernelColumns columns(&combined, UsedSupport(run_));
    return ChooseVoted(run_, query_set, columns, threads, cancel, scores, base_weight_);
  }

  std::vector<double> coef = Coefficients(mode);
  std::unique_ptr<CandidateScorer> scorer;
  if (support_->kind() == KernelKind::kLinear) {
    const auto& rows = static_cast<const LinearBank&>(*support_).rows();
    const auto& qrows = static_cast<const LinearBank&>(query).rows();
    scorer = std::make_unique<LinearCandidateScorer>(coef, rows, support_logprob_, beta_, &qrows,
                                                     query_set.logprob.data());
  } else if (compressed) {
    std::unique_ptr<CandidateScorer> inner = support_->CompressedScorer(coef, query);
    if (inner)
      scorer = std::make_unique<LogprobPlusScorer>(std::move(inner), coef, support_logprob_, beta_,
                                                   query_set.logprob.data());
  }
  if (!scorer) scorer = std::make_unique<DualCandidateScorer>(coef, &combined);
  return ChooseBest(query_set, *scorer, threads, cancel, scores, base_weight_);
}

std::vector<int32_t> RerankerModel::CompactLinearFeatures() {
  if (support_->kind() == KernelKind::kLinear) return static_cast<LinearBank&>(*support_).CompactFeatures();
  if (support_->kind() == KernelKind::kLinearSum)
    return static_cast<LinearSumBank&>(*support_).CompactFeatures();
  return {};
}

static constexpr uint32_t kModelMagicV1 = 0x50524d31;  // "PRM1": no base weight
static constexpr uint32_t kModelMagicV2 = 0x50524d32;  // "PRM2": no tagging-kernel normalize flag
static constexpr uint32_t kModelMagic = 0x50524d33;    // "PRM3"
static constexpr uint32_t kMixedMagic = 0x50524d34;    // "PRM4": PRM3 + explicit coefficients

void RerankerModel::Save(ByteWriter& out) const {
  out.Put<uint32_t>(mixed() ? kMixedMagic : kModelMagic);
  out.Put<int32_t>(static_cast<int32_t>(support_->kind()));
  out.Put<double>(beta_);
  out.Put<double>(base_weight_);
  run_.Save(out);
  if (mixed()) {
    out.PutVector(mixed_last_);
    out.PutVector(mixed_averaged_);
  }
  out.PutVector(support_logprob_);
  support_->Save(out);
}

RerankerModel RerankerModel::Load(ByteReader& in) {
  const uint32_t magic = in.Get<uint32_t>();
  if (magic != kMixedMagic && magic != kModelMagic && magic != kModelMagicV2 && magic != kModelMagicV1) {
    throw InputError("perceptron model: bad payload header");
  }
  const auto kind = static_cast<KernelKind>(in.Get<int32_t>());
  const double beta = in.Get<double>();
  const double base_weight = magic != kModelMagicV1 ? in.Get<double>() : 0.0;
  if (!std::isfinite(base_weight)) throw InputError("perceptron model: bad base weight");
  PerceptronRun run = PerceptronRun::Load(in);
  std::vector<double> last, averaged;
  if (magic == kMixedMagic) {
    last = in.GetVector<double>();
    averaged = in.GetVector<double>();
    if (!run.chunks.empty() || last.size() != run.support.size() || averaged.size() != run.support.size()) {
      throw InputError("perceptron model: mixed coefficients disagree with the support");
    }
  } else if (run.chunks.empty()) {
    throw InputError("perceptron model: a training record without chunks");
  }
  std::vector<double> logprob = in.GetVector<double>();
  std::unique_ptr<CandidateBank> bank =
      LoadCandidateBank(kind, in, magic == kModelMagic || magic == kMixedMagic);
  if (!in.AtEnd()) throw InputError("perceptron model: trailing bytes in payload");
  RerankerModel model(std::move(run), std::move(bank), std::move(logprob), beta, base_weight);
  model.mixed_last_ = std::move(last);
  model.mixed_averaged_ = std::move(averaged);
  return model;
}

std::unique_ptr<CandidateBank> LoadCandidateBank(KernelKind kind, ByteReader& in, bool current_format) {
  switch (kind) {
    case KernelKind::kLinear:
      return LinearBank::Load(in);
    case KernelKind::kTree:
      return TreeCandidateBank::Load(in);
    case KernelKind::kTags:
      return TagCandidateBank::Load(in, current_format);
    case KernelKind::kLinearSum:
      return LinearSumBank::Load(in);
    default:
      throw InputError("perceptron model: unknown kernel kind " + std::to_string(static_cast<int>(kind)));
  }
}

}  // namespace structrank
