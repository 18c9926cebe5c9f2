/**
 * The linear rerankers have one training path (trainLinearReranker): `train-reranker`, the
 * API's LinearReranker.train and the pipeline's reranker steps give the same model on the
 * same n-best lists. With --dev-step 1 and fewer than 300 rounds, the CLI's and the
 * pipeline's dev grids both hold every round, so N is chosen alike.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LinearReranker, type LinearTrainOptions } from '../../lib/rerank/linear-reranker.js';
import { learnListSettings } from '../../lib/rerank/tree-settings.js';
import { loadHeadRules } from '../../lib/io/head-rules-file.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { scoreSet } from '../../lib/pipeline/evaluate.js';
import { rerankerSchema, type BoostConfig, type LoglinearConfig } from '../../lib/pipeline/config.js';
import { boostReranker, loglinearReranker } from '../../lib/pipeline/adapters/linear.js';
import { perturbedNbest } from './boost-fixture.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('one training path for the linear rerankers', () => {
  const trainFile = tmp.file('paths-train.jsonl');
  const devFile = tmp.file('paths-dev.jsonl');
  const testFile = tmp.file('paths-test.jsonl');
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'train.mrg'), trainFile, 1, 80);
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), devFile, 2, 30);
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'test.mrg'), testFile, 3, 30);
  const [train, dev, test] = [trainFile, devFile, testFile].map((f) => readNbestSync(f));
  // The head rules and word classes the CLI and the pipeline learn from the gold training trees.
  const settings = learnListSettings(train, loadHeadRules('collins'), trainFile)?.settings;

  const cases: {
    method: 'boost' | 'loglinear';
    cli: string[];
    api: LinearTrainOptions;
    pipeline: Record<string, unknown>;
  }[] = [
    {
      method: 'boost',
      cli: ['--rounds', '120', '--eps', '0.001,0.01', '--dev-step', '1'],
      api: { rounds: 120, eps: [0.001, 0.01], devStep: 1 },
      pipeline: { type: 'boost', rounds: 120, eps: [0.001, 0.01] },
    },
    {
      method: 'loglinear',
      cli: ['--rounds', '15', '--l2', '1,4'],
      api: { rounds: 15, l2: [1, 4] },
      pipeline: { type: 'loglinear', iterations: 15, l2: [1, 4] },
    },
  ];

  for (const c of cases) {
    it(`${c.method}: the CLI, the API and the pipeline train the same model`, async () => {
      const modelFile = tmp.file(`paths-${c.method}.model`);
      const r = runCli([
        'train-reranker',
        '--method',
        c.method,
        '--train',
        trainFile,
        '--dev',
        devFile,
        '--model',
        modelFile,
        '--cutoff',
        '2',
        '--threads',
        '1',
        ...c.cli,
      ]);
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.status).toBe(0);
      const cli = LinearReranker.loadSync(modelFile);

      const api = await LinearReranker.train(train, {
        method: c.method,
        cutoff: 2,
        dev,
        threads: 1,
        extract: { settings },
        ...c.api,
      });
      // The same features, weights and a0, bit for bit; the same training facts: the same model file.
      expect(api.model.names).toEqual(cli.model.names);
      expect(Buffer.from(api.model.weights.buffer)).toEqual(Buffer.from(cli.model.weights.buffer));
      expect(api.model.a0).toBe(cli.model.a0);
      expect(api.model.info).toEqual(cli.model.info);
      expect(cli.model.names.length).toBeGreaterThan(10);
      const apiFile = tmp.file(`paths-${c.method}-api.model`);
      api.save(apiFile);
      expect(readFileSync(apiFile).equals(readFileSync(modelFile))).toBe(true);

      const rc = { ...rerankerSchema.parse({ ...c.pipeline, cutoff: 2 }), name: c.method };
      const step =
        rc.type === 'boost'
          ? boostReranker(rc as BoostConfig & { name: string })
          : loglinearReranker(rc as LoglinearConfig & { name: string });
      const ctx = { threads: 1, seed: 1 };
      const trained = await step.train(scoreSet(train), scoreSet(dev), ctx);
      // The settings chosen on dev are the model's.
      const info = cli.model.info;
      if (c.method === 'boost')
        expect(trained.selected).toEqual({
          eps: info.eps,
          rounds: info.rounds,
          a0: +cli.model.a0.toFixed(3),
          features: info.features,
        });
      else expect(trained.selected).toEqual({ C: info.l2, features: info.features });
      // And it chooses what the model chooses.
      const chosen = await cli.rerank(test, { threads: 1, signal: undefined });
      const apiChosen = await api.rerank(test, { threads: 1 });
      expect(Array.from(apiChosen)).toEqual(Array.from(chosen));
      expect(await trained.choose(scoreSet(test), ctx)).toEqual(Array.from(chosen));
    }, 120_000);
  }
});
