// Candidates grouped by sentence, with what training needs of each: Score against gold
// and the base model's log-probability L(x). Candidate ids are global (0..N-1).
#pragma once
#include <cstdint>
#include <vector>

namespace structrank {

struct RankingSet {
  std::vector<int64_t> sentence_ptr{0};  // sentence s owns candidates [ptr[s], ptr[s+1])
  std::vector<double> score;             // Score(x) per candidate (training only)
  std::vector<double> logprob;           // L(x) per candidate

  int64_t sentences() const { return static_cast<int64_t>(sentence_ptr.size()) - 1; }
  int64_t candidates() const { return sentence_ptr.back(); }
  // Throws InputError when offsets are not monotone or arrays disagree in length.
  void Validate(bool need_scores) const;
};

// One training example: a sentence whose candidates do not all share one Score.
struct RankingExample {
  int64_t sentence;
  int32_t best;  // global id of x_{i,1}: highest Score, ties to higher L(x), then lower id
};

// The examples training learns from, in sentence order. Sentences whose candidates all
// share one Score (including one-candidate sentences) can never cause a mistake and are
// left out, so they neither update nor add hypotheses.
std::vector<RankingExample> BuildExamples(const RankingSet& set);

}  // namespace structrank
