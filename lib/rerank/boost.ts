/**
 * The boosting reranker (Collins & Koo 2005) and the log-linear reranker (Collins 2005,
 * lecture notes) over n-best lists held natively as typed arrays.
 *
 *   const data = await rerankData({ sentencePtr, logprob, score, rowPtr, cols, numFeatures });
 *   const { model } = await trainBoost(data, { rounds: 100_000, eps: 0.001 });
 *   const curve = boostPrefixCurve(dev, model, [1000, 2000, 5000]);
 */
import { BOOST_EPS, LOGLINEAR_C, LOGLOSS_L2, RERANK_ROUNDS, SYNTHETIC_RERANK_DEFAULTS } from '../options/rerank.js';
import { cancelFlagFor, native, resolveThreads, type CancelFlagHandle } from '../native.js';

/** An n-best problem as CSR arrays: sentence i owns candidates [sentencePtr[i], sentencePtr[i+1]). */
export interface RerankArrays {
  sentencePtr: Float64Array | Int32Array;
  /** L(x), the base model's log-probability, per candidate. */
  logprob: Float64Array;
  /** Score(x) per candidate; needed for training and dev evaluation. */
  score?: Float64Array;
  /** Candidate c's binary features are cols[rowPtr[c] .. rowPtr[c+1]). */
  rowPtr: Float64Array | Int32Array;
  cols: Int32Array;
  numFeatures: number;
}

export interface RerankDataHandle {
  readonly sentences: number;
  readonly candidates: number;
  readonly nnz: number;
  readonly numFeatures: number;
  arrays(): Required<RerankArrays>;
}

export interface SyntheticOptions {
  sentences?: number;
  candidatesPerSentence?: number;
  features?: number;
  sharedPerSentence?: number;
  privatePerCandidate?: number;
  zipfExponent?: number;
  seed?: number;
  threads?: number;
}

/** A trained boosting (or LogLoss-selection) model: a_0 and every round. */
export interface BoostModelData {
  numFeatures: number;
  a0: number;
  eps: number;
  weighting: 'score' | 'uniform';
  /** T of Collins & Koo (2005): the sum of |B+| + |B-| over pairs. */
  totalCost: number;
  initialLoss: number;
  /** N chosen on dev; -1 = all rounds. */
  chosenRounds: number;
  features: Int32Array;
  deltas: Float64Array;
  losses: Float64Array;
  costs: Float64Array;
}

export interface BoostStats {
  rounds: number;
  loss: number;
  a0: number;
  pairs: number;
  totalCost: number;
  work: number;
  savings: number;
  done?: number;
}

/** The native boosting trainer of one setting: `init` (pairs, a_0, resumed rounds replayed), then `run` rounds at a time. */
export interface BoostTrainerHandle {
  init(cancel?: CancelFlagHandle): Promise<BoostStats>;
  run(rounds: number, cancel?: CancelFlagHandle): Promise<BoostStats & { done: number }>;
  model(): BoostModelData;
  stats(): BoostStats;
}

/** The boosting trainer's options as the binding reads them: every field given (a0 <= 0: search a_0). */
interface NativeBoostOptions {
  method: BoostMethod;
  eps: number;
  weighting: 'score' | 'uniform';
  l2: number;
  a0: number;
  threads: number;
  resume?: Uint8Array;
}

export interface BoostAddon {
  RerankData: {
    build(arrays: RerankArrays, threads: number): Promise<RerankDataHandle>;
    synthetic(options: Required<SyntheticOptions>): Promise<RerankDataHandle>;
  };
  BoostTrainer: new (data: RerankDataHandle, options: NativeBoostOptions) => BoostTrainerHandle;
  boostPrefixCurve(
    dev: RerankDataHandle,
    model: BoostModelData,
    checkpoints: Float64Array,
    threads: number,
  ): Float64Array;
  boostModelBytes(model: BoostModelData): Uint8Array;
  boostModelFromBytes(bytes: Uint8Array): BoostModelData;
  rerankScores(
    data: RerankDataHandle,
    a0: number,
    weights: Float64Array,
    threads: number,
  ): { scores: Float64Array; chosen: Float64Array };
  trainLoglinear(
    data: RerankDataHandle,
    options: { l2: number; maxIterations: number; threads: number; resume?: Uint8Array; saveState?: boolean },
    cancel?: CancelFlagHandle,
    progress?: Float64Array,
  ): Promise<LoglinearModelData>;
}

export interface LoglinearModelData {
  a0: number;
  weights: Float64Array;
  objective: number;
  iterations: number;
  /** L-BFGS can make no further progress. */
  converged?: boolean;
  /** The L-BFGS state to continue from (with `saveState`), for a training checkpoint. */
  state?: Uint8Array;
}

const addon = (): BoostAddon => native<BoostAddon>();

/**
 * Copies the arrays into native memory; the rows are sorted, de-duplicated and validated
 * off the JS thread (seconds on large lists).
 */
export function rerankData(arrays: RerankArrays, threads?: number): Promise<RerankDataHandle> {
  return addon().RerankData.build(arrays, resolveThreads(threads));
}

/** A seeded random problem shaped like the data of Collins & Koo (2005) (defaults: 36,000 sentences, 500,000 features). */
export function syntheticRerankData(options: SyntheticOptions = {}): Promise<RerankDataHandle> {
  return addon().RerankData.synthetic({
    ...SYNTHETIC_RERANK_DEFAULTS,
    ...options,
    threads: resolveThreads(options.threads),
  });
}

export type BoostMethod = 'sparse' | 'naive' | 'logloss';

export interface TrainBoostOptions {
  rounds: number;
  /** 'sparse' (figure 4, default), 'naive' (figure 3) or 'logloss' (section 4.6). */
  method?: BoostMethod;
  eps?: number;
  weighting?: 'score' | 'uniform';
  /** L2 penalty C of LogLoss selection. */
  l2?: number;
  /** Fixes a_0 instead of searching it. */
  a0?: number;
  threads?: number;
  /** Rounds per native call between progress reports (default 1000). */
  chunk?: number;
  signal?: AbortSignal;
  /** With dev data, every progress report carries the summed dev Score of the rounds so far. */
  dev?: RerankDataHandle;
  onProgress?: (stats: BoostStats & { devScore?: number }) => void;
  /** Continue from these rounds (a checkpoint of the same problem, a0, eps and weighting): they are replayed exactly. */
  resume?: BoostModelData;
  /** Called with the rounds so far after every chunk (for a training checkpoint). */
  afterChunk?: (model: BoostModelData) => void;
}

/** The native trainer of one boosting setting (the options of `trainBoost` that shape the rounds). */
export function boostTrainer(
  data: RerankDataHandle,
  options: Pick<TrainBoostOptions, 'method' | 'eps' | 'weighting' | 'l2' | 'a0' | 'threads' | 'resume'>,
): BoostTrainerHandle {
  return new (addon().BoostTrainer)(data, {
    method: options.method ?? 'sparse',
    eps: options.eps ?? BOOST_EPS,
    weighting: options.weighting ?? 'score',
    l2: options.l2 ?? LOGLOSS_L2,
    a0: options.a0 ?? -1,
    threads: resolveThreads(options.threads),
    ...(options.resume ? { resume: encodeBoostModel(options.resume) } : {}),
  });
}

/** Runs boosting rounds; stops early when no feature can lower the loss. */
export async function trainBoost(
  data: RerankDataHandle,
  options: TrainBoostOptions,
): Promise<{ model: BoostModelData; stats: BoostStats }> {
  const trainer = boostTrainer(data, options);
  const { flag, dispose } = cancelFlagFor(options.signal);
  try {
    let stats = await trainer.init(flag);
    options.onProgress?.(stats);
    const chunk = Math.max(1, options.chunk ?? 1000);
    let devScore: number | undefined;
    let devAt = performance.now();
    while (stats.rounds < options.rounds) {
      const want = Math.min(chunk, options.rounds - stats.rounds);
      const r = await trainer.run(want, flag);
      stats = r;
      if (options.onProgress) {
        // The dev score replays every round so far: refresh it at most every 3 s (and at the end).
        const last = r.done < want || stats.rounds >= options.rounds;
        if (options.dev && (last || performance.now() - devAt > 3000)) {
          devScore = boostPrefixCurve(options.dev, trainer.model(), [r.rounds], options.threads)[0];
          devAt = performance.now();
        }
        options.onProgress({ ...stats, devScore });
      }
      options.afterChunk?.(trainer.model());
      if (r.done < want) break;
    }
    return { model: trainer.model(), stats };
  } finally {
    dispose();
  }
}

/** Summed dev Score after the first N rounds, for each N of `checkpoints` (ascending). */
export function boostPrefixCurve(
  dev: RerankDataHandle,
  model: BoostModelData,
  checkpoints: readonly number[],
  threads?: number,
): Float64Array {
  return addon().boostPrefixCurve(dev, model, Float64Array.from(checkpoints), resolveThreads(threads));
}

/** Picks N maximizing the summed dev Score over 0, step, 2 step, ..., rounds (first best wins). */
export function chooseRoundsOnDev(
  dev: RerankDataHandle,
  model: BoostModelData,
  step = 1000,
  threads?: number,
): { rounds: number; score: number; checkpoints: number[]; curve: Float64Array } {
  const total = model.features.length;
  const checkpoints: number[] = [];
  for (let n = 0; n < total; n += Math.max(1, step)) checkpoints.push(n);
  checkpoints.push(total);
  const curve = boostPrefixCurve(dev, model, checkpoints, threads);
  let best = 0;
  for (let i = 1; i < curve.length; i++) if (curve[i] > curve[best]) best = i;
  return { rounds: checkpoints[best], score: curve[best], checkpoints, curve };
}

/** Dense a_1..a_m after the first n rounds (n = -1: all). */
export function boostWeights(model: BoostModelData, n = model.chosenRounds): Float64Array {
  const rounds = n < 0 ? model.features.length : Math.min(n, model.features.length);
  const w = new Float64Array(model.numFeatures);
  for (let t = 0; t < rounds; t++) w[model.features[t]] += model.deltas[t];
  return w;
}

/** Work(n) = sum_{t<=n} C_t / T and Savings(n) = n / Work(n) (Collins & Koo 2005). */
export function boostWork(model: BoostModelData, n = model.features.length): { work: number; savings: number } {
  const rounds = Math.min(n, model.features.length);
  let sum = 0;
  for (let t = 0; t < rounds; t++) sum += model.costs[t];
  const work = model.totalCost > 0 ? sum / model.totalCost : 0;
  return { work, savings: work > 0 ? rounds / work : 0 };
}

/** F(x) = a0 L(x) + sum_k w_k h_k(x) for every candidate, and each sentence's argmax (index within the sentence). */
export function rerankScores(
  data: RerankDataHandle,
  a0: number,
  weights: Float64Array,
  threads?: number,
): { scores: Float64Array; chosen: Float64Array } {
  return addon().rerankScores(data, a0, weights, resolveThreads(threads));
}

/** Summed Score of each sentence's argmax candidate. */
export function chosenScore(data: RerankDataHandle, a0: number, weights: Float64Array, threads?: number): number {
  const { chosen } = rerankScores(data, a0, weights, threads);
  const { sentencePtr, score } = data.arrays();
  let sum = 0;
  for (let i = 0; i < chosen.length; i++) if (chosen[i] >= 0) sum += score[sentencePtr[i] + chosen[i]];
  return sum;
}

/** The log-linear reranker (Gaussian prior C = l2) trained by L-BFGS on all cores. */
export async function trainLoglinear(
  data: RerankDataHandle,
  options: {
    l2?: number;
    maxIterations?: number;
    threads?: number;
    signal?: AbortSignal;
    /** Called (from a 200 ms poll on the JS thread) with the latest L-BFGS iteration and objective. */
    onIteration?: (iteration: number, objective: number) => void;
    /** Continue from this L-BFGS state (a previous result's `state`); maxIterations counts all iterations. */
    resume?: Uint8Array;
    /** Return the L-BFGS state in `state`, to continue from. */
    saveState?: boolean;
  } = {},
): Promise<LoglinearModelData> {
  const { flag, dispose } = cancelFlagFor(options.signal);
  const progress = new Float64Array([0, Number.NaN]);
  let seen = 0;
  const poll = (): void => {
    const iteration = progress[0];
    if (iteration > seen && options.onIteration) {
      seen = iteration;
      options.onIteration(iteration, progress[1]);
    }
  };
  const timer = options.onIteration ? setInterval(poll, 200) : undefined;
  try {
    const maxIterations = options.maxIterations ?? RERANK_ROUNDS.loglinear;
    const result = await addon().trainLoglinear(
      data,
      {
        l2: options.l2 ?? LOGLINEAR_C,
        maxIterations,
        threads: resolveThreads(options.threads),
        resume: options.resume,
        saveState: options.saveState,
      },
      flag,
      progress,
    );
    // The last report is the final state (an iteration that ends the search reports nothing).
    progress[0] = result.iterations;
    progress[1] = result.objective;
    return result;
  } finally {
    if (timer) clearInterval(timer);
    poll();
    dispose();
  }
}

export function encodeBoostModel(model: BoostModelData): Uint8Array {
  return addon().boostModelBytes(model);
}

export function decodeBoostModel(bytes: Uint8Array): BoostModelData {
  return addon().boostModelFromBytes(bytes);
}
