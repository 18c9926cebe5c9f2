/**
 * The train-reranker methods. Each takes the training (and optional dev) problem over one
 * feature dictionary and returns a RerankerModel; add a method by adding an entry to
 * `rerankerTrainers` (the CLI's --method list is its keys). Each trains its settings through
 * the one training loop (runTraining, over the trainers of linear-training.ts).
 */
import type { TrainProgress } from '../train-progress.js';
import { boostWeights, boostWork, type RerankDataHandle } from './boost.js';
import { compactReranker, type RerankerModel } from './reranker.js';
import { BOOST_EPS, LOGLINEAR_C, LOGLINEAR_C_GRID, RERANK_ROUNDS } from '../options/rerank.js';
import type { CheckpointTrainer } from '../io/checkpoint.js';
import { runTraining } from '../training/loop.js';
import {
  BoostSettingsTrainer,
  LoglinearSettingsTrainer,
  type DevCurve,
  type SettingReports,
} from './linear-training.js';

export interface RerankerTrainOptions {
  /** Boosting / LogLoss rounds (or L-BFGS iterations for loglinear). */
  rounds?: number;
  /** Smoothing values to try; the best on dev wins (boost). */
  eps?: number[];
  weighting?: 'score' | 'uniform';
  /**
   * Gaussian prior C values to try (loglinear; default LOGLINEAR_C_GRID with dev, else
   * LOGLINEAR_C), or the LogLoss selection penalty (first value).
   */
  l2?: number[];
  /** Checkpoint spacing when choosing N on dev. */
  devStep?: number;
  threads?: number;
  signal?: AbortSignal;
  /** Draw progress on stderr (default true). */
  progress?: boolean;
  /** The common progress event (lib/train-progress.ts): rounds or iterations, loss, dev Score. */
  onProgress?: (p: TrainProgress) => void;
  /** Write a training checkpoint here after every chunk of rounds / every L-BFGS iteration (lib/io/checkpoint.ts). */
  checkpoint?: string;
  /** Continue from this checkpoint (same data and options; `rounds` may be larger). */
  resume?: string;
}

export interface RerankerTrainInput {
  train: RerankDataHandle;
  dev?: RerankDataHandle;
  dictionary: readonly string[];
  options: RerankerTrainOptions;
}

export type RerankerTrainer = (input: RerankerTrainInput) => Promise<RerankerModel>;

/** Where a pipeline step keeps a reranker's checkpoints (instead of `options.checkpoint`/`resume`). */
export interface StepCheckpoints {
  checkpoint?: string;
  resume?: string;
  /** The options a resume must repeat. The fingerprint covers them and the training data (not dev). */
  shaping: Record<string, unknown>;
}

/** What a caller inside the package may set beside the options (the pipeline's reranker steps). */
export interface TrainerKnobs {
  /** Boosting rounds per step (per native call) between progress reports and checkpoints. */
  chunk?: number;
  /** The rounds at which dev chooses N, given the rounds trained (default: every `devStep`). */
  devRounds?: (rounds: number) => number[];
  /** The checkpoints to keep, instead of the ones `options.checkpoint`/`resume` name. */
  checkpoints?: StepCheckpoints;
  /** Progress of one setting (e.g. `eps=0.001`), beside `options.onProgress`. */
  onSettingProgress?: (setting: string, p: TrainProgress) => void;
  /** One line per setting trained: what it reached on dev. */
  log?: (line: string) => void;
}

/** A trained linear reranker: the compact model, and a0 with the dense weights over the training dictionary. */
export interface TrainedLinear {
  model: RerankerModel;
  a0: number;
  dense: Float64Array;
  /** Boosting with dev data: one curve per eps. */
  curves: DevCurve[];
}

/**
 * Runs `trainer`'s settings through the training loop, with the checkpoints the options (or
 * a pipeline step) name: fingerprinted over `shaping`, the dictionary and the training data
 * (and the dev data when the options name them: it is part of a train-reranker run's input).
 */
async function runSettings(
  trainer: BoostSettingsTrainer | LoglinearSettingsTrainer,
  name: CheckpointTrainer,
  input: RerankerTrainInput,
  knobs: TrainerKnobs,
  shaping: Record<string, unknown>,
): Promise<void> {
  const { train, dev, dictionary, options } = input;
  const files = knobs.checkpoints ?? { checkpoint: options.checkpoint, resume: options.resume, shaping };
  const fingerprinted = knobs.checkpoints || !dev ? [train] : [train, dev];
  await runTraining(trainer, {
    total: trainer.total,
    evalEvery: trainer.perSetting,
    signal: options.signal,
    checkpoint: {
      trainer: name,
      file: files.checkpoint,
      resume: files.resume,
      options: files.shaping,
      fingerprint: function* () {
        yield JSON.stringify(files.shaping);
        yield dictionary.join('\n');
        for (const data of fingerprinted)
          for (const a of Object.values(data.arrays()) as (ArrayBufferView | number)[])
            yield typeof a === 'number' ? String(a) : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      },
    },
  });
}

/** A checkpoint is written or resumed from: the trainers keep every setting's state. */
function keepsState(input: RerankerTrainInput, knobs: TrainerKnobs): boolean {
  const files = knobs.checkpoints ?? input.options;
  return files.checkpoint !== undefined || files.resume !== undefined;
}

function reports(options: RerankerTrainOptions, knobs: TrainerKnobs): SettingReports {
  return {
    onProgress: options.onProgress,
    onSettingProgress: knobs.onSettingProgress,
    log: knobs.log,
    bars: options.progress !== false,
  };
}

async function selection(
  method: 'sparse' | 'logloss',
  name: string,
  input: RerankerTrainInput,
  knobs: TrainerKnobs = {},
): Promise<TrainedLinear> {
  const { train, dev, dictionary, options } = input;
  const rounds = options.rounds ?? RERANK_ROUNDS[method === 'logloss' ? 'logloss' : 'boost'];
  const epsList = method === 'logloss' ? [0] : (options.eps ?? [BOOST_EPS]);
  const trainer = new BoostSettingsTrainer(
    train,
    dev,
    {
      method,
      name,
      rounds,
      epsList,
      weighting: options.weighting,
      l2: options.l2?.[0],
      threads: options.threads,
      signal: options.signal,
      chunk: Math.max(1, knobs.chunk ?? (method === 'logloss' ? 10 : 1000)),
      devRounds: knobs.devRounds,
      devStep: options.devStep,
    },
    reports(options, knobs),
    keepsState(input, knobs),
  );
  try {
    await runSettings(trainer, 'boost-reranker', input, knobs, {
      method,
      eps: epsList,
      weighting: options.weighting ?? 'score',
      devStep: options.devStep ?? null,
      ...(method === 'logloss' ? { l2: options.l2?.[0] ?? null } : {}),
    });
  } finally {
    trainer.dispose();
  }
  const b = trainer.best as NonNullable<typeof trainer.best>;
  b.model.chosenRounds = b.n;
  const dense = boostWeights(b.model, b.n);
  const w = boostWork(b.model, b.n);
  const info: RerankerModel['info'] = {
    roundsTrained: b.model.features.length,
    rounds: b.n,
    a0: b.model.a0,
    initialLoss: b.model.initialLoss,
  };
  if (method === 'sparse')
    Object.assign(info, { eps: b.eps, weighting: b.model.weighting, work: w.work, savings: w.savings });
  if (dev) info.devScore = b.score;
  return {
    model: compactReranker(name, b.model.a0, dictionary, dense, b.model, info),
    a0: b.model.a0,
    dense,
    curves: trainer.curves,
  };
}

async function loglinear(input: RerankerTrainInput, knobs: TrainerKnobs = {}): Promise<TrainedLinear> {
  const { train, dev, dictionary, options } = input;
  const l2s = options.l2 ?? (dev ? [...LOGLINEAR_C_GRID] : [LOGLINEAR_C]);
  const trainer = new LoglinearSettingsTrainer(
    train,
    dev,
    {
      maxIterations: options.rounds ?? RERANK_ROUNDS.loglinear,
      l2s,
      threads: options.threads,
      signal: options.signal,
    },
    reports(options, knobs),
    keepsState(input, knobs),
  );
  await runSettings(trainer, 'loglinear-reranker', input, knobs, { l2: l2s });
  const b = trainer.best as NonNullable<typeof trainer.best>;
  const info: RerankerModel['info'] = { l2: b.l2, objective: b.objective, iterations: b.iterations };
  if (dev) info.devScore = b.score;
  return {
    model: compactReranker('loglinear', b.a0, dictionary, b.weights, undefined, info),
    a0: b.a0,
    dense: b.weights,
    curves: [],
  };
}

/** The methods by name, with the knobs and the dense weights (LinearReranker's training). */
export const linearTrainers: Record<
  string,
  (input: RerankerTrainInput, knobs?: TrainerKnobs) => Promise<TrainedLinear>
> = {
  boost: (input, knobs) => selection('sparse', 'boost', input, knobs),
  logloss: (input, knobs) => selection('logloss', 'logloss', input, knobs),
  loglinear,
};

export const rerankerTrainers: Record<string, RerankerTrainer> = Object.fromEntries(
  Object.entries(linearTrainers).map(([method, train]) => [
    method,
    async (input: RerankerTrainInput) => (await train(input)).model,
  ]),
);
