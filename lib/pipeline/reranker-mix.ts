/**
 * The mix of a pipeline's rerankers: every candidate's score under each reranker, divided by
 * that reranker's spread on dev, summed with equal weights; each sentence takes its highest.
 *
 * Why equal weights and no choice on dev: dev already chose each reranker's own
 * hyper-parameters (boosting's rounds, the log-linear reranker's C), so it favours whichever
 * it tuned most closely, and ptb-sample's dev set has 260 sentences. The mix averages the
 * rerankers' errors instead of betting on one of them. docs/design/reranking-defaults.md has
 * the measurements.
 */

/** One reranker's candidate scores, per sentence, on dev and test. */
export interface MemberScores {
  dev: number[][];
  test: number[][];
}

/**
 * The spread of a reranker's scores within lists: the standard deviation of every candidate's
 * score around its list's mean, pooled over the lists of two or more candidates (1 when none
 * spread). Dividing by it puts rerankers whose scores differ in scale on one footing.
 */
export function listSpread(lists: readonly (readonly number[])[]): number {
  let squares = 0;
  let n = 0;
  for (const list of lists) {
    if (list.length < 2) continue;
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    for (const x of list) squares += (x - mean) ** 2;
    n += list.length;
  }
  const spread = Math.sqrt(squares / Math.max(1, n));
  return spread > 0 ? spread : 1;
}

/** Each sentence's candidate with the highest sum of the members' scores over their dev spreads (the first on ties). */
export function mixChoice(members: readonly MemberScores[], part: 'dev' | 'test'): number[] {
  const spreads = members.map((m) => listSpread(m.dev));
  return members[0][part].map((list, i) => {
    let best = 0;
    let bestScore = -Infinity;
    for (let j = 0; j < list.length; j++) {
      let s = 0;
      members.forEach((m, k) => (s += m[part][i][j] / spreads[k]));
      if (s > bestScore) {
        bestScore = s;
        best = j;
      }
    }
    return best;
  });
}
