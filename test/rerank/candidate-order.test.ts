import { describe, expect, it } from 'vitest';
import { rerankData, rerankScores, trainBoost, boostPrefixCurve } from '../../lib/rerank/boost.js';
import { baseIndex, oracleIndex } from '../../lib/rerank/candidate-order.js';
import { baseChoice, oracleChoice } from '../../lib/pipeline/evaluate.js';
import type { CandidateSet } from '../../lib/pipeline/components.js';
import type { NbestSentence } from '../../lib/io/nbest.js';
import { rng } from '../perturb.js';

/**
 * n-best lists as a k-best parser writes them: log-probabilities in non-increasing order up
 * to the last bits (summation order), with exact ties and near-ties at the top.
 */
function lists(
  seed: number,
  count: number,
): { set: CandidateSet; logprob: Float64Array; score: Float64Array; ptr: Int32Array } {
  const r = rng(seed);
  const sentences: NbestSentence[] = [];
  const scores: number[][] = [];
  for (let i = 0; i < count; i++) {
    const top = -20 - 100 * r();
    const n = 2 + Math.floor(r() * 6);
    const lp: number[] = [];
    for (let j = 0; j < n; j++) {
      const kind = r();
      const prev = j === 0 ? top : lp[j - 1];
      // exact tie, a tie in all but the last bits (either way), or clearly lower
      lp.push(
        kind < 0.3
          ? prev
          : kind < 0.6
            ? prev + (r() < 0.5 ? 1 : -1) * Math.abs(prev) * 2e-16 * (1 + Math.floor(r() * 3))
            : prev - r(),
      );
    }
    sentences.push({
      id: `s${i}`,
      tokens: ['a'],
      candidates: lp.map((logprob) => ({ tags: ['X'], logprob })),
      line: 0,
    });
    scores.push(lp.map(() => Math.floor(r() * 3)));
  }
  const ptr = new Int32Array(count + 1);
  sentences.forEach((s, i) => (ptr[i + 1] = ptr[i] + s.candidates.length));
  return {
    set: { sentences, scores },
    logprob: Float64Array.from(sentences.flatMap((s) => s.candidates.map((c) => c.logprob))),
    score: Float64Array.from(scores.flat()),
    ptr,
  };
}

describe('one candidate order for the base, the oracle and every reranker', () => {
  const { set, logprob, score, ptr } = lists(11, 400);
  const outOfOrder = set.sentences.filter((s) =>
    s.candidates.some((c, j) => j > 0 && c.logprob > s.candidates[0].logprob),
  ).length;

  it('the test lists have near-ties out of order at the top, as k-best lists do', () => {
    expect(outOfOrder).toBeGreaterThan(20);
  });

  it('a reranker that learned nothing (F = a0 L) picks exactly the base model candidate', async () => {
    const base = baseChoice(set);
    const cols = new Int32Array(0);
    const data = await rerankData({
      sentencePtr: ptr,
      logprob,
      score,
      rowPtr: new Float64Array(logprob.length + 1),
      cols,
      numFeatures: 1,
    });
    for (const a0 of [0.1, 1, 7.3]) {
      const { chosen } = rerankScores(data, a0, new Float64Array(1), 1);
      expect(Array.from(chosen)).toEqual(base);
    }
  });

  it('boosting with 0 rounds scores dev exactly as the base does', async () => {
    // One feature that never fires: boosting can only fit a0; its 0-round prefix is the base.
    const cols = new Int32Array(0);
    const data = await rerankData({
      sentencePtr: ptr,
      logprob,
      score,
      rowPtr: new Float64Array(logprob.length + 1),
      cols,
      numFeatures: 1,
    });
    const { model } = await trainBoost(data, { rounds: 5, threads: 1 });
    const [atZero] = Array.from(boostPrefixCurve(data, model, [0], 1));
    const base = baseChoice(set);
    const baseScore = base.reduce((sum, j, i) => sum + set.scores[i][j], 0);
    expect(atZero).toBe(baseScore);
  });

  it('the base is the highest L, near-ties to the earlier; the oracle breaks Score ties by that order', () => {
    expect(baseIndex([-5, -5 + 5e-15, -4.9])).toBe(2);
    expect(baseIndex([-5, -5 + 5e-15, -5])).toBe(0);
    expect(baseIndex([-5, -4.999, -4.999])).toBe(1);
    expect(oracleIndex([1, 2, 2], [-9, -8, -7])).toBe(2);
    expect(oracleIndex([1, 2, 2], [-9, -7, -7 + 1e-15])).toBe(1);
    const oracle = oracleChoice(set);
    set.sentences.forEach((s, i) => {
      const best = Math.max(...set.scores[i]);
      const tied = set.scores[i].map((v, j) => (v === best ? j : -1)).filter((j) => j >= 0);
      // Among the best-Score candidates, the oracle takes the one the base order puts first.
      const lp = tied.map((j) => s.candidates[j].logprob);
      expect(oracle[i]).toBe(tied[baseIndex(lp)]);
    });
  });
});
