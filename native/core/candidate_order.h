// The one order of candidates within an n-best list, used by every reranker, the oracle and
// the base model's choice (mirrored by lib/rerank/candidate-order.ts): a higher value first;
// values that differ only by rounding (summation order: a k-best list's log-probabilities,
// kernel sums vs the DAG) are ties, and a tie goes to the earlier candidate (input rank).
#pragma once
#include <cmath>
#include <cstdint>

namespace structrank {

// a > b beyond rounding (1e-12 relative).
inline bool ScoreAbove(double a, double b) {
  const double scale = std::fabs(b) > 1.0 ? std::fabs(b) : 1.0;
  return a > b + 1e-12 * scale;
}

// Index in [begin, end) of the first candidate with the highest value(c) (ties: earlier).
template <typename Value>
int64_t FirstBest(int64_t begin, int64_t end, const Value& value) {
  int64_t best = begin;
  for (int64_t c = begin + 1; c < end; ++c)
    if (ScoreAbove(value(c), value(best))) best = c;
  return best;
}

// The oracle's pick: the highest Score (exact: Scores are match counts), ties by the base
// model's order (higher log-probability, then earlier).
template <typename ScoreOf, typename LogprobOf>
int64_t OracleBest(int64_t begin, int64_t end, const ScoreOf& score, const LogprobOf& logprob) {
  int64_t best = begin;
  for (int64_t c = begin + 1; c < end; ++c)
    if (score(c) > score(best) || (score(c) == score(best) && ScoreAbove(logprob(c), logprob(best))))
      best = c;
  return best;
}

}  // namespace structrank
