/**
 * The train-reranker methods. Each takes the training (and optional dev) problem over one
 * feature dictionary and returns a RerankerModel; add a method by adding an entry to
 * `rerankerTrainers` (the CLI's --method list is its keys).
 */
import { TrainProgressBar } from '../progress.js';
import { rateStamp, type TrainProgress } from '../train-progress.js';
import {
  boostPrefixCurve,
  boostWeights,
  boostWork,
  chooseRoundsOnDev,
  chosenScore,
  trainBoost,
  trainLoglinear,
  type BoostModelData,
  type LoglinearModelData,
  type RerankDataHandle,
  type TrainBoostOptions,
} from './boost.js';
import { compactReranker, type RerankerModel } from './reranker.js';
import { BOOST_EPS, LOGLINEAR_C, RERANK_ROUNDS } from '../options/rerank.js';
import { fingerprintOf, loadCheckpoint, saveCheckpoint, type CheckpointTrainer } from '../io/checkpoint.js';
import { decodeBoostModel, encodeBoostModel } from './boost.js';

export interface RerankerTrainOptions {
  /** Boosting / LogLoss rounds (or L-BFGS iterations for loglinear). */
  rounds?: number;
  /** Smoothing values to try; the best on dev wins (boost). */
  eps?: number[];
  weighting?: 'score' | 'uniform';
  /** Gaussian prior C values to try (loglinear), or the LogLoss selection penalty (first value). */
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

/** What a caller inside the package may set beside the options (the pipeline's reranker steps). */
export interface TrainerKnobs {
  /** Boosting rounds per native call between progress reports and checkpoints. */
  chunk?: number;
  /** The rounds at which dev chooses N, given the rounds trained (default: every `devStep`). */
  devRounds?: (rounds: number) => number[];
  /** The checkpoints to keep, instead of the ones `options.checkpoint`/`resume` name. */
  checkpoints?: RerankCheckpoints;
  /** Progress of one setting (e.g. `eps=0.001`), beside `options.onProgress`. */
  onSettingProgress?: (setting: string, p: TrainProgress) => void;
  /** One line per setting trained: what it reached on dev. */
  log?: (line: string) => void;
}

/** A dev curve of one setting: summed dev Score against rounds. */
export interface DevCurve {
  label: string;
  x: number[];
  y: number[];
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
 * Checkpoints of the linear rerankers: one binary section per setting tried (per eps of
 * boosting: its rounds; per C of the log-linear reranker: its L-BFGS state), so a resumed
 * run continues every setting, and the choice among them on dev is made again from those.
 */
export class RerankCheckpoints {
  /** Sections of the resumed checkpoint, updated as training goes. */
  readonly sections: Record<string, Uint8Array> = {};
  private readonly fingerprint: string;
  private readonly file: string | undefined;

  /** `shaping`: the options a resume must repeat (the data is fingerprinted too). */
  constructor(
    private readonly trainer: CheckpointTrainer,
    input: RerankerTrainInput,
    private readonly shaping: Record<string, unknown>,
  ) {
    const { train, dev, dictionary } = input;
    const parts: (string | Uint8Array)[] = [JSON.stringify(shaping), dictionary.join('\n')];
    for (const data of dev ? [train, dev] : [train]) {
      for (const a of Object.values(data.arrays()) as (ArrayBufferView | number)[]) {
        parts.push(typeof a === 'number' ? String(a) : new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      }
    }
    this.fingerprint = fingerprintOf(parts);
    this.file = input.options.checkpoint;
    const resume = input.options.resume;
    if (resume !== undefined)
      Object.assign(
        this.sections,
        loadCheckpoint(resume, trainer, { fingerprint: this.fingerprint, options: shaping }).sections,
      );
  }

  /** A checkpoint file is written (not only resumed from). */
  get writes(): boolean {
    return this.file !== undefined;
  }

  /** Writes the sections (atomically) when a checkpoint file was asked for. */
  save(step: number): void {
    if (this.file === undefined) return;
    saveCheckpoint(this.file, {
      trainer: this.trainer,
      step,
      fingerprint: this.fingerprint,
      options: this.shaping,
      state: null,
      sections: this.sections,
    });
  }
}

/** The checkpoints of a linear reranker's training, when a checkpoint or resume file is given (the pipeline's adapters use it too). */
export function rerankCheckpoints(
  trainer: CheckpointTrainer,
  input: RerankerTrainInput,
  shaping: Record<string, unknown>,
): RerankCheckpoints | undefined {
  const { checkpoint, resume } = input.options;
  return checkpoint === undefined && resume === undefined ? undefined : new RerankCheckpoints(trainer, input, shaping);
}
const checkpoints = rerankCheckpoints;

/** trainBoost's `resume` and `afterChunk` for the rounds kept in checkpoint section `section`. */
export function boostCheckpointing(
  saved: RerankCheckpoints | undefined,
  section: string,
): Pick<TrainBoostOptions, 'resume' | 'afterChunk'> {
  if (!saved) return {};
  return {
    resume: saved.sections[section] ? decodeBoostModel(saved.sections[section]) : undefined,
    afterChunk: (m) => {
      saved.sections[section] = encodeBoostModel(m);
      saved.save(m.features.length);
    },
  };
}

/**
 * trainLoglinear to `maxIterations`; with checkpoints, one iteration per call and the L-BFGS
 * state saved in section `section` after each (resumed from it when present).
 */
export async function loglinearCheckpointed(
  train: RerankDataHandle,
  common: Omit<NonNullable<Parameters<typeof trainLoglinear>[1]>, 'maxIterations' | 'resume' | 'saveState'>,
  maxIterations: number,
  saved: RerankCheckpoints | undefined,
  section: string,
): Promise<LoglinearModelData> {
  let r = await trainLoglinear(train, {
    ...common,
    // Writing checkpoints: one iteration per call, the state saved after each.
    maxIterations: saved?.writes ? Math.min(maxIterations, 1) : maxIterations,
    resume: saved?.sections[section],
    saveState: saved !== undefined,
  });
  while (saved !== undefined && r.state !== undefined) {
    saved.sections[section] = r.state;
    saved.save(r.iterations);
    if (r.converged || r.iterations >= maxIterations) break;
    r = await trainLoglinear(train, { ...common, maxIterations: r.iterations + 1, resume: r.state, saveState: true });
  }
  return r;
}

/** The first round count of `x` with the highest dev Score. */
function firstBest(x: readonly number[], y: ArrayLike<number>): { rounds: number; score: number } {
  let at = 0;
  for (let i = 1; i < y.length; i++) if (y[i] > y[at]) at = i;
  return { rounds: x[at], score: y[at] };
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
  let best: { model: BoostModelData; n: number; score: number; eps: number } | undefined;
  const curves: DevCurve[] = [];
  const saved =
    knobs.checkpoints ??
    checkpoints('boost-reranker', input, {
      method,
      eps: epsList,
      weighting: options.weighting ?? 'score',
      devStep: options.devStep ?? null,
      ...(method === 'logloss' ? { l2: options.l2?.[0] ?? null } : {}),
    });
  for (const [index, eps] of epsList.entries()) {
    const stamp = rateStamp();
    const setting = `${name}${epsList.length > 1 ? ` eps=${eps}` : ''}`;
    const bar = new TrainProgressBar(setting);
    const { model } = await trainBoost(train, {
      rounds,
      method,
      eps,
      weighting: options.weighting,
      l2: options.l2?.[0],
      threads: options.threads,
      signal: options.signal,
      dev,
      chunk: knobs.chunk ?? (method === 'logloss' ? 10 : 1000),
      ...boostCheckpointing(saved, `rounds:${index}`),
      onProgress: (s) => {
        const event = stamp({ phase: 'round', done: s.rounds, total: rounds, loss: s.loss, devScore: s.devScore });
        options.onProgress?.(event);
        knobs.onSettingProgress?.(`eps=${eps}`, event);
        if (options.progress === false) return;
        bar.onProgress(
          event,
          method === 'sparse' ? `Work ${s.work.toFixed(2)}  Savings ${s.savings.toFixed(0)}` : undefined,
        );
      },
    });
    if (options.progress !== false) bar.finish();
    let n = model.features.length;
    let score = NaN;
    if (dev) {
      let pick: { rounds: number; score: number };
      if (knobs.devRounds) {
        const x = knobs.devRounds(model.features.length);
        const y = Array.from(boostPrefixCurve(dev, model, x, options.threads));
        curves.push({ label: `eps=${eps}`, x, y });
        pick = firstBest(x, y);
      } else {
        const c = chooseRoundsOnDev(
          dev,
          model,
          options.devStep ?? Math.max(1, Math.ceil(model.features.length / 200)),
          options.threads,
        );
        curves.push({ label: `eps=${eps}`, x: c.checkpoints, y: Array.from(c.curve) });
        pick = c;
      }
      n = pick.rounds;
      score = pick.score;
      knobs.log?.(`eps=${eps}: ${model.features.length} rounds; best dev Score ${score.toFixed(1)} after ${n} rounds`);
    }
    if (!best || score > best.score) best = { model, n, score, eps };
  }
  const b = best as NonNullable<typeof best>;
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
  return { model: compactReranker(name, b.model.a0, dictionary, dense, b.model, info), a0: b.model.a0, dense, curves };
}

async function loglinear(
  { train, dev, dictionary, options }: RerankerTrainInput,
  knobs: TrainerKnobs = {},
): Promise<TrainedLinear> {
  const l2s = options.l2 ?? [LOGLINEAR_C];
  let best:
    { a0: number; weights: Float64Array; score: number; l2: number; objective: number; iterations: number } | undefined;
  const saved =
    knobs.checkpoints ?? checkpoints('loglinear-reranker', { train, dev, dictionary, options }, { l2: l2s });
  for (const [index, l2] of l2s.entries()) {
    const maxIterations = options.rounds ?? RERANK_ROUNDS.loglinear;
    const stamp = rateStamp();
    const bar = new TrainProgressBar(`loglinear C=${l2}`, { lossName: 'objective' });
    const onIteration = (iteration: number, objective: number): void => {
      const event = stamp({ phase: 'iteration', done: iteration, total: maxIterations, loss: objective });
      options.onProgress?.(event);
      knobs.onSettingProgress?.(`C=${l2}`, event);
      if (options.progress !== false) bar.onProgress(event);
    };
    const common = { l2, threads: options.threads, signal: options.signal, onIteration };
    const r = await loglinearCheckpointed(train, common, maxIterations, saved, `lbfgs:${index}`);
    const score = dev ? chosenScore(dev, r.a0, r.weights, options.threads) : NaN;
    if (options.progress !== false)
      bar.finish(
        `objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations${dev ? `  dev ${score.toFixed(1)}` : ''}`,
      );
    knobs.log?.(
      `C=${l2}: objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations${dev ? `; dev Score ${score.toFixed(1)}` : ''}`,
    );
    if (!best || score > best.score) best = { ...r, score, l2 };
  }
  const b = best as NonNullable<typeof best>;
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
