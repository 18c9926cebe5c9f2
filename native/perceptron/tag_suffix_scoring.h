// Tagging-kernel perceptrons scored a sentence at a time: the candidates of one n-best
// list share most of their suffixes, so each support sequence is compared once with the
// list's distinct suffixes (kernels/tag_suffixes.h) instead of once with every candidate.
// Exact: the same kernel values as one TagKernel call per (support, candidate) pair.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/sequence_bank.h"
#include "kernels/tag_kernel.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_train.h"

namespace structrank {

// The tagging kernel between support and query sequences, raw or normalized:
// K(s, x) * SupportScale(s) * QueryScale(x), the scales 1/sqrt(K(x, x)) when normalizing
// (kernels/tag_kernel.h) and 1 otherwise. Training uses one bank on both sides.
struct TagKernelBanks {
  const SequenceBank* support = nullptr;
  const SequenceBank* query = nullptr;
  TagKernelWeights weights;
  const double* support_inv_norm = nullptr;  // null: raw kernel
  std::vector<double> query_inv_norm;        // empty: raw kernel
  double SupportScale(std::size_t s) const { return support_inv_norm ? support_inv_norm[s] : 1.0; }
  double QueryScale(std::size_t x) const { return query_inv_norm.empty() ? 1.0 : query_inv_norm[x]; }
};

// sum_s coef_s K(s, x) (last or averaged prediction).
class TagSuffixScorer : public CandidateScorer {
 public:
  TagSuffixScorer(TagKernelBanks banks, const std::vector<double>& coef);
  double Score(int32_t candidate) const override;
  void ScoreSentence(int32_t begin, int32_t end, double* out) const override;

 private:
  TagKernelBanks banks_;
  std::vector<int32_t> nonzero_;  // support sequences with a coefficient
  std::vector<double> coef_;      // their coefficients times their support scales
};

// K(s, x) for every support sequence s (voted prediction).
class TagSuffixColumns : public SupportColumns {
 public:
  explicit TagSuffixColumns(TagKernelBanks banks) : banks_(std::move(banks)) {}
  void Column(int32_t candidate, double* out) const override;
  void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const override;

 private:
  TagKernelBanks banks_;
};

// Dual training over the candidates of `bank`: the support list grows at each mistake and
// each sentence is scored against it at once, the support split over threads.
class TagSuffixTrainer : public ChunkScorer {
 public:
  // `banks`: the training bank on both sides.
  TagSuffixTrainer(TagKernelBanks banks, double beta, const double* logprob)
      : banks_(std::move(banks)), beta_(beta), logprob_(logprob) {}
  double Score(int32_t candidate) override;  // a group of one, through ScoreSentence
  bool ScoreSentence(int32_t begin, int32_t end, double* out, int threads) override;
  // Score shares ScoreSentence's per-thread sums, so it must not run concurrently.
  bool ParallelScoring() const override { return false; }
  void Update(int32_t plus, int32_t minus) override;

 private:
  TagKernelBanks banks_;
  double beta_;
  const double* logprob_;
  double logprob_sum_ = 0;  // sum over the mistakes' terms of L(plus) - L(minus)
  SupportList support_;
  std::vector<std::vector<double>> thread_sums_;
};

}  // namespace structrank
