/**
 * The mix of the pipeline's rerankers (lib/pipeline/reranker-mix.ts): the spread by hand, the
 * choice against a brute-force sum, and that a reranker's scale does not change it.
 */
import { describe, expect, it } from 'vitest';
import { listSpread, mixChoice, type MemberScores } from '../../lib/pipeline/reranker-mix.js';

describe('reranker mix', () => {
  it('measures the spread within lists, pooled, ignoring single-candidate lists', () => {
    // Deviations from the list means: (-1, 1) and (-2, 0, 2); 10 / 5 candidates = 2.
    expect(listSpread([[1, 3], [5], [0, 2, 4]])).toBeCloseTo(Math.sqrt(2), 12);
    expect(listSpread([[7], [2, 2]])).toBe(1);
  });

  it("takes each sentence's highest sum of scores over dev spreads", () => {
    let state = 7;
    const random = () => ((state = (state * 48271) % 2147483647) / 2147483647) * 10 - 5;
    const lists = (sizes: number[]) => sizes.map((n) => Array.from({ length: n }, random));
    const sizes = { dev: [3, 5, 1, 4, 6], test: [2, 7, 3] };
    const a: MemberScores = { dev: lists(sizes.dev), test: lists(sizes.test) };
    const b: MemberScores = { dev: lists(sizes.dev), test: lists(sizes.test) };
    for (const part of ['dev', 'test'] as const) {
      const sa = listSpread(a.dev);
      const sb = listSpread(b.dev);
      const brute = a[part].map((list, i) => {
        const sums = list.map((x, j) => x / sa + b[part][i][j] / sb);
        return sums.indexOf(Math.max(...sums));
      });
      expect(mixChoice([a, b], part)).toEqual(brute);
      // A reranker whose scores are 1000 times larger weighs the same.
      const scaled: MemberScores = {
        dev: a.dev.map((l) => l.map((x) => x * 1000)),
        test: a.test.map((l) => l.map((x) => x * 1000)),
      };
      expect(mixChoice([scaled, b], part)).toEqual(brute);
    }
    // One member alone chooses as it would.
    expect(mixChoice([a], 'test')).toEqual(a.test.map((l) => l.indexOf(Math.max(...l))));
  });
});
