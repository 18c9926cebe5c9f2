#include "perceptron/linear_sum_bank.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.h"
#include "perceptron/reranker_model.h"

namespace structrank {

namespace {

class SumKernel : public CandidateKernel {
 public:
  SumKernel(std::unique_ptr<CandidateKernel> inner, std::unique_ptr<CandidateKernel> linear, double weight)
      : inner_(std::move(inner)), linear_(std::move(linear)), weight_(weight) {}
  double operator()(int32_t a, int32_t b) const override {
    return (*inner_)(a, b) + weight_ * (*linear_)(a, b);
  }

 private:
  std::unique_ptr<CandidateKernel> inner_;
  std::unique_ptr<CandidateKernel> linear_;
  double weight_;
};

// inner(x) + weight * W . Phi(x), W folded from the support once.
class SumScorer : public CandidateScorer {
 public:
  SumScorer(std::unique_ptr<CandidateScorer> inner, std::unique_ptr<CandidateScorer> linear, double weight)
      : inner_(std::move(inner)), linear_(std::move(linear)), weight_(weight) {}
  double Score(int32_t c) const override { return inner_->Score(c) + weight_ * linear_->Score(c); }
  void ScoreSentence(int32_t begin, int32_t end, double* out) const override {
    inner_->ScoreSentence(begin, end, out);
    for (int32_t c = begin; c < end; ++c) out[c - begin] += weight_ * linear_->Score(c);
  }

 private:
  std::unique_ptr<CandidateScorer> inner_;
  std::unique_ptr<CandidateScorer> linear_;
  double weight_;
};

// The inner columns plus weight * Phi(s) . Phi(x) for every support s, from an inverted
// index of the support rows: a query feature visits only the supports that have it.
class SumColumns : public SupportColumns {
 public:
  SumColumns(std::unique_ptr<SupportColumns> inner, const CsrMatrix& support, const CsrMatrix& query,
             double weight)
      : inner_(std::move(inner)), query_(query), weight_(weight) {
    int32_t features = 0;
    for (int32_t f : support.cols) features = std::max(features, f + 1);
    start_.assign(features + 1, 0);
    for (int32_t f : support.cols) ++start_[f + 1];
    for (int32_t f = 0; f < features; ++f) start_[f + 1] += start_[f];
    posting_support_.resize(support.cols.size());
    posting_value_.resize(support.cols.size());
    std::vector<int64_t> at(start_.begin(), start_.end() - 1);
    for (int64_t s = 0; s < support.rows(); ++s) {
      for (int64_t k = support.RowBegin(s); k < support.RowEnd(s); ++k) {
        const int64_t p = at[support.cols[k]]++;
        posting_support_[p] = static_cast<int32_t>(s);
        posting_value_[p] = weight_ * static_cast<double>(support.Value(k));
      }
    }
  }

  void Column(int32_t c, double* out) const override {
    inner_->Column(c, out);
    AddLinear(c, out);
  }

  void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const override {
    inner_->SentenceColumns(begin, end, stride, out);
    for (int32_t c = begin; c < end; ++c) AddLinear(c, out + (c - begin) * stride);
  }

 private:
  void AddLinear(int32_t c, double* out) const {
    const auto features = static_cast<int32_t>(start_.size()) - 1;
    for (int64_t k = query_.RowBegin(c); k < query_.RowEnd(c); ++k) {
      const int32_t f = query_.cols[k];
      if (f >= features) continue;
      const double v = static_cast<double>(query_.Value(k));
      for (int64_t p = start_[f]; p < start_[f + 1]; ++p) out[posting_support_[p]] += posting_value_[p] * v;
    }
  }

  std::unique_ptr<SupportColumns> inner_;
  const CsrMatrix& query_;
  double weight_;
  std::vector<int64_t> start_;  // postings of feature f: [start_[f], start_[f + 1])
  std::vector<int32_t> posting_support_;
  std::vector<double> posting_value_;  // weight * the support's feature value
};

// Training: the inner kernel's fast scorer plus the primal scorer of the features.
class SumChunkScorer : public ChunkScorer {
 public:
  SumChunkScorer(std::unique_ptr<ChunkScorer> inner, std::unique_ptr<ChunkScorer> linear, double weight)
      : inner_(std::move(inner)), linear_(std::move(linear)), weight_(weight) {}
  double Score(int32_t c) override { return inner_->Score(c) + weight_ * linear_->Score(c); }
  void Update(int32_t plus, int32_t minus) override {
    inner_->Update(plus, minus);
    linear_->Update(plus, minus);
  }
  bool ParallelScoring() const override { return inner_->ParallelScoring(); }
  void Start(int32_t candidate, double coef) override {
    inner_->Start(candidate, coef);
    linear_->Start(candidate, coef);
  }
  bool ScoreSentence(int32_t begin, int32_t end, double* out, int threads) override {
    if (!inner_->ScoreSentence(begin, end, out, threads)) return false;
    for (int32_t c = begin; c < end; ++c) out[c - begin] += weight_ * linear_->Score(c);
    return true;
  }

 private:
  std::unique_ptr<ChunkScorer> inner_;
  std::unique_ptr<ChunkScorer> linear_;
  double weight_;
};

}  // namespace

LinearSumBank::LinearSumBank(std::unique_ptr<CandidateBank> inner, std::unique_ptr<LinearBank> features,
                             double weight)
    : inner_(std::move(inner)), features_(std::move(features)), weight_(weight) {
  if (inner_->kind() == KernelKind::kLinearSum || inner_->kind() == KernelKind::kLinear) {
    throw InputError("perceptron: features are added to a tree or tagging kernel");
  }
  if (inner_->size() != features_->size()) {
    throw InputError("perceptron: " + std::to_string(features_->size()) + " feature rows for " +
                     std::to_string(inner_->size()) + " candidates");
  }
  if (!std::isfinite(weight_) || weight_ < 0)
    throw InputError("perceptron: the features' weight must be >= 0");
}

const LinearSumBank& LinearSumBank::Query(const CandidateBank& query) const {
  if (query.kind() != KernelKind::kLinearSum)
    throw InputError("perceptron: query candidates have no feature rows");
  return static_cast<const LinearSumBank&>(query);
}

std::unique_ptr<CandidateBank> LinearSumBank::Select(const std::vector<int32_t>& ids) const {
  std::unique_ptr<CandidateBank> features = features_->Select(ids);
  return std::make_unique<LinearSumBank>(
      inner_->Select(ids), std::unique_ptr<LinearBank>(static_cast<LinearBank*>(features.release())),
      weight_);
}

std::unique_ptr<CandidateKernel> LinearSumBank::KernelWith(const CandidateBank& right) const {
  const LinearSumBank& q = Query(right);
  return std::make_unique<SumKernel>(inner_->KernelWith(*q.inner_), features_->KernelWith(*q.features_),
                                     weight_);
}

std::unique_ptr<CandidateScorer> LinearSumBank::CompressedScorer(const std::vector<double>& coef,
                                                                 const CandidateBank& query) const {
  const LinearSumBank& q = Query(query);
  std::unique_ptr<CandidateScorer> inner = inner_->CompressedScorer(coef, *q.inner_);
  if (!inner) return nullptr;
  auto linear = std::make_unique<LinearCandidateScorer>(coef, features_->rows(), std::vector<double>{}, 0.0,
                                                        &q.features_->rows(), nullptr);
  return std::make_unique<SumScorer>(std::move(inner), std::move(linear), weight_);
}

std::unique_ptr<SupportColumns> LinearSumBank::CompressedColumns(const CandidateBank& query) const {
  const LinearSumBank& q = Query(query);
  std::unique_ptr<SupportColumns> inner = inner_->CompressedColumns(*q.inner_);
  if (!inner) return nullptr;
  return std::make_unique<SumColumns>(std::move(inner), features_->rows(), q.features_->rows(), weight_);
}

ChunkScorerFactory LinearSumBank::CompressedTrainer(const RankingSet& set, double beta) const {
  ChunkScorerFactory inner = inner_->CompressedTrainer(set, beta);
  if (!inner) return {};
  ChunkScorerFactory linear = PrimalTrainer(set, features_->rows(), features_->num_features(), 0.0);
  const double weight = weight_;
  return [inner, linear, weight]() -> std::unique_ptr<ChunkScorer> {
    return std::make_unique<SumChunkScorer>(inner(), linear(), weight);
  };
}

std::vector<int32_t> LinearSumBank::CompactFeatures() { return features_->CompactFeatures(); }

void LinearSumBank::Save(ByteWriter& out) const {
  out.Put<double>(weight_);
  out.Put<int32_t>(static_cast<int32_t>(inner_->kind()));
  inner_->Save(out);
  features_->Save(out);
}

std::unique_ptr<LinearSumBank> LinearSumBank::Load(ByteReader& in) {
  const double weight = in.Get<double>();
  const auto kind = static_cast<KernelKind>(in.Get<int32_t>());
  if (kind == KernelKind::kLinearSum || kind == KernelKind::kLinear)
    throw InputError("perceptron model: bad summed kernel");
  std::unique_ptr<CandidateBank> inner = LoadCandidateBank(kind, in);
  std::unique_ptr<LinearBank> features = LinearBank::Load(in);
  return std::make_unique<LinearSumBank>(std::move(inner), std::move(features), weight);
}

}  // namespace structrank
