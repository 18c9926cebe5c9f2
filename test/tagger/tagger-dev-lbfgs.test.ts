/**
 * train-tagger with L-BFGS: --dev chooses no iterate (an iterate before convergence is not a
 * regularized model; dev-best iterates scored lower on held-out data, docs/tagging.md). The
 * run goes to convergence or the iteration cap and dev reports the final model's score.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { Tagger, type TokenRows } from '../../lib/tagger/tagger.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// Dev contradicts training: every iterate that fits the training data scores 0 on dev, so a
// dev-best rule would keep the first evaluated iterate.
const sentence = (tags: string[]): string => ['a', 'b', 'c', 'd'].map((w, i) => `${w} ${tags[i]}`).join('\n') + '\n\n';
const train = tmp.file(
  'train.conll',
  sentence(['X', 'Y', 'X', 'Y']).repeat(30) + sentence(['Y', 'X', 'Y', 'X']).repeat(5),
);
const dev = tmp.file('dev.conll', sentence(['Y', 'X', 'Y', 'X']).repeat(3));

describe('train-tagger --algo crf --dev (L-BFGS)', () => {
  it('trains past the dev-best iterate and reports the final model on dev', () => {
    const model = tmp.file('crf.model');
    const r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--dev',
      dev,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--epochs',
      '12',
      '--model',
      model,
      '--json',
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() as string);
    // All 12 iterations (a dev-best rule, scoring every 10, would keep iteration 10).
    expect(out.trainedSteps).toBe(12);
    expect(out.dev).toEqual({ name: 'acc', value: 0 });
    // The model file records the same.
    const saved = Tagger.loadSync(model);
    expect(saved.meta.trainedSteps).toBe(12);
    expect(saved.meta.dev).toEqual({ name: 'acc', value: 0 });
  });

  it('--eval-every and --patience are refused with L-BFGS, kept for the perceptron', () => {
    const r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--dev',
      dev,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--patience',
      '2',
      '--model',
      tmp.file('x.model'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'structrank: train-tagger: --eval-every and --patience apply when --dev chooses the model (perceptron, CRF with SGD); with L-BFGS (CRF, maxent), --dev scores the final model',
    );
    const p = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--dev',
      dev,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--epochs',
      '6',
      '--patience',
      '2',
      '--model',
      tmp.file('p.model'),
      '--json',
      '--quiet',
    ]);
    expect(p.status, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout.trim().split('\n').pop() as string).trainedSteps).toBe(1);
  });
});

describe('Tagger.train with L-BFGS and dev (the API takes the same rule)', () => {
  const rows = (tags: string[]): TokenRows => ['a', 'b', 'c', 'd'].map((w, i) => [w, tags[i]]);
  const trainRows = [
    ...Array.from({ length: 30 }, () => rows(['X', 'Y', 'X', 'Y'])),
    ...Array.from({ length: 5 }, () => rows(['Y', 'X', 'Y', 'X'])),
  ];
  const devRows = Array.from({ length: 3 }, () => rows(['Y', 'X', 'Y', 'X']));

  it('trains every iteration and records the final model on dev', async () => {
    const steps: number[] = [];
    const tagger = await Tagger.train(
      trainRows,
      { algo: 'crf', columns: ['word', 'pos'], label: 'pos', epochs: 12, dev: devRows, threads: 1 },
      { onProgress: (p) => steps.push(p.done) },
    );
    expect(tagger.meta.trainedSteps).toBe(12);
    expect(tagger.meta.dev).toEqual({ name: 'acc', value: 0 });
    expect(steps.at(-1)).toBe(12);
  });

  it('the perceptron still keeps its dev-best epoch', async () => {
    const tagger = await Tagger.train(trainRows, {
      algo: 'perceptron',
      columns: ['word', 'pos'],
      label: 'pos',
      epochs: 6,
      dev: devRows,
      patience: 2,
      threads: 1,
    });
    expect(tagger.meta.trainedSteps).toBe(1);
  });
});
