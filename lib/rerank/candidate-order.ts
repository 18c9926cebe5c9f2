/**
 * The one order of candidates within an n-best list, used by every reranker, the oracle and
 * the base model's choice (the native side has the same rule in core/candidate_order.h): a
 * higher value first; values that differ only by rounding (1e-12 relative: a k-best list's
 * log-probabilities differ in the last bits with the summation order) are ties, and a tie goes
 * to the earlier candidate (input rank). So a reranker that learns nothing (0 boosting
 * rounds, F = a0 L) picks exactly the base model's candidate.
 */

/** a ranks above b beyond rounding. */
export function scoreAbove(a: number, b: number): boolean {
  return a > b + 1e-12 * Math.max(1, Math.abs(b));
}

/** Index of the first candidate with the highest value (ties: the earlier one); -1 when n = 0. */
export function firstBest(n: number, value: (j: number) => number): number {
  if (n === 0) return -1;
  let best = 0;
  for (let j = 1; j < n; j++) if (scoreAbove(value(j), value(best))) best = j;
  return best;
}

/** The base model's choice: the highest log-probability L(x), ties to the earlier candidate. */
export function baseIndex(logprobs: ArrayLike<number>): number {
  return firstBest(logprobs.length, (j) => logprobs[j]);
}

/** The oracle's choice: the highest Score (exact: match counts), ties by the base model's order. */
export function oracleIndex(scores: ArrayLike<number>, logprobs: ArrayLike<number>): number {
  let best = 0;
  for (let j = 1; j < scores.length; j++) {
    if (scores[j] > scores[best] || (scores[j] === scores[best] && scoreAbove(logprobs[j], logprobs[best]))) best = j;
  }
  return best;
}
