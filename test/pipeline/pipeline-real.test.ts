import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { validatePipelineConfig } from '../../lib/pipeline/config.js';
import { MBR_SYSTEM_NAME, runPipeline } from '../../lib/pipeline/run.js';
import type { RerankerResult } from '../../lib/pipeline/candidates.js';
import { asConllu, tinyNerCorpus } from './pipeline-fakes.js';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gum = join(repoRoot, 'data', 'gum-open');

describe('pipeline with the real components, tiny settings', () => {
  it('parsing: chart parser n-best on GUM, boosting, tree-kernel perceptron and log-linear, resumable', async () => {
    const config = validatePipelineConfig(
      {
        task: 'parse',
        data: {
          train: join(gum, 'train.mrg'),
          dev: join(gum, 'dev.mrg'),
          test: join(gum, 'test.mrg'),
          maxLength: 12,
          trainLimit: 60,
          devLimit: 15,
          testLimit: 15,
        },
        folds: 2,
        nbest: 5,
        base: { crf: false },
        rerankers: [
          { type: 'boost', rounds: 50, eps: [0.001, 0.01], cutoff: 1 },
          { type: 'loglinear', l2: [1], iterations: 30, cutoff: 1 },
          { type: 'perceptron', lambda: [0.4], beta: [0] },
        ],
        threads: 2,
        output: join(tmp.dir, 'parse'),
      },
      'test',
      tmp.dir,
    );
    const r = await runPipeline(config);
    expect(r.sizes).toMatchObject({ train: 60, dev: 15, test: 15, folds: 2, nbest: 5 });
    expect(r.systems.map((s) => s.name)).toEqual([
      'base (PCFG chart parser)',
      'oracle',
      'boosting',
      'log-linear',
      'tree-kernel perceptron',
      'mix (boosting + log-linear)',
    ]);
    expect(r.systems[5].kind).toBe('mix');
    expect(r.unavailable).toEqual([]);
    // Each linear reranker's stored scores choose what it chose; the perceptron stores none.
    const cache = join(tmp.dir, 'parse', 'cache');
    for (const dir of readdirSync(cache).filter((d) => d.startsWith('rerank-'))) {
      const saved = JSON.parse(readFileSync(join(cache, dir, 'result.json'), 'utf8')) as RerankerResult;
      if (dir.startsWith('rerank-tree-kernel')) {
        expect(saved.scores).toBeUndefined();
        continue;
      }
      for (const part of ['dev', 'test'] as const) {
        const scores = saved.scores?.[part] ?? [];
        expect(scores.map((l) => l.indexOf(Math.max(...l)))).toEqual(saved[part]);
      }
    }
    expect(r.systems[4].selected).toMatchObject({ lambda: 0.4, beta: 0, mode: 'voted' });
    const [base, oracle, boost] = r.systems;
    expect(base.testF1).toBeGreaterThan(20);
    expect(oracle.testF1).toBeGreaterThanOrEqual(base.testF1);
    for (const s of r.systems) expect(s.testF1).toBeLessThanOrEqual(oracle.testF1 + 1e-9);
    expect([0.001, 0.01]).toContain(boost.selected?.eps);
    expect(r.curves[0].series).toHaveLength(2);
    const again = await runPipeline(config);
    expect(again.steps.every((s) => s.cached)).toBe(true);
    expect(again.systems.map((s) => s.testF1)).toEqual(r.systems.map((s) => s.testF1));
  });

  it('parsing with the default base: the jackknifed CRF parser', async () => {
    const data = {
      train: join(gum, 'train.mrg'),
      dev: join(gum, 'dev.mrg'),
      test: join(gum, 'test.mrg'),
      maxLength: 12,
      trainLimit: 60,
      devLimit: 15,
      testLimit: 15,
    };
    const config = validatePipelineConfig(
      {
        task: 'parse',
        data,
        folds: 2,
        nbest: 4,
        base: { epochs: 2 },
        rerankers: [{ type: 'boost', rounds: 30, eps: [0.01], cutoff: 1 }],
        threads: 2,
        output: join(tmp.dir, 'parse-crf'),
      },
      'test',
      tmp.dir,
    );
    expect((config.base as { crf: boolean }).crf).toBe(true);
    const r = await runPipeline(config);
    expect(r.systems.map((s) => s.name)).toEqual([
      'base (CRF-CFG chart parser)',
      MBR_SYSTEM_NAME,
      'oracle',
      'boosting',
    ]);
    const [base, mbr, oracle, boost] = r.systems;
    expect(mbr.kind).toBe('mbr');
    expect(base.testF1).toBeGreaterThan(20);
    expect(oracle.testF1).toBeGreaterThanOrEqual(base.testF1);
    expect(oracle.testF1).toBeGreaterThanOrEqual(mbr.testF1);
    expect(boost.testF1).toBeLessThanOrEqual(oracle.testF1 + 1e-9);
    expect(r.sizes.averageCandidates).toBeGreaterThan(1);
  });

  it('tagging: CRF tagger k-best, boosting and log-linear over tag-sequence features, tagging-kernel perceptron', async () => {
    const config = validatePipelineConfig(
      {
        task: 'tag',
        data: {
          train: tmp.file('train.txt', tinyNerCorpus(60, 1)),
          dev: tmp.file('dev.txt', tinyNerCorpus(15, 2)),
          test: tmp.file('test.txt', tinyNerCorpus(15, 3)),
          columns: ['word', 'pos', 'ne'],
          label: 'ne',
        },
        folds: 3,
        nbest: 4,
        base: { algo: 'crf', epochs: 5, optimizer: 'sgd' },
        rerankers: [
          { type: 'boost', rounds: 30, eps: [0.005, 0.05], cutoff: 1 },
          { type: 'loglinear', l2: [1, 10], iterations: 20, cutoff: 1 },
          { type: 'perceptron', lambda: [0.5], beta: [0] },
        ],
        threads: 2,
        output: join(tmp.dir, 'tag'),
      },
      'test',
      tmp.dir,
    );
    const r = await runPipeline(config);
    expect(r.measure).toBe('chunk F1');
    const [base, oracle, boost] = r.systems;
    expect(base.name).toBe('base (CRF tagger)');
    expect(oracle.testF1).toBeGreaterThanOrEqual(base.testF1);
    expect(boost.testF1).toBeLessThanOrEqual(oracle.testF1 + 1e-9);
    expect(r.systems.map((s) => s.name)).toEqual([
      'base (CRF tagger)',
      'oracle',
      'boosting',
      'log-linear',
      'tagging-kernel perceptron',
      'mix (boosting + log-linear)',
    ]);
    expect(r.systems[4].testF1).toBeLessThanOrEqual(oracle.testF1 + 1e-9);
    expect([0.005, 0.05]).toContain(boost.selected?.eps);
    expect(r.systems[3].selected?.C).toBeDefined();
    expect(r.sizes.averageCandidates).toBeGreaterThan(1);
    expect(r.curves[0].series.map((c) => c.label)).toEqual(['eps=0.005', 'eps=0.05']);
    const again = await runPipeline(config);
    expect(again.steps.every((s) => s.cached)).toBe(true);
    expect(again.systems.map((s) => s.testF1)).toEqual(r.systems.map((s) => s.testF1));
  });

  it('tagging CoNLL-U data: the results of the same sentences as CoNLL columns', async () => {
    // The NER corpus with its POS tags as XPOS and its entity tags as UPOS, in both formats.
    const sets = { train: tinyNerCorpus(40, 4), dev: tinyNerCorpus(12, 5), test: tinyNerCorpus(12, 6) };
    const run = async (format: 'conll' | 'conllu'): Promise<number[]> => {
      const file = (name: keyof typeof sets): string =>
        tmp.file(`${name}.${format}`, format === 'conll' ? sets[name] : asConllu(sets[name], true));
      const config = validatePipelineConfig(
        {
          task: 'tag',
          data: {
            train: file('train'),
            dev: file('dev'),
            test: file('test'),
            columns: ['word', 'xpos', 'upos'],
            label: 'upos',
          },
          folds: 2,
          nbest: 3,
          base: { algo: 'crf', epochs: 3, optimizer: 'sgd' },
          rerankers: [{ type: 'boost', rounds: 20, eps: [0.05], cutoff: 1 }],
          threads: 1,
          output: join(tmp.dir, `tag-${format}`),
        },
        'test',
        tmp.dir,
      );
      expect(config.data.format).toBe(format);
      return (await runPipeline(config)).systems.map((s) => s.testF1);
    };
    const fromColumns = await run('conll');
    expect(fromColumns[0]).toBeGreaterThan(50); // base F1, in percent
    expect(await run('conllu')).toEqual(fromColumns);
    expect(() =>
      validatePipelineConfig(
        { task: 'tag', data: { train: 'a.conllu', dev: 'b', test: 'c', columns: ['word', 'pos'] } },
        'p.json',
        '/d',
      ),
    ).toThrow(
      "p.json: data.columns: with format 'conllu' the columns name fields among word (= form), lemma, upos, xpos, feats, deprel; got 'pos'",
    );
  });
});
