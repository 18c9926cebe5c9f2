import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { boostWeights, chosenScore, syntheticRerankData } from '../../lib/rerank/boost.js';
import { loadReranker, saveReranker } from '../../lib/rerank/reranker.js';
import { rerankerTrainers } from '../../lib/rerank/trainers.js';
import { LOGLINEAR_C, LOGLINEAR_C_GRID } from '../../lib/options/rerank.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const small = {
  sentences: 150,
  candidatesPerSentence: 8,
  features: 500,
  sharedPerSentence: 30,
  privatePerCandidate: 6,
  threads: 2,
};

/** The data restricted to the model's compact feature ids (names are the original ids). */
function compactScore(
  data: Awaited<ReturnType<typeof syntheticRerankData>>,
  a0: number,
  names: string[],
  weights: Float64Array,
): number {
  const dense = new Float64Array(data.numFeatures);
  names.forEach((n, i) => (dense[Number(n)] = weights[i]));
  return chosenScore(data, a0, dense);
}

describe('reranker model files', () => {
  for (const method of ['boost', 'logloss', 'loglinear']) {
    it(`${method}: trains, chooses on dev, and round-trips through a file`, async () => {
      const train = await syntheticRerankData({ ...small, seed: 21 });
      const dev = await syntheticRerankData({ ...small, sentences: 60, seed: 22 });
      const dictionary = Array.from({ length: train.numFeatures }, (_, k) => String(k));
      const model = await rerankerTrainers[method]({
        train,
        dev,
        dictionary,
        options: {
          rounds: method === 'logloss' ? 10 : method === 'loglinear' ? 30 : 400,
          eps: [0.001, 0.005],
          l2: [0.1, 1],
          progress: false,
          devStep: 20,
        },
      });
      expect(model.method).toBe(method);
      expect(model.info.devScore).toBeCloseTo(compactScore(dev, model.a0, model.names, model.weights), 6);
      const f = tmp.file(`${method}.model`);
      saveReranker(f, model);
      const back = loadReranker(f);
      expect(back.names).toEqual(model.names);
      expect([...back.weights]).toEqual([...model.weights]);
      expect(back.a0).toBe(model.a0);
      expect(back.info).toEqual(model.info);
      if (method !== 'loglinear') {
        expect(back.rounds?.chosenRounds).toBe(model.info.rounds);
        // The saved rounds reproduce the saved weights.
        const w = boostWeights(back.rounds!, back.rounds!.chosenRounds);
        w.forEach((v, i) => expect(v).toBeCloseTo(back.weights[i], 12));
      }
      const bytes = readFileSync(f);
      bytes[bytes.length - 40] ^= 1;
      writeFileSync(f, bytes);
      expect(() => loadReranker(f)).toThrow(/checksum|corrupt/);
    });
  }

  it('boost picks eps and N that maximize the dev score', async () => {
    const train = await syntheticRerankData({ ...small, seed: 23 });
    const dev = await syntheticRerankData({ ...small, sentences: 60, seed: 24 });
    const dictionary = Array.from({ length: train.numFeatures }, (_, k) => String(k));
    const one = async (eps: number) =>
      rerankerTrainers.boost({
        train,
        dev,
        dictionary,
        options: { rounds: 300, eps: [eps], progress: false, devStep: 10 },
      });
    const both = await rerankerTrainers.boost({
      train,
      dev,
      dictionary,
      options: { rounds: 300, eps: [0.0005, 0.02], progress: false, devStep: 10 },
    });
    const a = await one(0.0005);
    const b = await one(0.02);
    expect(both.info.devScore).toBe(Math.max(Number(a.info.devScore), Number(b.info.devScore)));
  });

  it('loglinear tries the default grid of C on dev, and C = LOGLINEAR_C without dev', async () => {
    const train = await syntheticRerankData({ ...small, seed: 25 });
    const dev = await syntheticRerankData({ ...small, sentences: 60, seed: 26 });
    const dictionary = Array.from({ length: train.numFeatures }, (_, k) => String(k));
    const options = { rounds: 30, progress: false };
    const grid = await rerankerTrainers.loglinear({ train, dev, dictionary, options });
    const alone = await Promise.all(
      LOGLINEAR_C_GRID.map((c) =>
        rerankerTrainers.loglinear({ train, dev, dictionary, options: { ...options, l2: [c] } }),
      ),
    );
    const scores = alone.map((m) => Number(m.info.devScore));
    expect(grid.info.devScore).toBe(Math.max(...scores));
    expect(grid.info.l2).toBe(LOGLINEAR_C_GRID[scores.indexOf(Math.max(...scores))]);
    const noDev = await rerankerTrainers.loglinear({ train, dictionary, options });
    expect(noDev.info.l2).toBe(LOGLINEAR_C);
  });
});
