/**
 * The one training loop (lib/training/loop.ts): a fake trainer checks its rules (patience,
 * the dev-best model put back, the evaluation schedule, cancellation, checkpoints and
 * resuming, the external hand-off); then each model family that trains through it (tagger,
 * CRF parser, kernel perceptron) is stopped by cancellation and resumed to the model bytes
 * of an uninterrupted run, and keeps its dev-best and patience rules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  runTraining,
  type ExternalTrainer,
  type LoopState,
  type StepEvent,
  type Trainer,
  type TrainingPlan,
} from '../../lib/training/loop.js';
import { completeOptions, fillDefaults } from '../../lib/training/options.js';
import { loadModel } from '../../lib/io/model-file.js';
import { AbortError, ModelFileError, UsageError } from '../../lib/errors.js';
import { Tagger, type TaggerTrainOptions } from '../../lib/tagger/tagger.js';
import { ChartParserModel, type ParserPassReport, type ParserTrainOptions } from '../../lib/parser/chart-parser.js';
import { PerceptronReranker, type PerceptronTrainOptions } from '../../lib/rerank/perceptron.js';
import { parserTrainFields } from '../../lib/options/parser.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { treeWords } from '../../lib/parser/input.js';
import type { Tree } from '../../lib/trees/tree.js';
import { repoRoot, tempDir } from '../helpers.js';
import { perturbedNbest } from '../rerank/boost-fixture.js';
import { taggingData } from './tagging-data.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface Score {
  value: number;
}

/**
 * A trainer whose model is the list of steps taken: step k appends k, dev scores come from a
 * table by step, snapshot/restore copy the list, and the list is its checkpoint state.
 */
function fakeTrainer(scores: number[] | undefined, calls: string[] = []): Trainer<Score> & { model: number[] } {
  let kept: number[] = [];
  const t: Trainer<Score> & { model: number[] } = {
    model: [],
    async step({ done, until }) {
      calls.push(`step ${done}->${until}`);
      for (let k = done + 1; k <= until; k++) t.model.push(k);
      return { done: until, loss: 1 / until };
    },
    ...(scores ? { devScore: async () => ({ value: scores[t.model.length - 1] }) } : {}),
    snapshot: () => {
      kept = [...t.model];
    },
    restore: (bestStep, done) => {
      calls.push(`restore ${bestStep}/${done}`);
      t.model = [...kept];
    },
    sections: () => ({ model: Uint8Array.from(t.model), kept: Uint8Array.from(kept) }),
    loadSections: (s) => {
      t.model = Array.from(s.model ?? []);
      kept = Array.from(s.kept ?? []);
    },
  };
  return t;
}

/** A checkpoint's step and JSON state, read without resuming it. */
function checkpointMeta<State = unknown>(file: string): { step: number; state: State } {
  return loadModel<{ step: number; state: State }>(file, 'checkpoint').meta;
}

const checkpointPlan = (file: string | undefined, resume?: string): TrainingPlan<Score>['checkpoint'] => ({
  trainer: 'tagger',
  file,
  resume,
  options: { fake: true },
  fingerprint: () => ['fake', 'data'],
  refuseLonger: 'steps',
});

describe('runTraining with a fake trainer', () => {
  it('no dev: one call for the whole run, every step in the model', async () => {
    const calls: string[] = [];
    const t = fakeTrainer(undefined, calls);
    const r = await runTraining(t, { total: 5 });
    expect(calls).toEqual(['step 0->5']);
    expect(t.model).toEqual([1, 2, 3, 4, 5]);
    expect(r).toEqual({ done: 5, best: undefined, bestStep: 0, stopped: false });
  });

  it('dev chooses: patience stops after N evaluations without improvement, the best step is put back', async () => {
    const calls: string[] = [];
    const t = fakeTrainer([50, 60, 55, 58, 59, 70, 80], calls);
    const events: StepEvent<Score>[] = [];
    const r = await runTraining(t, { total: 7, patience: 3, onStep: (e) => events.push(e) });
    // Best at step 2 (60); steps 3, 4, 5 do not beat it: stopped after step 5.
    expect(r).toMatchObject({ done: 5, best: { value: 60 }, bestStep: 2, stopped: true });
    expect(t.model).toEqual([1, 2]);
    expect(calls.at(-1)).toBe('restore 2/5');
    expect(events.map((e) => [e.done, e.dev?.value, e.best?.value, e.improved])).toEqual([
      [1, 50, 50, true],
      [2, 60, 60, true],
      [3, 55, 60, false],
      [4, 58, 60, false],
      [5, 59, 60, false],
    ]);
  });

  it('patience 0 never stops; an equal score is no improvement', async () => {
    const t = fakeTrainer([50, 50, 40, 50, 51]);
    const r = await runTraining(t, { total: 5 });
    expect(r).toMatchObject({ done: 5, best: { value: 51 }, bestStep: 5, stopped: false });
    const u = fakeTrainer([50, 50, 40, 50, 49]);
    expect(await runTraining(u, { total: 5 })).toMatchObject({ bestStep: 1 });
    expect(u.model).toEqual([1]);
  });

  it('evaluates every evalEvery steps and after the last; the steps between run in one call', async () => {
    const calls: string[] = [];
    const t = fakeTrainer([1, 2, 3, 4, 5, 6, 7], calls);
    const events: StepEvent<Score>[] = [];
    await runTraining(t, { total: 7, evalEvery: 3, onStep: (e) => events.push(e) });
    expect(calls.filter((c) => c.startsWith('step'))).toEqual(['step 0->3', 'step 3->6', 'step 6->7']);
    expect(events.map((e) => [e.done, e.dev?.value])).toEqual([
      [3, 3],
      [6, 6],
      [7, 7],
    ]);
  });

  it('dev does not choose: every evaluation is the score, nothing is put back, no patience', async () => {
    const calls: string[] = [];
    const t = fakeTrainer([90, 10, 5, 1], calls);
    const r = await runTraining(t, { total: 4, evalEvery: 2, devChooses: false, patience: 1 });
    // Not a regular evaluation point: only the final model is scored.
    expect(r).toMatchObject({ done: 4, best: { value: 1 }, bestStep: 4, stopped: false });
    expect(calls.some((c) => c.startsWith('restore'))).toBe(false);
    expect(t.model).toEqual([1, 2, 3, 4]);
  });

  it('a convergence stops the run', async () => {
    const t = fakeTrainer(undefined);
    const step = t.step;
    t.step = async (c) => ({ ...(await step({ ...c, until: c.done + 1 })), converged: c.done + 1 === 3 });
    expect(await runTraining(t, { total: 10 })).toMatchObject({ done: 3, stopped: true });
  });

  it('cancelled between steps: AbortError, the checkpoint of the last step; resuming gives the uninterrupted run', async () => {
    const scores = [50, 60, 55, 58, 61, 57, 56, 40];
    const whole = fakeTrainer(scores);
    const wholeResult = await runTraining(whole, { total: 8, patience: 3 });
    const file = tmp.file('fake.ckpt');
    const controller = new AbortController();
    const first = fakeTrainer(scores);
    await expect(
      runTraining(first, {
        total: 8,
        patience: 3,
        signal: controller.signal,
        checkpoint: checkpointPlan(file),
        onStep: (e) => e.done === 4 && controller.abort(),
      }),
    ).rejects.toBeInstanceOf(AbortError);
    const cp = checkpointMeta<LoopState<Score>>(file);
    expect(cp.step).toBe(4);
    expect(cp.state).toEqual({ best: { value: 60 }, bestStep: 2, bad: 2, stopped: false });
    const resumed = fakeTrainer(scores);
    const r = await runTraining(resumed, { total: 8, patience: 3, checkpoint: checkpointPlan(file, file) });
    expect(r).toEqual(wholeResult);
    expect(resumed.model).toEqual(whole.model);
    expect(whole.model).toEqual([1, 2, 3, 4, 5]);
  });

  it('a stopped checkpoint trains no further; a longer one is refused when the trainer says so', async () => {
    const file = tmp.file('stopped.ckpt');
    await runTraining(fakeTrainer([5, 4, 3, 2, 1]), { total: 5, patience: 1, checkpoint: checkpointPlan(file) });
    const calls: string[] = [];
    const again = fakeTrainer([5, 4, 3, 2, 1], calls);
    expect(
      await runTraining(again, { total: 9, patience: 1, checkpoint: checkpointPlan(undefined, file) }),
    ).toMatchObject({ done: 2, bestStep: 1, stopped: true });
    expect(calls.filter((c) => c.startsWith('step'))).toEqual([]);
    expect(again.model).toEqual([1]);
    await expect(
      runTraining(fakeTrainer(undefined), { total: 1, checkpoint: checkpointPlan(undefined, file) }),
    ).rejects.toThrow(/checkpoint has 2 steps, more than the 1 asked for/);
    // Other data: the fingerprint differs.
    const other = {
      ...checkpointPlan(undefined, file),
      fingerprint: () => ['fake', 'other data'],
    } as TrainingPlan<Score>['checkpoint'];
    await expect(runTraining(fakeTrainer(undefined), { total: 5, checkpoint: other })).rejects.toBeInstanceOf(
      ModelFileError,
    );
  });

  it('hands steps to an external trainer, keeps its state in the checkpoint and closes it', async () => {
    const log: string[] = [];
    const external = (from: number): ExternalTrainer => {
      let at = from;
      return {
        step: async (initial) => {
          if (at === 0) log.push(`initial ${Array.from(initial()).join(',')}`);
          at++;
          return { loss: 0, converged: false, weights: Float64Array.of(at) };
        },
        saveState: () => Uint8Array.of(at),
        loadState: (bytes) => {
          at = bytes[0];
          return Float64Array.of(at);
        },
        close: async () => {
          log.push('close');
        },
      };
    };
    const handOff = (weights: number[]): Trainer<Score> => ({
      step: async ({ done, externalStep }) => ({
        done: done + 1,
        loss: (await (externalStep as NonNullable<typeof externalStep>)()).loss,
      }),
      sections: () => ({}),
      loadSections: () => {},
      external: {
        start: async () => external(weights[0]),
        weights: () => Float64Array.from(weights),
        setWeights: (w) => (weights[0] = w[0]),
      },
    });
    const file = tmp.file('external.ckpt');
    const weights = [0];
    await runTraining(handOff(weights), { total: 2, checkpoint: checkpointPlan(file) });
    expect(weights).toEqual([2]);
    expect(log).toEqual(['initial 0', 'close']);
    const resumed = [0];
    await runTraining(handOff(resumed), { total: 5, checkpoint: checkpointPlan(undefined, file) });
    expect(resumed).toEqual([5]);
    expect(log).toEqual(['initial 0', 'close', 'close']);
  });
});

describe('options completed once at the entry', () => {
  it('fills the declared defaults under what was given, and checks what was given', () => {
    const o = completeOptions(
      { epochs: parserTrainFields.epochs, patience: parserTrainFields.patience, batch: parserTrainFields.batch },
      { epochs: 3, other: 'kept' },
    );
    expect(o).toEqual({ epochs: 3, other: 'kept', patience: 2, batch: 20 });
    expect(() => completeOptions({ patience: parserTrainFields.patience }, { patience: -1 })).toThrow(UsageError);
    expect(fillDefaults({ a: 1, b: 2 }, { a: undefined, c: 3 })).toEqual({ a: 1, b: 2, c: 3 });
  });
});

// ---- the model families through the loop ----

describe('tagger through the loop', () => {
  const train = taggingData(120, 7);
  const dev = taggingData(40, 99, 4);
  const base: TaggerTrainOptions = {
    algo: 'perceptron',
    columns: ['word', 'pos', 'chunk'],
    label: 'chunk',
    threads: 1,
    dev,
  };
  const bytesFile = (t: Tagger): string => {
    const file = tmp.file('tagger.model');
    t.save(file);
    return file;
  };
  const bytes = (t: Tagger): Buffer => readFileSync(bytesFile(t));
  const cases: [string, TaggerTrainOptions][] = [
    ['averaged perceptron, dev-best and patience', { ...base, epochs: 8, patience: 2 }],
    [
      'CRF by SGD, evaluated every 2 epochs',
      { ...base, algo: 'crf', optimizer: 'sgd', epochs: 5, evalEvery: 2, patience: 0 },
    ],
    ['CRF by L-BFGS (dev scores the final model)', { ...base, algo: 'crf', epochs: 6 }],
  ];
  for (const [name, options] of cases) {
    it(`${name}: cancelled after step 2, resumed: the model bytes and dev score of an uninterrupted run`, async () => {
      const whole = await Tagger.train(train, options);
      const checkpoint = tmp.file(`tagger-${options.algo}-${options.optimizer}.ckpt`);
      const controller = new AbortController();
      await expect(
        Tagger.train(
          train,
          { ...options, checkpoint, onProgress: (p) => p.step === 2 && controller.abort() },
          { signal: controller.signal },
        ),
      ).rejects.toBeInstanceOf(AbortError);
      expect(checkpointMeta(checkpoint).step).toBe(2);
      const resumed = await Tagger.train(train, { ...options, resume: checkpoint });
      expect(bytes(resumed).equals(bytes(whole))).toBe(true);
      expect(resumed.meta.trainedSteps).toBe(whole.meta.trainedSteps);
      expect(resumed.meta.dev).toEqual(whole.meta.dev);
    }, 60_000);
  }

  it('dev-best and patience: the best epoch is kept, the run stops `patience` evaluations after it', async () => {
    const steps: { step: number; dev?: number }[] = [];
    const t = await Tagger.train(train, {
      ...base,
      epochs: 30,
      patience: 2,
      onProgress: (p) => steps.push({ step: p.step, dev: p.dev?.value }),
    });
    const best = Math.max(...steps.map((s) => s.dev as number));
    const bestStep = steps.find((s) => s.dev === best)?.step as number;
    expect(t.meta.trainedSteps).toBe(bestStep);
    expect(t.meta.dev?.value).toBe(best);
    // Stopped early: exactly two evaluations after the (first) best one.
    expect(steps.length).toBeLessThan(30);
    expect(steps.at(-1)?.step).toBe(bestStep + 2);
    // The kept model is the best epoch's: a run of that many epochs has the same weights.
    const short = await Tagger.train(train, { ...base, dev: undefined, epochs: bestStep });
    const payload = (m: Tagger): Buffer => Buffer.from(loadModel(bytesFile(m), 'tagger').payload);
    expect(payload(t).equals(payload(short))).toBe(true);
  }, 60_000);
});

describe('CRF parser through the loop', () => {
  const short = (file: string, max: number, limit: number): Tree[] =>
    readTreesSync(join(repoRoot, 'data', 'gum-open', file))
      .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= max)
      .slice(0, limit);
  const trees = short('train.mrg', 8, 40);
  const devTrees = short('dev.mrg', 8, 8);
  // 2^12 surface weights: a checkpoint holds every weight.
  const base: ParserTrainOptions = { crf: true, threads: 1, batch: 10, surfaceBits: 12, dev: devTrees };
  const bytes = (m: ChartParserModel): Buffer => Buffer.from(m.toBytes());

  it('cancelled after pass 1, resumed: the model bytes of an uninterrupted run', async () => {
    for (const options of [
      { ...base, epochs: 3 },
      { ...base, dev: undefined, epochs: 2, optimizer: 'sgd' },
    ] as ParserTrainOptions[]) {
      const whole = await ChartParserModel.train(trees, options);
      const checkpoint = tmp.file(`parser-${options.optimizer ?? 'adagrad'}.ckpt`);
      const controller = new AbortController();
      await expect(
        ChartParserModel.train(
          trees,
          { ...options, checkpoint, onPass: (r) => r.epoch === 1 && controller.abort() },
          { signal: controller.signal },
        ),
      ).rejects.toBeInstanceOf(AbortError);
      expect(checkpointMeta(checkpoint).step).toBe(1);
      const resumed = await ChartParserModel.train(trees, { ...options, resume: checkpoint });
      expect(bytes(resumed).equals(bytes(whole))).toBe(true);
    }
  }, 120_000);

  it('dev-best as before; patience stops after N passes without a better dev F1, keeping the best pass', async () => {
    const passes: ParserPassReport[] = [];
    const summary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    // Without tag sets this treebank's best pass is the first, so patience 1 has a pass to skip.
    const plain: ParserTrainOptions = { ...base, tagSets: false };
    const all = await ChartParserModel.train(trees, { ...plain, epochs: 3, summary, onPass: (r) => passes.push(r) });
    // No patience (the default): every pass runs; the kept pass is the best one.
    expect(passes.map((p) => p.epoch)).toEqual([1, 2, 3]);
    const bestF1 = Math.max(...passes.map((p) => p.devF1 as number));
    const bestEpoch = passes.find((p) => p.devF1 === bestF1)?.epoch as number;
    expect(summary).toMatchObject({ bestEpoch, bestDevF1: bestF1 });
    expect(passes.filter((p) => p.best).at(-1)?.epoch).toBe(bestEpoch);
    // This treebank's best pass is the first: patience 1 stops after pass 2 with the same model.
    expect(bestEpoch).toBe(1);
    const stopped: ParserPassReport[] = [];
    const patient = await ChartParserModel.train(trees, {
      ...plain,
      epochs: 3,
      patience: 1,
      onPass: (r) => stopped.push(r),
    });
    expect(stopped.map((p) => [p.epoch, p.devF1])).toEqual(passes.slice(0, 2).map((p) => [p.epoch, p.devF1]));
    expect(bytes(patient).equals(bytes(all))).toBe(true);
    // A patience longer than the run changes nothing.
    const long = await ChartParserModel.train(trees, { ...plain, epochs: 3, patience: 5 });
    expect(bytes(long).equals(bytes(all))).toBe(true);
    // A checkpoint of a run that ran out of patience resumes to the same model without training.
    const checkpoint = tmp.file('parser-patience.ckpt');
    await ChartParserModel.train(trees, { ...plain, epochs: 3, patience: 1, checkpoint });
    expect(checkpointMeta(checkpoint).step).toBe(2);
    const after: ParserPassReport[] = [];
    const resumed = await ChartParserModel.train(trees, {
      ...plain,
      epochs: 5,
      patience: 1,
      resume: checkpoint,
      onPass: (r) => after.push(r),
    });
    expect(after).toEqual([]);
    expect(bytes(resumed).equals(bytes(all))).toBe(true);
  }, 120_000);

  it('patience is checked like the other options', async () => {
    await expect(ChartParserModel.train(trees.slice(0, 5), { ...base, patience: -1 })).rejects.toThrow(
      /patience must be a non-negative integer/,
    );
  });
});

describe('kernel perceptron reranker through the loop', () => {
  const file = tmp.file('rerank-train.jsonl');
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'train.mrg'), file, 1, 60);
  const sentences = readNbestSync(file);
  const base: PerceptronTrainOptions = { kernel: 'tree', threads: 1 };
  const bytes = (r: PerceptronReranker): Buffer => Buffer.from(r.toBytes());

  it('stopped (cancelled, or a shorter run), resumed: the model bytes of an uninterrupted run', async () => {
    const whole = bytes(await PerceptronReranker.train(sentences, { ...base, epochs: 3 }));
    // A shorter run with a checkpoint, resumed.
    const checkpoint = tmp.file('perceptron.ckpt');
    const first = bytes(await PerceptronReranker.train(sentences, { ...base, epochs: 1, checkpoint }));
    expect(first.equals(whole)).toBe(false);
    expect(
      bytes(await PerceptronReranker.train(sentences, { ...base, epochs: 3, resume: checkpoint })).equals(whole),
    ).toBe(true);
    // Cancelled during the run: whatever epoch the checkpoint holds (none when the first was cut), resuming ends in the same model.
    const cut = tmp.file('perceptron-cut.ckpt');
    const controller = new AbortController();
    // Stopped once the first epoch's checkpoint is written (the epoch in flight may still end first).
    const outcome = await PerceptronReranker.train(
      sentences,
      { ...base, epochs: 3, checkpoint: cut, onProgress: () => existsSync(cut) && controller.abort() },
      { signal: controller.signal },
    ).then(
      () => 'finished',
      (err: unknown) => err,
    );
    expect(controller.signal.aborted).toBe(true);
    if (outcome !== 'finished') expect(outcome).toBeInstanceOf(AbortError);
    const resumed = await PerceptronReranker.train(sentences, {
      ...base,
      epochs: 3,
      checkpoint: cut,
      ...(existsSync(cut) ? { resume: cut } : {}),
    });
    expect(bytes(resumed).equals(whole)).toBe(true);
    expect(checkpointMeta(cut).step).toBe(3);
  }, 60_000);

  it('refuses a checkpoint of more epochs than asked for', async () => {
    const checkpoint = tmp.file('perceptron-long.ckpt');
    await PerceptronReranker.train(sentences, { ...base, epochs: 2, checkpoint });
    await expect(PerceptronReranker.train(sentences, { ...base, epochs: 1, resume: checkpoint })).rejects.toThrow(
      /checkpoint has 2 epochs, more than the 1 asked for/,
    );
  }, 60_000);
});
