import { describe, expect, it } from 'vitest';
import { TreeBank, kernel } from '../lib/kernels/index.js';
import { KernelPerceptron, PrimalPerceptron, sparseRowsFromMaps } from '../lib/rerank/perceptron.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { dataFile } from './helpers.js';
import { rng } from './kernels-helpers.js';

const ptb = readTreesSync(dataFile('ptb-sample', 'dev.mrg'));

/** Sentence i: its own tree first (the best), then two other trees as wrong candidates. */
function candidates(start: number, sentences: number, per: number[]): { bank: TreeBank; sizes: number[] } {
  const trees = [];
  const sizes = [];
  for (let i = 0; i < sentences; i++) {
    const m = per[i % per.length];
    for (let c = 0; c < m; c++) trees.push(ptb[start + ((i + c * 7) % 120)]);
    sizes.push(m);
  }
  return { bank: TreeBank.fromTrees(trees), sizes };
}

const options = { lambda: 0.4, normalize: true };
const train = candidates(0, 30, [3, 2, 4]);
const test = candidates(60, 20, [3, 4]);
const offsets = (sizes: number[]): number[] => sizes.reduce((acc, n) => [...acc, acc[acc.length - 1] + n], [0]);

describe('dual (kernel) perceptron', () => {
  it('makes the same mistakes as a naive dual perceptron built on kernel()', async () => {
    const model = await KernelPerceptron.train(train.bank, train.sizes, options, { epochs: 3, shuffle: false });
    const begin = offsets(train.sizes);
    const k = (a: number, b: number): number => kernel(train.bank, a, train.bank, b, options);
    const support: number[] = [];
    const coef = new Map<number, number>();
    const expected: number[] = [];
    let step = 0;
    for (let epoch = 0; epoch < 3; epoch++) {
      for (let s = 0; s < train.sizes.length; s++) {
        step++;
        const score = (x: number): number => support.reduce((g, c) => (coef.get(c) ? g + (coef.get(c) as number) * k(c, x) : g), 0);
        const best = begin[s];
        let other = -1;
        let otherScore = 0;
        for (let c = best + 1; c < begin[s + 1]; c++) {
          const v = score(c);
          if (other < 0 || v > otherScore) [other, otherScore] = [c, v];
        }
        if (other < 0 || otherScore < score(best)) continue;
        expected.push(step, best, other);
        for (const [c, d] of [[best, 1], [other, -1]]) {
          if (!coef.has(c)) support.push(c);
          coef.set(c, (coef.get(c) ?? 0) + d);
        }
      }
    }
    expect(expected.length).toBeGreaterThan(0);
    expect(Array.from(model.mistakes)).toEqual(expected);
    expect(model.steps).toBe(90);
  });

  it('voted, averaged and last predictions equal naive stored-hypotheses implementations', async () => {
    const model = await KernelPerceptron.train(train.bank, train.sizes, options, { epochs: 2, seed: 5 });
    const voted = await model.predict(test.bank, test.sizes, { voting: 'voted', threads: 2 });
    const last = await model.predict(test.bank, test.sizes, { voting: 'last' });
    const averaged = await model.predict(test.bank, test.sizes, { voting: 'averaged' });
    const lastScores = await model.scores(test.bank, test.sizes, { voting: 'last' });
    const begin = offsets(test.sizes);
    const m = model.mistakes;
    const argmax = (v: number[]): number => v.reduce((arg, x, i) => (x > v[arg] ? i : arg), 0);
    for (let s = 0; s < test.sizes.length; s++) {
      const ys = Array.from({ length: test.sizes[s] }, (_, y) => begin[s] + y);
      const delta = (k: number, y: number): number => kernel(train.bank, m[k + 1], test.bank, y, options) - kernel(train.bank, m[k + 2], test.bank, y, options);
      const votes = ys.map(() => 0);
      const lastChosen = ys.map(() => -1);
      const sum = ys.map(() => 0);
      const weighted = ys.map(() => 0);
      for (let t = 1; t <= model.steps; t++) {
        const g = ys.map(() => 0);
        for (let k = 0; k < m.length && m[k] <= t; k += 3) ys.forEach((y, i) => (g[i] += delta(k, y)));
        const chosen = argmax(g);
        votes[chosen]++;
        lastChosen[chosen] = t;
        g.forEach((v, i) => (weighted[i] += v));
        if (t === model.steps) g.forEach((v, i) => (sum[i] = v));
      }
      let winner = 0;
      for (let i = 1; i < ys.length; i++) if (votes[i] > votes[winner] || (votes[i] === votes[winner] && lastChosen[i] > lastChosen[winner])) winner = i;
      expect(voted[s]).toBe(winner);
      expect(last[s]).toBe(argmax(sum));
      expect(averaged[s]).toBe(argmax(weighted));
      ys.forEach((y, i) => expect(lastScores[y]).toBeCloseTo(sum[i], 9));
    }
  }, 60_000);

  it('learns to rank the training set (each best candidate is its own tree)', async () => {
    const model = await KernelPerceptron.train(train.bank, train.sizes, options, { epochs: 5 });
    const chosen = await model.predict(train.bank, train.sizes, { voting: 'last' });
    expect(Array.from(chosen).every((c) => c === 0)).toBe(true);
  });

  it('checks its inputs and stops on abort', async () => {
    await expect(KernelPerceptron.train(train.bank, [1, 2], options)).rejects.toThrow(/add up to 3 candidates/);
    await expect(KernelPerceptron.train(train.bank, train.sizes, options, { epochs: 0 })).rejects.toThrow(/epochs/);
    await expect(KernelPerceptron.train(train.bank, train.sizes, { lambda: 2 })).rejects.toThrow(/lambda/);
    await expect(KernelPerceptron.train(train.bank, train.sizes, options, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('primal perceptron', () => {
  it('makes the same mistakes as a naive primal perceptron', async () => {
    const r = rng(3);
    const sizes = Array.from({ length: 40 }, () => 1 + Math.floor(r() * 4));
    const rows = sizes.flatMap((n) => Array.from({ length: n }, () => Object.fromEntries(Array.from({ length: 3 }, () => [`f${Math.floor(r() * 8)}`, 1 + Math.floor(r() * 3)]))));
    const features = sparseRowsFromMaps(rows);
    const model = await PrimalPerceptron.train(features, sizes, { epochs: 3, shuffle: false });
    const w = new Map<string, number>();
    const dot = (row: Record<string, number>): number => Object.entries(row).reduce((s, [f, v]) => s + (w.get(f) ?? 0) * v, 0);
    const expected: number[] = [];
    const begin = offsets(sizes);
    let step = 0;
    for (let e = 0; e < 3; e++) {
      for (let s = 0; s < sizes.length; s++) {
        step++;
        let other = -1;
        let otherScore = 0;
        for (let c = begin[s] + 1; c < begin[s + 1]; c++) {
          const v = dot(rows[c]);
          if (other < 0 || v > otherScore) [other, otherScore] = [c, v];
        }
        if (other < 0 || otherScore < dot(rows[begin[s]])) continue;
        expected.push(step, begin[s], other);
        for (const [f, v] of Object.entries(rows[begin[s]])) w.set(f, (w.get(f) ?? 0) + v);
        for (const [f, v] of Object.entries(rows[other])) w.set(f, (w.get(f) ?? 0) - v);
      }
    }
    expect(expected.length).toBeGreaterThan(0);
    expect(Array.from(model.mistakes)).toEqual(expected);
    for (const [f, id] of features.names) expect(model.weights[id]).toBe(w.get(f) ?? 0);
  });
});
