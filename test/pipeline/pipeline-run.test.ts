import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validatePipelineConfig } from '../../lib/pipeline/config.js';
import { runPipeline } from '../../lib/pipeline/run.js';
import { foldRange } from '../../lib/pipeline/data.js';
import { oracleChoice, relativeErrorReduction, scoreSet } from '../../lib/pipeline/evaluate.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { fakeComponents, tinyNerCorpus, type FakeCalls } from './pipeline-fakes.js';
import type { ComponentFactory } from '../../lib/pipeline/components.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function tinyConfig(name: string, extra: object = {}) {
  const train = tmp.file(`${name}-train.txt`, tinyNerCorpus(40, 1));
  const dev = tmp.file(`${name}-dev.txt`, tinyNerCorpus(12, 2));
  const test = tmp.file(`${name}-test.txt`, tinyNerCorpus(12, 3));
  return validatePipelineConfig(
    {
      task: 'tag',
      data: { train, dev, test, columns: ['word', 'pos', 'ne'], label: 'ne' },
      folds: 4,
      nbest: 4,
      rerankers: [{ type: 'boost', name: 'context', rounds: 10 }],
      output: join(tmp.dir, `${name}-out`),
      ...extra,
    },
    'pipeline.json',
    tmp.dir,
  );
}

describe('pipeline orchestration (tiny tagging corpus, stand-in components)', () => {
  it('jackknifes train, scores base/oracle/reranker on test and caches every step', async () => {
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const seen: number[] = [];
    const devSeen: (number | undefined)[] = [];
    const config = tinyConfig('e2e');
    const r = await runPipeline(config, {
      components: fakeComponents(calls, (s, _ctx, dev) => {
        seen.push(s.length);
        devSeen.push(dev?.length);
      }),
    });
    // 4 fold models on 3/4 of train each, then one on all 40; each may choose its stop on dev.
    expect(calls.trains).toBe(5);
    expect(seen).toEqual([30, 30, 30, 30, 40]);
    expect(devSeen).toEqual([12, 12, 12, 12, 12]);
    expect(r.sizes).toMatchObject({ train: 40, dev: 12, test: 12, folds: 4, nbest: 4 });
    const [base, oracle, rr] = r.systems;
    expect(base.kind).toBe('base');
    expect(oracle.testF1).toBeGreaterThanOrEqual(base.testF1);
    expect(oracle.testF1).toBe(100);
    // The ambiguous words are all tagged by the majority, so the base makes errors the context fixes.
    expect(base.testF1).toBeLessThan(100);
    expect(rr.name).toBe('context');
    expect(rr.testF1).toBeGreaterThan(base.testF1);
    expect(rr.errorReduction).toBeCloseTo(relativeErrorReduction(rr.testF1, base.testF1), 10);
    expect(r.curves[0].series[0].x).toEqual([0, 0.5, 5]);
    expect(r.steps.map((s) => s.name)).toEqual([
      'train-fold1of4',
      'train-fold2of4',
      'train-fold3of4',
      'train-fold4of4',
      'dev-test',
      'rerank-context',
    ]);
    expect(r.steps.every((s) => !s.cached)).toBe(true);
    expect(existsSync(join(config.output, 'results.json'))).toBe(true);

    // The jackknifed candidates of fold 2 are those of its own sentences, in order, with their gold.
    const foldDir = readdirSync(config.cache).find((d) => d.startsWith('train-fold2of4-')) as string;
    const fold = readNbestSync(join(config.cache, foldDir, 'nbest.jsonl'));
    const [lo, hi] = foldRange(40, 4, 1);
    expect(fold.map((s) => s.id)).toEqual(Array.from({ length: hi - lo }, (_, i) => `train.${lo + i + 1}`));
    expect(fold.every((s) => Array.isArray(s.gold))).toBe(true);

    // A rerun recomputes nothing and gives the same table.
    const again = await runPipeline(config, { components: fakeComponents(calls) });
    expect(calls.trains).toBe(5);
    expect(calls.rerankerTrains).toBe(1);
    expect(again.steps.every((s) => s.cached)).toBe(true);
    expect(again.systems.map((s) => s.testF1)).toEqual(r.systems.map((s) => s.testF1));
  });

  it('resumes after an abort in the middle: finished folds are not recomputed', async () => {
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const config = tinyConfig('resume');
    const controller = new AbortController();
    // Abort while the third fold's model trains.
    const hook = (): void => {
      if (calls.trains === 3) controller.abort();
    };
    const components = fakeComponents(calls, hook);
    const wrapped = {
      base: (c: typeof config) => {
        const b = components.base(c);
        return {
          name: b.name,
          async train(s: Parameters<typeof b.train>[0], ctx: Parameters<typeof b.train>[1]) {
            const m = await b.train(s, ctx);
            if (ctx.signal?.aborted)
              throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
            return m;
          },
        };
      },
      reranker: components.reranker,
    };
    await expect(runPipeline(config, { components: wrapped, signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(calls.trains).toBe(3);
    const names = readdirSync(config.cache);
    expect(
      names
        .filter((n) => !n.endsWith('.partial'))
        .map((n) => n.replace(/-[0-9a-f]{16}$/, ''))
        .sort(),
    ).toEqual(['train-fold1of4', 'train-fold2of4']);

    const after: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const r = await runPipeline(config, { components: fakeComponents(after) });
    // Folds 3 and 4 and the full model: three trainings, folds 1-2 come from the cache.
    expect(after.trains).toBe(3);
    expect(r.steps.map((s) => s.cached)).toEqual([true, true, false, false, false, false]);
    expect(readdirSync(config.cache).some((n) => n.endsWith('.partial'))).toBe(false);
  });

  it('a changed option reruns only the steps it affects', async () => {
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const config = tinyConfig('change');
    await runPipeline(config, { components: fakeComponents(calls) });
    expect(calls.trains).toBe(5);
    const changed = { ...config, rerankers: [{ ...config.rerankers[0], rounds: 20 }] };
    const r = await runPipeline(changed, { components: fakeComponents(calls) });
    expect(calls.trains).toBe(5);
    expect(calls.rerankerTrains).toBe(2);
    expect(r.steps.map((s) => s.cached)).toEqual([true, true, true, true, true, false]);
  });

  it("a cluster text's content is part of the candidate steps' keys", async () => {
    // A stand-in parse base whose one candidate is the gold tree: only the keys are under test.
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const components: ComponentFactory = {
      base: () => ({
        name: 'gold trees',
        async train() {
          calls.trains++;
          return {
            async nbest(sentences) {
              return sentences.map((s) => ({ ...s, line: 0, candidates: [{ tree: s.gold as string, logprob: 0 }] }));
            },
          };
        },
      }),
      reranker: () => {
        throw new Error('no rerankers');
      },
    };
    const trees = tmp.file('trees.mrg', '(S (NP (DT the) (NN dog)) (VP (VBZ barks)))\n'.repeat(8));
    const text = tmp.file('cluster.txt', 'the cat sleeps\n');
    const config = validatePipelineConfig(
      {
        task: 'parse',
        data: { train: trees, dev: trees, test: trees },
        folds: 2,
        base: { clusterText: 'cluster.txt' },
        rerankers: [],
        output: join(tmp.dir, 'clusters-out'),
      },
      'pipeline.json',
      tmp.dir,
    );
    const cachedSteps = async (): Promise<boolean[]> =>
      (await runPipeline(config, { components })).steps.map((s) => s.cached);
    expect(await cachedSteps()).toEqual([false, false, false]);
    expect(await cachedSteps()).toEqual([true, true, true]);
    writeFileSync(text, 'the dog sleeps\n');
    expect(await cachedSteps()).toEqual([false, false, false]);
    expect(calls.trains).toBe(6);
    // A missing text: one error naming it, before any training.
    rmSync(text);
    await expect(runPipeline(config, { components })).rejects.toThrow(`${text}: no such file (base.clusterText)`);
    expect(calls.trains).toBe(6);
  });

  it('the oracle picks the highest Score and breaks ties by L(x)', () => {
    const set = scoreSet([
      {
        id: 'a',
        tokens: ['x', 'y'],
        gold: ['B-PER', 'O'],
        line: 0,
        candidates: [
          { tags: ['O', 'O'], logprob: -1 },
          { tags: ['B-PER', 'O'], logprob: -3 },
          { tags: ['B-PER', 'O'], logprob: -2 },
        ],
      },
      { id: 'b', tokens: ['x'], gold: ['O'], line: 0, candidates: [{ tags: ['O'], logprob: -1 }] },
    ]);
    expect(set.scores[0]).toEqual([-50, 0, 0]); // Score = -50 x (missed + invented)
    expect(oracleChoice(set)).toEqual([2, 0]);
  });
});

describe('pipeline with a reranker that is not available', () => {
  it('lists it as not available and still runs the others', async () => {
    const { ComponentUnavailable } = await import('../../lib/pipeline/components.js');
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const config = tinyConfig('missing', {
      rerankers: [
        { type: 'perceptron', name: 'kernel' },
        { type: 'boost', name: 'context' },
      ],
    });
    const fakes = fakeComponents(calls);
    const r = await runPipeline(config, {
      components: {
        base: fakes.base,
        reranker: (rc, p) =>
          rc.type === 'perceptron'
            ? {
                name: rc.name,
                train: async () => {
                  throw new ComponentUnavailable(
                    'the tree-kernel perceptron',
                    `reranker '${rc.name}'`,
                    'unsupported kernel',
                  );
                },
              }
            : fakes.reranker(rc, p),
      },
    });
    expect(r.unavailable).toEqual([
      {
        name: 'kernel',
        why: "reranker 'kernel': the tree-kernel perceptron is not available yet (unsupported kernel)",
      },
    ]);
    expect(r.systems.map((s) => s.name)).toEqual(['base (frequency tagger)', 'oracle', 'context']);
  });
});
