/**
 * The reranker's Score kind: `errors` (-50 x (missed + invented), the default) against
 * `f1` (F1 x |gold|), on hand-made lists with a sentence without gold entities, through the
 * scored sets, the pipeline and the perceptron.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { NbestSentence } from '../../lib/io/nbest.js';
import { f1GoldScore } from '../../lib/eval/score.js';
import { validatePipelineConfig } from '../../lib/pipeline/config.js';
import { rescoreSet, scoreSet } from '../../lib/pipeline/evaluate.js';
import { runPipeline } from '../../lib/pipeline/run.js';
import type { CandidateSet, Reranker } from '../../lib/pipeline/components.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { candidateFeatures, treeSettingsFor } from '../../lib/rerank/candidate-sets.js';
import { frequencyTagger, tinyNerCorpus, type FakeCalls } from './pipeline-fakes.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Sentence 0 has no gold entity; its first candidate invents one. Sentence 1 has two. */
const lists: NbestSentence[] = [
  {
    id: 'none',
    tokens: ['the', 'sun', 'rose'],
    gold: ['O', 'O', 'O'],
    line: 1,
    candidates: [
      { tags: ['O', 'B-LOC', 'O'], logprob: -1 },
      { tags: ['O', 'O', 'O'], logprob: -2 },
    ],
  },
  {
    id: 'two',
    tokens: ['Ana', 'met', 'Rui'],
    gold: ['B-PER', 'O', 'B-PER'],
    line: 2,
    candidates: [
      { tags: ['B-PER', 'O', 'B-LOC'], logprob: -1 },
      { tags: ['B-PER', 'O', 'B-PER'], logprob: -3 },
      { tags: ['B-PER', 'O', 'O'], logprob: -4 },
    ],
  },
];

describe('Score kinds', () => {
  it("'f1' gives every candidate of an entity-less sentence 0; 'errors' ranks the invented entity below", () => {
    const errors = scoreSet(lists);
    const f1 = rescoreSet(errors, 'f1');
    expect(errors.scores[0]).toEqual([-50, 0]);
    expect(f1.scores[0]).toEqual([0, 0]);
    expect(f1.scores[1]).toEqual(errors.counts[1].map(f1GoldScore));
    // Where the candidate has as many entities as the gold, the two differ by 100 x |gold|.
    expect(f1.scores[1][0] - errors.scores[1][0]).toBe(200);
    expect(f1.scores[1][1] - errors.scores[1][1]).toBe(200);
    // With fewer entities than the gold they do not: below the perfect candidate, the missed
    // entity costs 50 with errors and 200 - 400/3 = 66.7 with F1 x |gold|.
    expect(errors.scores[1][2]).toBe(-50);
    expect(f1.scores[1][2]).toBeCloseTo(400 / 3, 10);
    expect(rescoreSet(errors, 'errors')).toBe(errors);
    expect(f1.counts).toBe(errors.counts);
  });

  it('the perceptron learns from the entity-less sentence with errors only', async () => {
    const none = Array.from({ length: 6 }, (_, i) => ({ ...lists[0], id: `none${i}`, line: i + 1 }));
    const withErrors = await PerceptronReranker.train(none, { kernel: 'tags', epochs: 1, threads: 1 });
    const withF1 = await PerceptronReranker.train(none, { kernel: 'tags', epochs: 1, threads: 1, score: 'f1' });
    // F1 x |gold| ties both candidates, so the base's choice is the oracle: nothing to learn.
    expect(withF1.info().mistakes).toBe(0);
    expect(withErrors.info().mistakes).toBeGreaterThan(0);
    const chosen = await withErrors.choose([lists[0]], { prediction: 'last' });
    expect([...chosen.chosen]).toEqual([1]);
  });

  it("a pipeline reranker with score 'f1' trains and selects on F1 x |gold|; one without keeps its step key", async () => {
    const config = validatePipelineConfig(
      {
        task: 'tag',
        data: {
          train: tmp.file('train.txt', tinyNerCorpus(24, 1)),
          dev: tmp.file('dev.txt', tinyNerCorpus(8, 2)),
          test: tmp.file('test.txt', tinyNerCorpus(8, 3)),
          columns: ['word', 'pos', 'ne'],
          label: 'ne',
        },
        folds: 2,
        nbest: 3,
        rerankers: [
          { type: 'boost', name: 'new' },
          { type: 'boost', name: 'old', score: 'f1' },
        ],
        output: join(tmp.dir, 'out'),
      },
      'pipeline.json',
      tmp.dir,
    );
    expect('score' in config.rerankers[0]).toBe(false);
    expect(config.rerankers[1].score).toBe('f1');
    const seen: Record<string, { train: CandidateSet; dev: CandidateSet }> = {};
    const calls: FakeCalls = { trains: 0, nbests: 0, rerankerTrains: 0 };
    const recorder = (name: string): Reranker => ({
      name,
      async train(train, dev) {
        seen[name] = { train, dev };
        return {
          selected: {},
          async choose(set) {
            return set.sentences.map(() => 0);
          },
        };
      },
    });
    const r = await runPipeline(config, {
      components: { base: () => frequencyTagger(calls), reranker: (rc) => recorder(rc.name) },
    });
    expect(r.systems.map((s) => s.name)).toContain('old');
    const train = scoreSet(seen.new.train.sentences);
    expect(seen.new.train.scores).toEqual(train.scores);
    expect(seen.old.train.scores).toEqual(train.counts.map((row) => row.map(f1GoldScore)));
    expect(seen.old.dev.scores).toEqual(scoreSet(seen.new.dev.sentences).counts.map((row) => row.map(f1GoldScore)));
    // Both pick the first candidate everywhere, so both score the base's F1 whatever their Score.
    const base = r.systems.find((s) => s.kind === 'base');
    expect(r.systems.find((s) => s.name === 'old')?.testF1).toBe(base?.testF1);
  });
  it('a set rescored with the other Score reuses its features and head settings, with its own scores', async () => {
    const trees: NbestSentence[] = [
      {
        id: 't1',
        tokens: ['Ana', 'canta'],
        gold: '( (fcl (np (prop Ana)) (v-fin canta)))',
        line: 1,
        candidates: [
          { tree: '( (fcl (prop Ana) (v-fin canta)))', logprob: -1 },
          { tree: '( (fcl (np (prop Ana)) (v-fin canta)))', logprob: -2 },
        ],
      },
      {
        id: 't2',
        tokens: ['o', 'gato', 'dorme'],
        gold: '( (fcl (np (art o) (n gato)) (v-fin dorme)))',
        line: 2,
        candidates: [
          { tree: '( (fcl (np (art o) (n gato)) (v-fin dorme)))', logprob: -1 },
          { tree: '( (fcl (art o) (np (n gato) (v-fin dorme))))', logprob: -2 },
        ],
      },
    ];
    const ctx = { threads: 1, seed: 1 };
    const errors = scoreSet(trees);
    const f1 = rescoreSet(errors, 'f1');
    const settings = treeSettingsFor(errors, 'collins', ctx);
    expect(settings).toBeDefined();
    expect(treeSettingsFor(f1, 'collins', ctx)).toBe(settings);
    const a = await candidateFeatures(errors, ctx, settings);
    const b = await candidateFeatures(f1, ctx, settings);
    expect(b.cols).toBe(a.cols);
    expect(a.cols.length).toBeGreaterThan(0);
    expect(Array.from(a.score)).toEqual(errors.scores.flat());
    expect(Array.from(b.score)).toEqual(f1.scores.flat());
    expect(Array.from(b.score)).not.toEqual(Array.from(a.score));
  });
});
