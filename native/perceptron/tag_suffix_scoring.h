// Tagging-kernel perceptrons scored a sentence at a time: the candidates of one n-best
// list share most of their suffixes, so each support sequence is compared once with the
// list's distinct suffixes (kernels/tag_suffixes.h) instead of once with every candidate.
// Exact: the same kernel values as one TagKernel call per (support, candidate) pair.
// Normalized kernels pass inverse norms 1/sqrt(K(x,x)) (kernels/tag_kernel.h): null or
// empty means the raw kernel.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/sequence_bank.h"
#include "kernels/tag_kernel.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_train.h"

namespace structrank {

// sum_s coef_s K(s, x) (last or averaged prediction).
class TagSuffixScorer : public CandidateScorer {
 public:
  TagSuffixScorer(const SequenceBank* support, const std::vector<double>& coef, const SequenceBank* query,
                  TagKernelWeights weights, const double* support_inv_norm = nullptr,
                  std::vector<double> query_inv_norm = {});
  double Score(int32_t candidate) const override;
  void ScoreSentence(int32_t begin, int32_t end, double* out) const override;

 private:
  const SequenceBank* support_;
  const SequenceBank* query_;
  TagKernelWeights weights_;
  std::vector<double> query_inv_norm_;
  std::vector<int32_t> nonzero_;  // support sequences with a coefficient
  std::vector<double> coef_;      // their coefficients (over their norms when normalized)
};

// K(s, x) for every support sequence s (voted prediction).
class TagSuffixColumns : public SupportColumns {
 public:
  TagSuffixColumns(const SequenceBank* support, const SequenceBank* query, TagKernelWeights weights,
                   const double* support_inv_norm = nullptr, std::vector<double> query_inv_norm = {})
      : support_(support),
        query_(query),
        weights_(weights),
        support_inv_norm_(support_inv_norm),
        query_inv_norm_(std::move(query_inv_norm)) {}
  void Column(int32_t candidate, double* out) const override;
  void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const override;

 private:
  const SequenceBank* support_;
  const SequenceBank* query_;
  TagKernelWeights weights_;
  const double* support_inv_norm_;
  std::vector<double> query_inv_norm_;
};

// Dual training over the candidates of `bank`: the support list grows at each mistake and
// each sentence is scored against it at once, the support split over threads.
class TagSuffixTrainer : public ChunkScorer {
 public:
  TagSuffixTrainer(const SequenceBank* bank, TagKernelWeights weights, double beta, const double* logprob,
                   const double* inv_norm = nullptr)
      : bank_(bank), weights_(weights), beta_(beta), logprob_(logprob), inv_norm_(inv_norm) {}
  double Score(int32_t candidate) override;  // a group of one, through ScoreSentence
  bool ScoreSentence(int32_t begin, int32_t end, double* out, int threads) override;
  // Score shares ScoreSentence's per-thread sums, so it must not run concurrently.
  bool ParallelScoring() const override { return false; }
  void Update(int32_t plus, int32_t minus) override;

 private:
  const SequenceBank* bank_;
  TagKernelWeights weights_;
  double beta_;
  const double* logprob_;
  const double* inv_norm_;
  double logprob_sum_ = 0;  // sum over the mistakes' terms of L(plus) - L(minus)
  SupportList support_;
  std::vector<std::vector<double>> thread_sums_;
};

}  // namespace structrank
