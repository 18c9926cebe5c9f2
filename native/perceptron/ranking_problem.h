// A reranking training set: sentences, each with its candidates (global candidate ids
// 0..num_candidates-1, contiguous per sentence), the first being the best one x_{i,1}
// (highest Score, ties broken by the base log-probability; chosen by the caller).
#pragma once
#include <cstdint>
#include <vector>

#include "core/errors.h"

namespace structrank {

struct RankingProblem {
  // Sentence s owns candidates [sentence_begin[s], sentence_begin[s+1]); the first is best.
  std::vector<int64_t> sentence_begin{0};

  std::size_t num_sentences() const { return sentence_begin.size() - 1; }
  int64_t num_candidates() const { return sentence_begin.back(); }
  int64_t Best(std::size_t s) const { return sentence_begin[s]; }
  int64_t Begin(std::size_t s) const { return sentence_begin[s]; }
  int64_t End(std::size_t s) const { return sentence_begin[s + 1]; }

  void AddSentence(int64_t num_candidates) {
    if (num_candidates <= 0) throw InputError("a sentence needs at least one candidate");
    sentence_begin.push_back(sentence_begin.back() + num_candidates);
  }
};

// One perceptron mistake: at training step `step` (1-based over all epochs and sentences)
// the candidate `other` scored at least as high as the best candidate `best`, so
// G += K(best, .) - K(other, .)  (primal: W += Phi(best) - Phi(other)).
struct Mistake {
  int64_t step;
  int64_t best;
  int64_t other;
};

struct PerceptronOptions {
  int epochs = 1;
  uint64_t seed = 1;
  bool shuffle = true;  // visit sentences in a seeded random order each epoch
};

// The order in which training visits sentences: epoch after epoch, shuffled with a
// seeded generator (splitmix64 + Fisher-Yates, the same on every platform).
std::vector<uint32_t> TrainingOrder(std::size_t num_sentences, const PerceptronOptions& options);

// The training candidate the perceptron compares with the best one: the highest-scoring
// other candidate (lowest index on ties), or -1 when the sentence has one candidate.
// A mistake is made when its score is >= the best candidate's score (so that a zero
// model, which ties everything, learns).
template <typename Score>
int64_t ArgmaxOther(const RankingProblem& p, std::size_t s, const Score& score, double* best_score, double* other_score) {
  const int64_t best = p.Best(s);
  *best_score = score(best);
  int64_t arg = -1;
  for (int64_t c = best + 1; c < p.End(s); ++c) {
    const double v = score(c);
    if (arg < 0 || v > *other_score) {
      arg = c;
      *other_score = v;
    }
  }
  return arg;
}

}  // namespace structrank
