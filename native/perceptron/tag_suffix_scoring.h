// Tagging-kernel perceptrons scored a sentence at a time: the candidates of one n-best
// list share most of their suffixes, so each support sequence is compared once with the
// list's distinct suffixes (kernels/tag_suffixes.h) instead of once with every candidate.
// Exact: the same kernel values as one TagKernel call per (support, candidate) pair.
#pragma once
#include <cstdint>
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
                  TagKernelWeights weights);
  double Score(int32_t candidate) const override;
  void ScoreSentence(int32_t begin, int32_t end, double* out) const override;

 private:
  const SequenceBank* support_;
  const SequenceBank* query_;
  TagKernelWeights weights_;
  std::vector<int32_t> nonzero_;  // support sequences with a coefficient
  std::vector<double> coef_;      // their coefficients
};

// K(s, x) for every support sequence s (voted prediction).
class TagSuffixColumns : public SupportColumns {
 public:
  TagSuffixColumns(const SequenceBank* support, const SequenceBank* query, TagKernelWeights weights)
      : support_(support), query_(query), weights_(weights) {}
  void Column(int32_t candidate, double* out) const override;
  void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const override;

 private:
  const SequenceBank* support_;
  const SequenceBank* query_;
  TagKernelWeights weights_;
};

// Dual training over the candidates of `bank`: the support list grows at each mistake and
// each sentence is scored against it at once, the support split over threads.
class TagSuffixTrainer : public ChunkScorer {
 public:
  TagSuffixTrainer(const SequenceBank* bank, TagKernelWeights weights, double beta, const double* logprob)
      : bank_(bank), weights_(weights), beta_(beta), logprob_(logprob) {}
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
  double logprob_sum_ = 0;  // sum over the mistakes' terms of L(plus) - L(minus)
  SupportList support_;
  std::vector<std::vector<double>> thread_sums_;
};

}  // namespace structrank
