#include "perceptron/tag_suffix_scoring.h"

#include <algorithm>

#include "core/thread_pool.h"
#include "kernels/tag_suffixes.h"

namespace structrank {

namespace {

// One sentence's distinct suffixes, rebuilt per sentence in the calling thread's storage.
TagSuffixes& SuffixesOf(const SequenceBank& bank, int32_t begin, int32_t end) {
  thread_local TagSuffixes suffixes;
  suffixes.Build(bank, begin, end);
  return suffixes;
}

}  // namespace

TagSuffixScorer::TagSuffixScorer(TagKernelBanks banks, const std::vector<double>& coef)
    : banks_(std::move(banks)) {
  for (std::size_t s = 0; s < coef.size(); ++s) {
    if (coef[s] == 0) continue;
    nonzero_.push_back(static_cast<int32_t>(s));
    coef_.push_back(coef[s] * banks_.SupportScale(s));
  }
}

// A single candidate is a group of one: the same code path as a whole sentence.
double TagSuffixScorer::Score(int32_t candidate) const {
  double g = 0;
  ScoreSentence(candidate, candidate + 1, &g);
  return g;
}

void TagSuffixScorer::ScoreSentence(int32_t begin, int32_t end, double* out) const {
  const TagSuffixes& q = SuffixesOf(*banks_.query, begin, end);
  thread_local std::vector<double> sums;
  sums.assign(q.size(), 0.0);
  TagSuffixScratch& scratch = TagSuffixScratch::ForThisThread();
  for (std::size_t k = 0; k < nonzero_.size(); ++k) {
    TagKernelSuffixSums(banks_.support->Sequence(nonzero_[k]), q, banks_.weights, coef_[k], scratch,
                        sums.data());
  }
  for (int32_t i = 0; i < q.sequences(); ++i)
    out[i] = SumOverNodes(q, i, sums.data()) * banks_.QueryScale(begin + i);
}

void TagSuffixColumns::Column(int32_t candidate, double* out) const {
  SentenceColumns(candidate, candidate + 1, static_cast<int64_t>(banks_.support->size()), out);
}

void TagSuffixColumns::SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const {
  const TagSuffixes& q = SuffixesOf(*banks_.query, begin, end);
  thread_local std::vector<double> sums;
  TagSuffixScratch& scratch = TagSuffixScratch::ForThisThread();
  for (std::size_t s = 0; s < banks_.support->size(); ++s) {
    sums.assign(q.size(), 0.0);
    TagKernelSuffixSums(banks_.support->Sequence(s), q, banks_.weights, banks_.SupportScale(s), scratch,
                        sums.data());
    for (int32_t i = 0; i < q.sequences(); ++i) {
      out[i * stride + static_cast<int64_t>(s)] =
          SumOverNodes(q, i, sums.data()) * banks_.QueryScale(begin + i);
    }
  }
}

double TagSuffixTrainer::Score(int32_t candidate) {
  double g = 0;
  ScoreSentence(candidate, candidate + 1, &g, 1);
  return g;
}

bool TagSuffixTrainer::ScoreSentence(int32_t begin, int32_t end, double* out, int threads) {
  const TagSuffixes& q = SuffixesOf(*banks_.query, begin, end);
  const std::size_t n = support_.candidates.size();
  const int workers = std::min<int>(threads, static_cast<int>(n / 16) + 1);
  if (static_cast<int>(thread_sums_.size()) < workers) thread_sums_.resize(workers);
  for (int t = 0; t < workers; ++t) thread_sums_[t].assign(q.size(), 0.0);
  // Each worker adds its share of the support into its own node sums; q is only read.
  ParallelForFixed(n, workers, 8, [&](std::size_t lo, std::size_t hi, int thread) {
    TagSuffixScratch& scratch = TagSuffixScratch::ForThisThread();
    double* sums = thread_sums_[thread].data();
    for (std::size_t k = lo; k < hi; ++k) {
      const int32_t s = support_.candidates[k];
      const double a = support_.coef[k] * banks_.SupportScale(s);
      if (a != 0) TagKernelSuffixSums(banks_.support->Sequence(s), q, banks_.weights, a, scratch, sums);
    }
  });
  std::vector<double>& sums = thread_sums_[0];
  for (int t = 1; t < workers; ++t) {
    for (int32_t v = 0; v < q.size(); ++v) sums[v] += thread_sums_[t][v];
  }
  for (int32_t i = 0; i < q.sequences(); ++i) {
    out[i] = SumOverNodes(q, i, sums.data()) * banks_.QueryScale(begin + i);
    if (beta_ != 0) out[i] += beta_ * logprob_[begin + i] * logprob_sum_;
  }
  return true;
}

void TagSuffixTrainer::Update(int32_t plus, int32_t minus) {
  support_.coef[support_.Add(plus)] += 1;
  support_.coef[support_.Add(minus)] -= 1;
  logprob_sum_ += logprob_[plus] - logprob_[minus];
}

}  // namespace structrank
