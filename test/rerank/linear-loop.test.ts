/**
 * Boosting and the log-linear reranker train through the one training loop
 * (lib/training/loop.ts): their settings (each eps, each prior C) run one after another in
 * steps (a chunk of rounds, an L-BFGS iteration); the loop writes the checkpoint after each
 * step, stops between steps when cancelled, and resumes, ending in the model bytes of an
 * uninterrupted run. A checkpoint written before the loop (its step the rounds of its last
 * setting) still resumes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LinearReranker, type LinearTrainOptions } from '../../lib/rerank/linear-reranker.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { loadModel, saveModel } from '../../lib/io/model-file.js';
import { AbortError } from '../../lib/errors.js';
import type { TrainProgress } from '../../lib/train-progress.js';
import { perturbedNbest } from './boost-fixture.js';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface Meta {
  step: number;
  state: unknown;
}
const meta = (file: string): Meta => loadModel<Meta>(file, 'checkpoint').meta;

describe('linear rerankers through the training loop', () => {
  const trainFile = tmp.file('loop-train.jsonl');
  const devFile = tmp.file('loop-dev.jsonl');
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'train.mrg'), trainFile, 1, 80);
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), devFile, 2, 30);
  const train = readNbestSync(trainFile);
  const dev = readNbestSync(devFile);
  const bytes = async (options: LinearTrainOptions, onProgress?: (p: TrainProgress) => void): Promise<Buffer> => {
    const r = await LinearReranker.train(train, { cutoff: 2, threads: 1, dev, ...options }, { onProgress });
    const file = tmp.file(`m${Math.random().toString(36).slice(2)}.model`);
    r.save(file);
    return readFileSync(file);
  };

  // Boosting: 2,500 rounds in steps of 1,000 per eps; log-linear: 12 iterations per C.
  const cases: { name: string; options: LinearTrainOptions; first: LinearTrainOptions; steps: number }[] = [
    {
      name: 'boost',
      options: { method: 'boost', rounds: 2500, eps: [0.0025, 0.01] },
      first: { rounds: 1500 },
      steps: 6,
    },
    { name: 'loglinear', options: { method: 'loglinear', rounds: 12, l2: [1, 4] }, first: { rounds: 5 }, steps: 24 },
  ];

  for (const c of cases) {
    it(`${c.name}: a checkpoint per step; cancelled, resumed: the model bytes of an uninterrupted run`, async () => {
      const whole = await bytes(c.options);
      const all = tmp.file(`${c.name}-all.ckpt`);
      expect((await bytes({ ...c.options, checkpoint: all })).equals(whole)).toBe(true);
      // The loop's count of steps, all settings together.
      expect(meta(all)).toMatchObject({ step: c.steps, state: null });

      // Stopped once the first step's checkpoint is written (a native call in flight stops too).
      const cut = tmp.file(`${c.name}-cut.ckpt`);
      const controller = new AbortController();
      const seen: number[] = [];
      const outcome = await LinearReranker.train(
        train,
        { cutoff: 2, threads: 1, dev, ...c.options, checkpoint: cut },
        {
          signal: controller.signal,
          onProgress: (p) => {
            seen.push(p.done);
            if (existsSync(cut)) controller.abort();
          },
        },
      ).then(
        () => 'finished',
        (err: unknown) => err,
      );
      expect(outcome).toBeInstanceOf(AbortError);
      expect(seen.length).toBeGreaterThan(0);
      const stoppedAt = meta(cut).step;
      expect(stoppedAt).toBeGreaterThan(0);
      expect(stoppedAt).toBeLessThan(c.steps);
      expect((await bytes({ ...c.options, checkpoint: cut, resume: cut })).equals(whole)).toBe(true);
      expect(meta(cut).step).toBe(c.steps);
    }, 120_000);

    it(`${c.name}: a shorter run's checkpoint, also in the format before the loop, continues to the longer run`, async () => {
      const whole = await bytes(c.options);
      const file = tmp.file(`${c.name}-short.ckpt`);
      const short = await bytes({ ...c.options, ...c.first, checkpoint: file });
      expect(short.equals(whole)).toBe(false);
      expect((await bytes({ ...c.options, resume: file })).equals(whole)).toBe(true);
      // Before the loop a checkpoint's step was the rounds (iterations) of the last setting saved.
      const m = loadModel<Meta>(file, 'checkpoint');
      saveModel(file, {
        kind: 'checkpoint',
        kindVersion: m.kindVersion,
        meta: { ...m.meta, step: c.first.rounds as number },
        payload: m.payload,
      });
      expect((await bytes({ ...c.options, resume: file })).equals(whole)).toBe(true);
    }, 120_000);
  }

  it('boosting reports each eps: its start, every chunk of rounds, the dev score with its last', async () => {
    const events: TrainProgress[] = [];
    await bytes({ method: 'boost', rounds: 2500, eps: [0.0025, 0.01] }, (p) => events.push(p));
    const rounds = events.map((e) => e.done);
    expect(rounds).toEqual([0, 1000, 2000, 2500, 0, 1000, 2000, 2500]);
    expect(events.every((e) => e.phase === 'round' && e.total === 2500)).toBe(true);
    // The dev score replays every round: refreshed at most every 3 s, and always with the last chunk.
    for (const at of [0, 4]) {
      expect(events[at].devScore).toBeUndefined();
      expect(events[at + 3].devScore).toBeTypeOf('number');
    }
  }, 120_000);
});
