import { describe, expect, it } from 'vitest';
import {
  boostPrefixCurve,
  boostWeights,
  boostWork,
  chooseRoundsOnDev,
  chosenScore,
  decodeBoostModel,
  encodeBoostModel,
  rerankData,
  syntheticRerankData,
  trainBoost,
  trainLoglinear,
} from '../../lib/rerank/boost.js';

const small = {
  sentences: 200,
  candidatesPerSentence: 8,
  features: 600,
  sharedPerSentence: 30,
  privatePerCandidate: 6,
  threads: 2,
};

describe('boosting reranker API', () => {
  it('sparse and naive pick the same features with the same updates', async () => {
    const data = await syntheticRerankData({ ...small, seed: 4 });
    const a = await trainBoost(data, { rounds: 200, method: 'sparse', chunk: 37 });
    const b = await trainBoost(data, { rounds: 200, method: 'naive' });
    expect(a.model.features.length).toBe(200);
    expect([...a.model.features]).toEqual([...b.model.features]);
    a.model.deltas.forEach((d, i) =>
      expect(Math.abs(d - b.model.deltas[i])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(d))),
    );
    // Work(n) and Savings(n) from the recorded costs agree with the trainer's figures.
    const w = boostWork(a.model);
    expect(w.work).toBeCloseTo(a.stats.work, 10);
    expect(w.savings).toBeCloseTo(a.stats.savings, 6);
    expect(a.stats.work).toBeGreaterThan(0);
  });

  it('the loss never increases', async () => {
    const data = await syntheticRerankData({ ...small, seed: 5 });
    const { model } = await trainBoost(data, { rounds: 500, weighting: 'uniform' });
    let prev = model.initialLoss;
    for (const l of model.losses) {
      expect(l).toBeLessThanOrEqual(prev * (1 + 1e-12));
      prev = l;
    }
  });

  it('evaluates any prefix of rounds on dev without retraining, and picks N', async () => {
    const train = await syntheticRerankData({ ...small, seed: 6 });
    const dev = await syntheticRerankData({ ...small, sentences: 80, seed: 7 });
    const { model } = await trainBoost(train, { rounds: 300 });
    const checkpoints = [0, 5, 50, 120, 300];
    const curve = boostPrefixCurve(dev, model, checkpoints);
    checkpoints.forEach((n, i) => expect(curve[i]).toBeCloseTo(chosenScore(dev, model.a0, boostWeights(model, n)), 6));
    const pick = chooseRoundsOnDev(dev, model, 25);
    expect(pick.score).toBe(Math.max(...pick.curve));
    expect(pick.checkpoints).toContain(pick.rounds);
    // Boosting helps over the base model (a_0 alone) on this synthetic problem.
    expect(Math.max(...pick.curve)).toBeGreaterThan(curve[0]);
  });

  it('model bytes round-trip and bad bytes are refused', async () => {
    const data = await syntheticRerankData({ ...small, seed: 8 });
    const { model } = await trainBoost(data, { rounds: 40 });
    model.chosenRounds = 30;
    const back = decodeBoostModel(encodeBoostModel(model));
    expect([...back.features]).toEqual([...model.features]);
    expect([...back.deltas]).toEqual([...model.deltas]);
    expect(back.chosenRounds).toBe(30);
    expect(back.a0).toBe(model.a0);
    const bytes = encodeBoostModel(model);
    expect(() => decodeBoostModel(bytes.subarray(0, bytes.length - 3))).toThrow(/truncated/);
  });

  it('LogLoss feature selection lowers the log loss', async () => {
    const data = await syntheticRerankData({ ...small, sentences: 60, features: 200, seed: 9 });
    const { model } = await trainBoost(data, { rounds: 15, method: 'logloss' });
    expect(model.features.length).toBe(15);
    expect(model.a0).toBe(1);
    expect(model.losses[14]).toBeLessThan(model.initialLoss);
  });

  it('the log-linear reranker beats the base model on its training set', async () => {
    const data = await syntheticRerankData({ ...small, seed: 10 });
    const seen: Array<[number, number]> = [];
    const r = await trainLoglinear(data, {
      l2: 0.1,
      maxIterations: 60,
      onIteration: (it, objective) => seen.push([it, objective]),
    });
    expect(r.iterations).toBeGreaterThan(1);
    // Progress reports come from a poll, so not every iteration is seen, but the last one is.
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i][0]).toBeGreaterThan(seen[i - 1][0]);
    expect(seen[seen.length - 1][0]).toBe(r.iterations);
    expect(seen[seen.length - 1][1]).toBeCloseTo(r.objective, 6);
    const base = chosenScore(data, 1, new Float64Array(data.numFeatures));
    expect(chosenScore(data, r.a0, r.weights)).toBeGreaterThan(base);
  });

  it('accepts typed arrays, sorts rows, validates ids, and honours AbortSignal', async () => {
    const d = await rerankData({
      sentencePtr: new Float64Array([0, 2, 3]),
      logprob: new Float64Array([-1, -2, -3]),
      score: new Float64Array([5, 10, 1]),
      rowPtr: new Float64Array([0, 2, 3, 4]),
      cols: new Int32Array([2, 0, 1, 1]),
      numFeatures: 3,
    });
    expect(d.arrays().cols).toEqual(new Int32Array([0, 2, 1, 1]));
    await expect(
      rerankData({
        sentencePtr: new Float64Array([0, 1]),
        logprob: new Float64Array([0]),
        rowPtr: new Float64Array([0, 1]),
        cols: new Int32Array([7]),
        numFeatures: 3,
      }),
    ).rejects.toThrow(/column id 7 outside \[0, 3/);
    // Offsets that do not fit cols are refused before any work is queued.
    expect(() =>
      rerankData({
        sentencePtr: new Float64Array([0, 1]),
        logprob: new Float64Array([0]),
        rowPtr: new Float64Array([0, 2]),
        cols: new Int32Array([1]),
        numFeatures: 3,
      }),
    ).toThrow(/rowPtr does not match cols/);
    const data = await syntheticRerankData({ ...small, seed: 11 });
    const ac = new AbortController();
    ac.abort();
    await expect(trainBoost(data, { rounds: 100, signal: ac.signal })).rejects.toThrow(/abort/i);
  });

  it('sorts and validates large lists off the JS thread: the event loop runs meanwhile', async () => {
    // 200,000 candidates of 20 ids in descending order: sorting them takes tens of ms.
    const candidates = 200_000,
      perRow = 20;
    const cols = Int32Array.from({ length: candidates * perRow }, (_, k) => perRow - 1 - (k % perRow));
    const pending = rerankData({
      sentencePtr: Float64Array.from({ length: candidates / 10 + 1 }, (_, i) => i * 10),
      logprob: new Float64Array(candidates),
      score: new Float64Array(candidates),
      rowPtr: Float64Array.from({ length: candidates + 1 }, (_, c) => c * perRow),
      cols,
      numFeatures: perRow,
    });
    let ticked = false;
    setImmediate(() => (ticked = true));
    const d = await pending;
    expect(ticked).toBe(true);
    expect(d.candidates).toBe(candidates);
    expect(Array.from(d.arrays().cols.subarray(0, perRow))).toEqual(Array.from({ length: perRow }, (_, k) => k));
  });
});
