// A kernel plus explicit features: K(x, y) = K_inner(x, y) + weight * Phi(x) . Phi(y), the
// combination SVM-Light-TK offers for a tree kernel and a feature vector. The tree kernel
// sees every shared fragment; the features see what fragments cannot (head-to-head
// dependencies, parallelism, lengths). The feature part is linear, so training and last or
// averaged prediction keep it as one primal weight vector beside the inner kernel's fast
// scorer; only the inner kernel needs support sums.
#pragma once
#include <memory>

#include "perceptron/candidate_bank.h"

namespace structrank {

class LinearSumBank : public CandidateBank {
 public:
  LinearSumBank(std::unique_ptr<CandidateBank> inner, std::unique_ptr<LinearBank> features, double weight);
  KernelKind kind() const override { return KernelKind::kLinearSum; }
  int64_t size() const override { return inner_->size(); }
  std::unique_ptr<CandidateBank> Select(const std::vector<int32_t>& ids) const override;
  std::unique_ptr<CandidateKernel> KernelWith(const CandidateBank& right) const override;
  void Save(ByteWriter& out) const override;
  static std::unique_ptr<LinearSumBank> Load(ByteReader& in);
  std::unique_ptr<CandidateScorer> CompressedScorer(const std::vector<double>& coef,
                                                    const CandidateBank& query) const override;
  std::unique_ptr<SupportColumns> CompressedColumns(const CandidateBank& query) const override;
  ChunkScorerFactory CompressedTrainer(const RankingSet& set, double beta) const override;

  const CandidateBank& inner() const { return *inner_; }
  const LinearBank& features() const { return *features_; }
  double weight() const { return weight_; }
  // Renumbers the feature ids densely (0..F-1); returns the old id of each new one.
  std::vector<int32_t> CompactFeatures();

 private:
  const LinearSumBank& Query(const CandidateBank& query) const;
  std::unique_ptr<CandidateBank> inner_;
  std::unique_ptr<LinearBank> features_;
  double weight_;
};

}  // namespace structrank
