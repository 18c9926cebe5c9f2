/**
 * The train-reranker methods. Each takes the training (and optional dev) problem over one
 * feature dictionary and returns a RerankerModel; add a method by adding an entry to
 * `rerankerTrainers` (the CLI's --method list is its keys).
 */
import { TrainProgressBar } from '../progress.js';
import { rateStamp, type TrainProgress } from '../train-progress.js';
import {
  boostWeights, boostWork, chooseRoundsOnDev, chosenScore, trainBoost, trainLoglinear,
  type BoostModelData, type RerankDataHandle,
} from './boost.js';
import { compactReranker, type RerankerModel } from './reranker.js';
import { BOOST_EPS, LOGLINEAR_C, RERANK_ROUNDS } from '../options/rerank.js';

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
}

export interface RerankerTrainInput {
  train: RerankDataHandle;
  dev?: RerankDataHandle;
  dictionary: readonly string[];
  options: RerankerTrainOptions;
}

export type RerankerTrainer = (input: RerankerTrainInput) => Promise<RerankerModel>;

async function selection(method: 'sparse' | 'logloss', name: string, input: RerankerTrainInput): Promise<RerankerModel> {
  const { train, dev, dictionary, options } = input;
  const rounds = options.rounds ?? RERANK_ROUNDS[method === 'logloss' ? 'logloss' : 'boost'];
  const epsList = method === 'logloss' ? [0] : (options.eps ?? [BOOST_EPS]);
  let best: { model: BoostModelData; n: number; score: number; eps: number } | undefined;
  for (const eps of epsList) {
    const stamp = rateStamp();
    const bar = new TrainProgressBar(`${name}${epsList.length > 1 ? ` eps=${eps}` : ''}`);
    const { model } = await trainBoost(train, {
      rounds, method, eps, weighting: options.weighting, l2: options.l2?.[0], threads: options.threads, signal: options.signal, dev,
      chunk: method === 'logloss' ? 10 : 1000,
      onProgress: (s) => {
        const event = stamp({ phase: 'round', done: s.rounds, total: rounds, loss: s.loss, devScore: s.devScore });
        options.onProgress?.(event);
        if (options.progress === false) return;
        bar.onProgress(event, method === 'sparse' ? `Work ${s.work.toFixed(2)}  Savings ${s.savings.toFixed(0)}` : undefined);
      },
    });
    if (options.progress !== false) bar.finish();
    let n = model.features.length;
    let score = NaN;
    if (dev) {
      const pick = chooseRoundsOnDev(dev, model, options.devStep ?? Math.max(1, Math.ceil(model.features.length / 200)), options.threads);
      n = pick.rounds;
      score = pick.score;
    }
    if (!best || score > best.score) best = { model, n, score, eps };
  }
  const b = best as NonNullable<typeof best>;
  b.model.chosenRounds = b.n;
  const dense = boostWeights(b.model, b.n);
  const w = boostWork(b.model, b.n);
  const info: RerankerModel['info'] = {
    roundsTrained: b.model.features.length, rounds: b.n, a0: b.model.a0, initialLoss: b.model.initialLoss,
  };
  if (method === 'sparse') Object.assign(info, { eps: b.eps, weighting: b.model.weighting, work: w.work, savings: w.savings });
  if (dev) info.devScore = b.score;
  return compactReranker(name, b.model.a0, dictionary, dense, b.model, info);
}

const loglinear: RerankerTrainer = async ({ train, dev, dictionary, options }) => {
  const l2s = options.l2 ?? [LOGLINEAR_C];
  let best: { a0: number; weights: Float64Array; score: number; l2: number; objective: number; iterations: number } | undefined;
  for (const l2 of l2s) {
    const maxIterations = options.rounds ?? RERANK_ROUNDS.loglinear;
    const stamp = rateStamp();
    const bar = new TrainProgressBar(`loglinear C=${l2}`, { lossName: 'objective' });
    const r = await trainLoglinear(train, {
      l2, maxIterations, threads: options.threads, signal: options.signal,
      onIteration: (iteration, objective) => {
        const event = stamp({ phase: 'iteration', done: iteration, total: maxIterations, loss: objective });
        options.onProgress?.(event);
        if (options.progress !== false) bar.onProgress(event);
      },
    });
    const score = dev ? chosenScore(dev, r.a0, r.weights, options.threads) : NaN;
    if (options.progress !== false) bar.finish(`objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations${dev ? `  dev ${score.toFixed(1)}` : ''}`);
    if (!best || score > best.score) best = { ...r, score, l2 };
  }
  const b = best as NonNullable<typeof best>;
  const info: RerankerModel['info'] = { l2: b.l2, objective: b.objective, iterations: b.iterations };
  if (dev) info.devScore = b.score;
  return compactReranker('loglinear', b.a0, dictionary, b.weights, undefined, info);
};

export const rerankerTrainers: Record<string, RerankerTrainer> = {
  boost: (input) => selection('sparse', 'boost', input),
  logloss: (input) => selection('logloss', 'logloss', input),
  loglinear,
};
