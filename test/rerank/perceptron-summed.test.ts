import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { loadModel, saveModel } from '../../lib/io/model-file.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { validatePipelineConfig } from '../../lib/pipeline/config.js';
import { sentenceFeatures } from '../../lib/rerank/nbest-features.js';
import { FeatureDictionary } from '../../lib/rerank/perceptron-features.js';
import {
  RowCollector,
  summedFeatureRows,
  summedFeatureRowsSync,
  trainingFeatureRows,
} from '../../lib/rerank/perceptron-summed.js';
import { candidateFeatureIds } from '../../lib/rerank/candidate-feature-ids.js';
import { learnListSettings } from '../../lib/rerank/tree-settings.js';
import { repoRoot, tempDir } from '../helpers.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'perceptron');
const trees = readNbestSync(join(fixtures, 'tiny-trees.jsonl'));
const tags = readNbestSync(join(fixtures, 'tiny-tags.jsonl'));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('kernel perceptrons plus reranking features', () => {
  it('with weight 0 is the tree kernel; with a weight the features change the scores', async () => {
    const common = { kernel: 'tree' as const, epochs: 3, threads: 1, prediction: 'averaged' as const };
    const plain = await PerceptronReranker.train(trees, common);
    const zero = await PerceptronReranker.train(trees, { ...common, featureWeight: 0 });
    const summed = await PerceptronReranker.train(trees, { ...common, featureWeight: 0.5 });
    expect(summed.info().kernel).toBe('tree');
    expect(summed.info().featureWeight).toBe(0.5);
    expect(plain.info().featureWeight).toBeUndefined();
    expect(summed.meta.treeSettings?.headRules.name).toMatch(/^collins/);
    expect([...(await zero.choose(trees)).scores]).toEqual([...(await plain.choose(trees)).scores]);
    expect([...(await summed.choose(trees)).scores]).not.toEqual([...(await plain.choose(trees)).scores]);
    const e = await summed.evaluate(trees);
    expect(e.f1).toBeGreaterThan(e.baselineF1);
    // A second weight on the same lists reuses their extracted rows; the same weight again gives the same model.
    const again = await PerceptronReranker.train(trees, { ...common, featureWeight: 0.5 });
    expect(Buffer.from(again.toBytes()).equals(Buffer.from(summed.toBytes()))).toBe(true);
    expect(again.meta).toEqual(summed.meta);
  });

  it('adds the tag-sequence features to the tagging kernel the same way', async () => {
    const common = { kernel: 'tags' as const, epochs: 3, threads: 1, prediction: 'averaged' as const };
    const plain = await PerceptronReranker.train(tags, common);
    const zero = await PerceptronReranker.train(tags, { ...common, featureWeight: 0 });
    const summed = await PerceptronReranker.train(tags, { ...common, featureWeight: 0.5 });
    expect(summed.info()).toMatchObject({ kernel: 'tags', featureWeight: 0.5 });
    expect(summed.meta.treeSettings).toBeUndefined();
    expect([...(await zero.choose(tags)).scores]).toEqual([...(await plain.choose(tags)).scores]);
    const scores = [...(await summed.choose(tags)).scores];
    expect(scores).not.toEqual([...(await plain.choose(tags)).scores]);
    const f = tmp.file('tags-summed.model');
    summed.save(f);
    const back = await PerceptronReranker.load(f);
    for (const prediction of ['last', 'averaged', 'voted'] as const) {
      const a = await summed.choose(tags, { prediction });
      expect([...(await back.choose(tags, { prediction })).scores]).toEqual([...a.scores]);
      expect([...(await back.choose(back.prepare(tags), { prediction })).scores]).toEqual([...a.scores]);
    }
  });

  it('reports the feature extraction as its own progress phase, then the examples', async () => {
    const events: Array<{ phase: string; done: number; total?: number }> = [];
    const fresh = trees.map((s) => ({ ...s })); // not the cached lists: the extraction runs
    await PerceptronReranker.train(
      fresh,
      { kernel: 'tree', featureWeight: 1, threads: 1 },
      { onProgress: (p) => events.push(p) },
    );
    const phases = [...new Set(events.map((e) => e.phase))];
    expect(phases).toEqual(['sentence', 'example']);
    expect(events.find((e) => e.phase === 'sentence')).toMatchObject({ done: trees.length, total: trees.length });
  });

  it('saves and loads; prepared and async-extracted queries score alike', async () => {
    const r = await PerceptronReranker.train(trees, {
      kernel: 'tree',
      epochs: 3,
      threads: 1,
      featureWeight: 2,
      prediction: 'voted',
    });
    const f = tmp.file('summed.model');
    r.save(f);
    const back = await PerceptronReranker.load(f);
    expect(back.meta).toEqual(r.meta);
    const file = loadModel<Record<string, unknown>>(f, 'perceptron-reranker');
    delete file.meta.treeSettings;
    saveModel(tmp.file('no-settings.model'), file);
    await expect(PerceptronReranker.load(tmp.file('no-settings.model'))).rejects.toThrow(
      /no-settings\.model: .*lacks their settings or names/,
    );
    for (const prediction of ['last', 'averaged', 'voted'] as const) {
      const a = await r.choose(trees, { prediction });
      const b = await back.choose(trees, { prediction });
      const c = await back.choose(back.prepare(trees), { prediction });
      expect([...b.chosen]).toEqual([...a.chosen]);
      expect([...b.scores]).toEqual([...a.scores]);
      expect([...c.scores]).toEqual([...a.scores]);
    }
  });

  it('numbers features in sentence order whatever order worker threads deliver them in', () => {
    const settings = learnListSettings(trees)?.settings;
    const features = trees.map((s) => sentenceFeatures(s, { settings }));
    const collect = (order: number[]): { rows: ReturnType<RowCollector['build']>; names: string[] } => {
      const dictionary = new FeatureDictionary();
      const c = new RowCollector(trees.length, dictionary);
      for (const i of order) c.add(i, features[i]);
      return { rows: c.build(), names: dictionary.names };
    };
    const inOrder = collect(trees.map((_, i) => i));
    const reversed = collect(trees.map((_, i) => trees.length - 1 - i));
    expect(inOrder.names.length).toBeGreaterThan(50);
    expect(reversed.names).toEqual(inOrder.names);
    expect([...reversed.rows.cols]).toEqual([...inOrder.rows.cols]);
    expect([...reversed.rows.rowPtr]).toEqual([...inOrder.rows.rowPtr]);
    // A frozen dictionary keeps its ids and drops names it has not seen.
    const frozen = new FeatureDictionary(inOrder.names.slice(0, 10));
    frozen.frozen = true;
    const c = new RowCollector(trees.length, frozen);
    features.forEach((f, i) => c.add(i, f));
    expect(Math.max(...c.build().cols)).toBeLessThan(10);
    expect(frozen.size).toBe(10);
  });

  it('takes the rows from the extraction the other rerankers share, numbered as if extracted alone', async () => {
    for (const [list, settings] of [
      [trees, learnListSettings(trees)?.settings],
      [tags, undefined],
    ] as const) {
      // Another list interns the same names first, in another order: the shared ids differ from the perceptron's.
      const reversed = [...list].reverse();
      await candidateFeatureIds(reversed, settings, { file: '<reversed>', threads: 1 });
      const shared = await candidateFeatureIds(list, settings, { file: '<list>', threads: 1 });
      expect(await candidateFeatureIds(list, settings, { file: '<list>', threads: 1 })).toBe(shared);
      const alone = new FeatureDictionary();
      const expected = summedFeatureRowsSync(list, settings, alone);
      const { dictionary, rows } = await trainingFeatureRows(list, settings, { file: '<list>', threads: 1 });
      expect(dictionary.names).toEqual(alone.names);
      expect([...rows.cols]).toEqual([...expected.cols]);
      expect([...rows.rowPtr]).toEqual([...expected.rowPtr]);
      expect(shared.cols.length).toBe(expected.cols.length);
      // A frozen dictionary (choosing on dev and test) drops the names it has not seen.
      const frozen = new FeatureDictionary(alone.names.filter((_, i) => i % 3 === 0));
      frozen.frozen = true;
      const sync = summedFeatureRowsSync(list, settings, frozen);
      const fromShared = await summedFeatureRows(list, settings, frozen, { file: '<list>', threads: 1 });
      expect([...fromShared.cols]).toEqual([...sync.cols]);
      expect([...fromShared.rowPtr]).toEqual([...sync.rowPtr]);
      expect(sync.cols.length).toBeLessThan(expected.cols.length);
    }
  });

  it('refuses features outside the tree kernel, negative weights and parameter mixing', async () => {
    await expect(PerceptronReranker.train(tags, { kernel: 'linear', featureWeight: 1 })).rejects.toThrow(
      /featureWeight: reranking features are added to the tree or tagging kernel/,
    );
    await expect(PerceptronReranker.train(trees, { kernel: 'tree', featureWeight: -1 })).rejects.toThrow(
      /featureWeight must be >= 0/,
    );
    // The same rule as the pipeline config's and the CLI's (options/rerank.ts).
    await expect(PerceptronReranker.train(trees, { kernel: 'tree', wordFeature: 'caps' })).rejects.toThrow(
      /wordFeature: a word feature \(Sim2\) needs the tagging kernel \(kernel 'tree'\)/,
    );
    await expect(PerceptronReranker.train(trees, { kernel: 'tree', normalize: true })).rejects.toThrow(
      /normalize: normalization applies to the tagging kernel only/,
    );
    const mixing = async (): Promise<{ last: Float64Array; averaged: Float64Array }> => ({
      last: new Float64Array(0),
      averaged: new Float64Array(0),
    });
    await expect(PerceptronReranker.train(trees, { kernel: 'tree', featureWeight: 1, mixing })).rejects.toThrow(
      /parameter mixing has no reranking features/,
    );
    expect(() =>
      validatePipelineConfig(
        {
          task: 'tag',
          data: { train: 'a', dev: 'b', test: 'c' },
          rerankers: [{ type: 'perceptron', kernel: 'linear', featureWeight: [1] }],
        },
        'cfg.json',
      ),
    ).toThrow(/featureWeight.*added to the tree or tagging kernel/);
    expect(
      validatePipelineConfig(
        {
          task: 'tag',
          data: { train: 'a', dev: 'b', test: 'c' },
          rerankers: [{ type: 'perceptron', featureWeight: [1] }],
        },
        'cfg.json',
      ).rerankers[0],
    ).toMatchObject({ featureWeight: [1] });
    const ok = validatePipelineConfig(
      {
        task: 'parse',
        data: { train: 'a', dev: 'b', test: 'c' },
        rerankers: [{ type: 'perceptron', featureWeight: [0, 1] }],
      },
      'cfg.json',
    );
    expect(ok.rerankers[0]).toMatchObject({ featureWeight: [0, 1], headRules: 'collins' });
  });
});
