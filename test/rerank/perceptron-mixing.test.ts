/**
 * Iterative parameter mixing of the perceptron rerankers, in process (the queue form is in
 * test/distributed/distributed-train.test.ts): one shard for one epoch is the ordinary perceptron, the
 * primal and dual forms mix to the same decisions, and a mixed model (explicit real
 * coefficients) saves, loads and refuses what it cannot do.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readNbestSync, type NbestSentence } from '../../lib/io/nbest.js';
import { PerceptronReranker, type PerceptronTrainOptions } from '../../lib/rerank/perceptron.js';
import { rerankerMixing } from '../../lib/distributed/rerank-mixing.js';
import type { MixWeighting } from '../../lib/distributed/mixing.js';
import { randomFeatureNbest } from './perceptron-helpers.js';
import { repoRoot, tempDir } from '../helpers.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'perceptron');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const mixing = (shards: number, weighting: MixWeighting = 'uniform', seed = 1): PerceptronTrainOptions['mixing'] =>
  rerankerMixing({ shards, weighting, seed, threads: 1 });

/** A model's coefficients by training candidate id (last = 0, averaged = 1). */
function coefficients(r: PerceptronReranker, mode: number): Map<number, number> {
  const ids = r.handle.supportIds();
  const coef = r.handle.coefficients(mode);
  const out = new Map<number, number>();
  ids.forEach((id, k) => {
    if (coef[k] !== 0) out.set(id, coef[k]);
  });
  return out;
}

describe('perceptron reranker: iterative parameter mixing', () => {
  const cases: [string, NbestSentence[], PerceptronTrainOptions][] = [
    ['tree kernel', readNbestSync(join(fixtures, 'tiny-trees.jsonl')), {}],
    ['tagging kernel', readNbestSync(join(fixtures, 'tiny-tags.jsonl')), {}],
    ['linear kernel, primal', randomFeatureNbest(80, 7), { kernel: 'linear' }],
    [
      'linear kernel, dual, beta and a base weight',
      randomFeatureNbest(80, 7),
      { kernel: 'linear', primal: false, beta: 0.5, baseWeight: 0.25 },
    ],
  ];
  for (const [name, train, extra] of cases) {
    it(`one shard, one epoch: the ordinary perceptron's last and averaged coefficients (${name})`, async () => {
      const plain = await PerceptronReranker.train(train, { ...extra, epochs: 1, threads: 1 });
      const mixed = await PerceptronReranker.train(train, { ...extra, epochs: 1, threads: 1, mixing: mixing(1) });
      expect(plain.info().mistakes).toBeGreaterThan(0);
      for (const mode of [0, 1]) expect(coefficients(mixed, mode)).toEqual(coefficients(plain, mode));
      expect(Array.from(await mixed.rerank(train))).toEqual(Array.from(await plain.rerank(train)));
    });
  }

  it('primal and dual forms mix to the same coefficients and decisions (linear kernel)', async () => {
    const train = randomFeatureNbest(120, 3);
    const test = randomFeatureNbest(60, 11);
    for (const weighting of ['uniform', 'updates'] as const) {
      const primal = await PerceptronReranker.train(train, {
        kernel: 'linear',
        epochs: 4,
        threads: 1,
        mixing: mixing(3, weighting),
      });
      const dual = await PerceptronReranker.train(train, {
        kernel: 'linear',
        primal: false,
        epochs: 4,
        threads: 1,
        mixing: mixing(3, weighting),
      });
      // Integer features and dyadic shares keep both sums exact here.
      for (const mode of [0, 1]) expect(coefficients(dual, mode)).toEqual(coefficients(primal, mode));
      for (const prediction of ['last', 'averaged'] as const) {
        expect(Array.from(await dual.rerank(test, { prediction }))).toEqual(
          Array.from(await primal.rerank(test, { prediction })),
        );
      }
    }
  });

  it('is deterministic; the weightings and shard counts are different algorithms', async () => {
    const train = randomFeatureNbest(120, 5);
    const bytes = async (o: PerceptronTrainOptions): Promise<Buffer> =>
      Buffer.from((await PerceptronReranker.train(train, { kernel: 'linear', epochs: 3, threads: 1, ...o })).toBytes());
    const a = await bytes({ mixing: mixing(3) });
    expect((await bytes({ mixing: mixing(3) })).equals(a)).toBe(true);
    expect((await bytes({ mixing: mixing(3), threads: 2 })).equals(a)).toBe(true);
    expect((await bytes({ mixing: mixing(3, 'updates') })).equals(a)).toBe(false);
    expect((await bytes({ mixing: mixing(2) })).equals(a)).toBe(false);
  });

  it('a mixed model saves and loads with its coefficients, has no voted prediction, refuses chunks and checkpoints', async () => {
    const train = readNbestSync(join(fixtures, 'tiny-trees.jsonl'));
    const model = await PerceptronReranker.train(train, { epochs: 3, threads: 1, mixing: mixing(2) });
    const file = join(tmp.dir, 'mixed.model');
    model.save(file);
    const loaded = await PerceptronReranker.load(file);
    expect(Buffer.from(loaded.toBytes()).equals(Buffer.from(model.toBytes()))).toBe(true);
    for (const prediction of ['last', 'averaged'] as const) {
      expect(Array.from((await loaded.choose(train, { prediction })).scores)).toEqual(
        Array.from((await model.choose(train, { prediction })).scores),
      );
    }
    await expect(loaded.choose(train, { prediction: 'voted' })).rejects.toThrow(
      /parameter-mixed model has no voted prediction/,
    );
    await expect(PerceptronReranker.train(train, { prediction: 'voted', mixing: mixing(2) })).rejects.toThrow(
      /parameter mixing has no voted prediction/,
    );
    await expect(PerceptronReranker.train(train, { chunks: 2, mixing: mixing(2) })).rejects.toThrow(
      /parameter mixing has no chunks/,
    );
    await expect(
      PerceptronReranker.train(train, { checkpoint: join(tmp.dir, 'c'), mixing: mixing(2) }),
    ).rejects.toThrow(/parameter mixing has no checkpoints/);
  });
});
