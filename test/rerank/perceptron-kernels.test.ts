import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { dualTreeScores } from '../../lib/rerank/perceptron-forest.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { repoRoot } from '../helpers.js';
import { syntheticNbest } from '../../bench/nbest-synthetic.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'perceptron');
const trees = readNbestSync(join(fixtures, 'tiny-trees.jsonl'));
const tags = readNbestSync(join(fixtures, 'tiny-tags.jsonl'));

function close(a: ArrayLike<number>, b: ArrayLike<number>, rel = 1e-9): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++)
    expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(b[i])));
}

/** Shared-suffix scoring and one kernel call per pair give the same scores and choices. */
async function expectScoringPathsAgree(r: PerceptronReranker): Promise<void> {
  for (const prediction of ['last', 'averaged', 'voted'] as const) {
    const a = await r.choose(tags, { prediction });
    const b = await r.choose(tags, { prediction, compressed: false, threads: 1 });
    close(a.scores, b.scores);
    expect([...a.chosen]).toEqual([...b.chosen]);
  }
}

describe('perceptron with tree and tagging kernels', () => {
  it('the tree and tagging kernels learn the tiny n-best files', async () => {
    for (const [data, kernel] of [
      [trees, 'tree'],
      [tags, 'tags'],
    ] as const) {
      const r = await PerceptronReranker.train(data, { kernel, epochs: 4, beta: 0.1, threads: 2 });
      expect(r.info().kernel).toBe(kernel);
      const e = await r.evaluate(data, { prediction: 'voted' });
      expect(e.f1).toBeGreaterThan(e.baselineF1);
    }
  });

  it('compressed (DAG) and uncompressed tree models give equal scores', async () => {
    const golds = readTreesSync(join(repoRoot, 'data', 'gum-open', 'dev.mrg')).slice(0, 60);
    const nbest = syntheticNbest(golds, { candidates: 6, seed: 4 });
    const r = await PerceptronReranker.train(nbest.slice(0, 40), {
      kernel: 'tree',
      lambda: 0.4,
      beta: 0.05,
      epochs: 2,
      chunks: 2,
    });
    expect(r.info().support).toBeGreaterThan(10);
    const prepared = r.prepare(nbest.slice(40));
    for (const prediction of ['last', 'averaged'] as const) {
      const a = await r.choose(prepared, { prediction, compressed: true });
      const b = await r.choose(prepared, { prediction, compressed: false, threads: 1 });
      close(a.scores, b.scores);
      expect([...a.chosen]).toEqual([...b.chosen]);
    }
    const support = nbest.flatMap((s) => s.candidates.map((c) => parseTree(c.tree as string))).slice(0, 150);
    const coef = support.map((_, i) => ((i * 7) % 5) - 2);
    const query = support.slice(0, 40);
    const direct = await dualTreeScores(support, coef, query, { compressed: false });
    const dag = await dualTreeScores(support, coef, query, { compressed: true });
    close(dag.scores, direct.scores);
    expect(dag.dagNodes).toBeLessThan(dag.forestNodes);
  });

  it('tagging-kernel models: shared-suffix scoring equals kernel calls; a base weight is kept and a huge one keeps the base choice', async () => {
    const r = await PerceptronReranker.train(tags, { kernel: 'tags', lambda: 0.5, beta: 0.1, epochs: 3 });
    const plain = await PerceptronReranker.train(tags, {
      kernel: 'tags',
      lambda: 0.5,
      beta: 0.1,
      epochs: 3,
      compressed: false,
    });
    expect(r.info()).toEqual(plain.info());
    await expectScoringPathsAgree(r);
    const prior = await PerceptronReranker.train(tags, { kernel: 'tags', baseWeight: 1e6, epochs: 2 });
    expect(prior.info().baseWeight).toBe(1e6);
    expect(prior.meta.baseWeight).toBe(1e6);
    const top = tags.map((s) =>
      s.candidates.reduce((best, c, i) => (c.logprob > s.candidates[best].logprob ? i : best), 0),
    );
    for (const prediction of ['averaged', 'voted'] as const)
      expect([...(await prior.choose(tags, { prediction })).chosen]).toEqual(top);
  });

  it('the normalized tagging kernel: its scores are normalized kernel sums, in every scoring path', async () => {
    const { gram, SequenceBank } = await import('../../lib/kernels/index.js');
    const r = await PerceptronReranker.train(tags, {
      kernel: 'tags',
      lambda: 0.5,
      beta: 0.001,
      epochs: 3,
      normalize: true,
    });
    const plain = await PerceptronReranker.train(tags, {
      kernel: 'tags',
      lambda: 0.5,
      beta: 0.001,
      epochs: 3,
      normalize: true,
      compressed: false,
    });
    expect(r.meta.normalize).toBe(true);
    expect(r.info()).toEqual(plain.info());
    await expectScoringPathsAgree(r);
    // A one-mistake model scores x as K^(plus, x) - K^(minus, x), with K^ the normalized
    // kernel of the public kernel API.
    let checked = 0;
    for (const s of tags) {
      const one = await PerceptronReranker.train([s], {
        kernel: 'tags',
        lambda: 0.5,
        epochs: 1,
        normalize: true,
        prediction: 'last',
      });
      if (one.info().mistakes !== 1) continue;
      const bank = SequenceBank.fromSequences(s.candidates.map((c) => ({ words: s.tokens, tags: c.tags as string[] })));
      const k = gram(bank, { lambda: 0.5, normalize: true });
      const n = s.candidates.length;
      const { scores } = await one.choose([s], { prediction: 'last' });
      const explains = (p: number, m: number): boolean =>
        Array.from(scores).every((v, x) => Math.abs(v - (k[p * n + x] - k[m * n + x])) < 1e-9);
      expect([...Array(n).keys()].some((p) => [...Array(n).keys()].some((m) => p !== m && explains(p, m)))).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
    const raw = await PerceptronReranker.train(tags, { kernel: 'tags', lambda: 0.5, beta: 0.001, epochs: 3 });
    expect((await raw.choose(tags, { prediction: 'last' })).scores).not.toEqual(
      (await r.choose(tags, { prediction: 'last' })).scores,
    );
    await expect(PerceptronReranker.train(trees, { kernel: 'tree', normalize: true })).rejects.toThrow(
      /tagging kernel only/,
    );
  });

  it('tree, tags and normalized tags models save and load with identical choices', async () => {
    const { tempDir } = await import('../helpers.js');
    const tmp = tempDir();
    try {
      for (const [data, kernel, normalize] of [
        [trees, 'tree', false],
        [tags, 'tags', false],
        [tags, 'tags', true],
      ] as const) {
        const r = await PerceptronReranker.train(data, { kernel, epochs: 2, normalize, beta: normalize ? 0.001 : 0 });
        const f = tmp.file(`${kernel}-${normalize}.model`);
        r.save(f);
        const back = await PerceptronReranker.load(f);
        expect(back.meta.normalize ?? false).toBe(normalize);
        for (const prediction of ['averaged', 'voted'] as const) {
          const a = await r.choose(data, { prediction });
          const b = await back.choose(data, { prediction });
          expect([...b.chosen]).toEqual([...a.chosen]);
          close(b.scores, a.scores, 1e-12);
        }
      }
    } finally {
      tmp.cleanup();
    }
  });
});
