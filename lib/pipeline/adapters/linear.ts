/**
 * Boosting (Collins & Koo 2005) and the log-linear reranker (lib/rerank) behind the pipeline's
 * Reranker interface. Features: the parse-tree features of Collins & Koo (2005) for trees, tag-sequence
 * features (tag-features.ts) for tags; extracted once per candidate set on worker threads
 * and shared by every reranker of the run; the count cutoff is taken on the training set.
 */
import type { NbestSentence } from '../../io/nbest.js';
import {
  boostPrefixCurve, boostWeights, chosenScore, rerankScores, trainBoost,
  type BoostModelData, type RerankDataHandle,
} from '../../rerank/boost.js';
import { candidateFeatureIds, featureIdCount, featureName, type CandidateFeatureIds } from '../../rerank/candidate-feature-ids.js';
import type { FeatureTable } from '../../rerank/feature-table.js';
import { tableData } from '../../rerank/table-data.js';
import type { CandidateSet, Curve, Reranker, StepContext, TrainedReranker } from '../components.js';
import type { BoostConfig, LoglinearConfig } from '../config.js';
import { boostCheckpointing, loglinearCheckpointed, rerankCheckpoints, type RerankCheckpoints } from '../../rerank/trainers.js';
import type { CheckpointTrainer } from '../../io/checkpoint.js';
import { describeTreeSettings, learnTreeSettings, type TreeSettings } from '../../rerank/tree-settings.js';
import { loadHeadRules } from '../../io/head-rules-file.js';
import { parseTree } from '../../trees/bracket-parser.js';

/** The features of a candidate set: interned ids per candidate (candidate-feature-ids.ts), its sentence ids and Scores. */
interface SetFeatures extends CandidateFeatureIds {
  ids: string[];
  score: Float64Array;
}

const settingsCache = new WeakMap<readonly NbestSentence[], Map<string, TreeSettings | undefined>>();

/** Head rules and word classes learned from a training set's gold trees (undefined for tag candidates). */
export function treeSettingsFor(train: CandidateSet, headRules: string, ctx: StepContext): TreeSettings | undefined {
  let bySource = settingsCache.get(train.sentences);
  if (!bySource) settingsCache.set(train.sentences, (bySource = new Map()));
  if (!bySource.has(headRules)) {
    const gold = train.sentences.filter((s) => typeof s.gold === 'string' && s.candidates.some((c) => c.tree !== undefined));
    let settings: TreeSettings | undefined;
    if (gold.length > 0) {
      const learned = learnTreeSettings(gold.map((s) => parseTree(s.gold as string)), loadHeadRules(headRules));
      ctx.log?.(`  ${describeTreeSettings(learned)}`);
      if (learned.warning) ctx.log?.(`  warning: ${learned.warning}`);
      settings = learned.settings;
    }
    bySource.set(headRules, settings);
  }
  return bySource.get(headRules);
}

/** Interned features of every candidate (scores are the pipeline's Score(x)); trees use `settings`. */
export async function candidateFeatures(set: CandidateSet, ctx: StepContext, settings?: TreeSettings): Promise<SetFeatures> {
  const features = await candidateFeatureIds(set.sentences, settings, {
    file: '<candidates>',
    threads: ctx.threads,
    signal: ctx.signal,
    onProgress: (done) => ctx.progress?.('reranking features', done, set.sentences.length),
  });
  return { ...features, ids: set.sentences.map((s) => s.id), score: Float64Array.from(set.scores.flat()) };
}

/**
 * The ids seen on candidates of at least `cutoff` different sentences, in the order they are
 * first seen (as selectFeatures in rerank/feature-table.ts orders names).
 */
function selectIds(f: SetFeatures, cutoff: number): number[] {
  const sentences = new Map<number, { count: number; last: number }>();
  for (let i = 0; i + 1 < f.sentencePtr.length; i++) {
    for (let c = f.sentencePtr[i]; c < f.sentencePtr[i + 1]; c++) {
      for (let k = f.rowPtr[c]; k < f.rowPtr[c + 1]; k++) {
        const e = sentences.get(f.cols[k]);
        if (e === undefined) sentences.set(f.cols[k], { count: 1, last: i });
        else if (e.last !== i) {
          e.count++;
          e.last = i;
        }
      }
    }
  }
  const out: number[] = [];
  for (const [id, e] of sentences) if (e.count >= cutoff) out.push(id);
  return out;
}

/** A feature table of `f` over the dictionary `selected` (ids outside it are dropped), as buildFeatureTable makes it. */
function tableOver(f: SetFeatures, selected: readonly number[], names: string[]): FeatureTable {
  const position = new Int32Array(featureIdCount()).fill(-1);
  selected.forEach((id, at) => (position[id] = at));
  const rowPtr = new Float64Array(f.rowPtr.length);
  const cols = new Int32Array(f.cols.length);
  let n = 0;
  for (let c = 0; c + 1 < f.rowPtr.length; c++) {
    const start = n;
    for (let k = f.rowPtr[c]; k < f.rowPtr[c + 1]; k++) {
      const at = f.cols[k] < position.length ? position[f.cols[k]] : -1;
      if (at >= 0) cols[n++] = at;
    }
    cols.subarray(start, n).sort();
    rowPtr[c + 1] = n;
  }
  return { names, ids: f.ids, sentencePtr: Float64Array.from(f.sentencePtr), rowPtr, cols: cols.slice(0, n), logprob: f.logprob, score: f.score, cutoff: 0 };
}

interface Problem {
  dictionary: string[];
  data: (set: CandidateSet) => Promise<RerankDataHandle>;
}

/** The native problems of a training set's dictionary (cutoff on train), for any set. */
async function problem(train: CandidateSet, cutoff: number, headRules: string, ctx: StepContext): Promise<Problem> {
  const settings = treeSettingsFor(train, headRules, ctx);
  const selected = selectIds(await candidateFeatures(train, ctx, settings), Math.max(1, cutoff));
  const dictionary = selected.map(featureName);
  ctx.log?.(`  ${dictionary.length} features seen on candidates of >= ${Math.max(1, cutoff)} training sentences`);
  const handles = new Map<CandidateSet, RerankDataHandle>();
  return {
    dictionary,
    async data(set) {
      let h = handles.get(set);
      if (!h) {
        h = tableData(tableOver(await candidateFeatures(set, ctx, settings), selected, dictionary), ctx.threads);
        handles.set(set, h);
      }
      return h;
    },
  };
}

/**
 * The feature tables of `sets` over the dictionary of `train` (count cutoff on train, head
 * rules as a reranker entry's `headRules`): the tables the rerankers train on (bench/).
 */
export async function featureTables(train: CandidateSet, sets: readonly CandidateSet[], cutoff: number, headRules: string, ctx: StepContext): Promise<FeatureTable[]> {
  const settings = treeSettingsFor(train, headRules, ctx);
  const selected = selectIds(await candidateFeatures(train, ctx, settings), Math.max(1, cutoff));
  const dictionary = selected.map(featureName);
  return Promise.all(sets.map(async (set) => tableOver(await candidateFeatures(set, ctx, settings), selected, dictionary)));
}

/** The problem of a training set, with its train and dev data. */
async function trainAndDev(train: CandidateSet, dev: CandidateSet, cutoff: number, headRules: string, ctx: StepContext): Promise<{ p: Problem; trainData: RerankDataHandle; devData: RerankDataHandle }> {
  const p = await problem(train, cutoff, headRules, ctx);
  return { p, trainData: await p.data(train), devData: await p.data(dev) };
}

/** Rounds at which the dev Score is evaluated: every 0.1% of the rounds up to 10%, then every 0.5%. */
export function checkpoints(total: number): number[] {
  const out = new Set<number>([0, total]);
  const fine = Math.max(1, Math.round(total / 1000));
  for (let n = fine; n <= total / 10; n += fine) out.add(n);
  const coarse = Math.max(1, Math.round(total / 200));
  for (let n = coarse; n < total; n += coarse) out.add(n);
  return [...out].sort((a, b) => a - b);
}

/**
 * A reranker's training checkpoints where the step keeps them (a distributed job: the store),
 * undefined when the step keeps none. The dev data is not in the fingerprint: it chooses among
 * the settings after training, it does not shape them.
 */
function stepCheckpoints(ctx: StepContext, label: string, trainer: CheckpointTrainer, train: RerankDataHandle, dictionary: readonly string[], shaping: Record<string, unknown>): RerankCheckpoints | undefined {
  const files = ctx.checkpoints?.(label);
  return files && rerankCheckpoints(trainer, { train, dictionary, options: files }, shaping);
}

function choices(chosen: Float64Array): number[] {
  return Array.from(chosen, (c) => (c >= 0 ? c : 0));
}

export function boostReranker(config: BoostConfig & { name: string }): Reranker {
  return {
    name: config.name,
    async train(train, dev, ctx): Promise<TrainedReranker> {
      const { p, trainData, devData } = await trainAndDev(train, dev, config.cutoff, config.headRules, ctx);
      let best: { model: BoostModelData; n: number; score: number; eps: number } | undefined;
      const curves: Curve[] = [];
      // A job retried after its worker died continues each eps setting from its last chunk of rounds.
      const saved = stepCheckpoints(ctx, config.name, 'boost-reranker', trainData, p.dictionary, { method: 'sparse', eps: config.eps, weighting: config.weighting ?? 'score' });
      for (const [index, eps] of config.eps.entries()) {
        const { model } = await trainBoost(trainData, {
          rounds: config.rounds, eps, weighting: config.weighting, threads: ctx.threads, signal: ctx.signal, chunk: 500,
          ...boostCheckpointing(saved, `rounds:${index}`),
          onProgress: (s) => ctx.progress?.(`${config.name} eps=${eps}`, s.rounds, config.rounds, `loss ${s.loss.toPrecision(6)}`),
        });
        const x = checkpoints(model.features.length);
        const y = Array.from(boostPrefixCurve(devData, model, x, ctx.threads));
        let at = 0;
        for (let i = 1; i < y.length; i++) if (y[i] > y[at]) at = i;
        const pick = { rounds: x[at], score: y[at] };
        curves.push({ label: `eps=${eps}`, x, y });
        ctx.log?.(`  eps=${eps}: ${model.features.length} rounds; best dev Score ${pick.score.toFixed(1)} after ${pick.rounds} rounds`);
        if (!best || pick.score > best.score) best = { model, n: pick.rounds, score: pick.score, eps };
      }
      const b = best as NonNullable<typeof best>;
      const weights = boostWeights(b.model, b.n);
      return {
        selected: { eps: b.eps, rounds: b.n, a0: +b.model.a0.toFixed(3), features: p.dictionary.length },
        curves,
        curveAxis: 'rounds',
        async choose(set) {
          return choices(rerankScores(await p.data(set), b.model.a0, weights, ctx.threads).chosen);
        },
      };
    },
  };
}

export function loglinearReranker(config: LoglinearConfig & { name: string }): Reranker {
  return {
    name: config.name,
    async train(train, dev, ctx): Promise<TrainedReranker> {
      const { p, trainData, devData } = await trainAndDev(train, dev, config.cutoff, config.headRules, ctx);
      let best: { a0: number; weights: Float64Array; score: number; l2: number } | undefined;
      const ys: number[] = [];
      const saved = stepCheckpoints(ctx, config.name, 'loglinear-reranker', trainData, p.dictionary, { l2: config.l2 });
      for (const [i, l2] of config.l2.entries()) {
        ctx.progress?.(`${config.name}`, i, config.l2.length, `C=${l2}`);
        const r = await loglinearCheckpointed(trainData, { l2, threads: ctx.threads, signal: ctx.signal }, config.iterations, saved, `lbfgs:${i}`);
        const score = chosenScore(devData, r.a0, r.weights, ctx.threads);
        ys.push(score);
        ctx.log?.(`  C=${l2}: objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations; dev Score ${score.toFixed(1)}`);
        if (!best || score > best.score) best = { a0: r.a0, weights: r.weights, score, l2 };
      }
      ctx.progress?.(`${config.name}`, config.l2.length, config.l2.length);
      const b = best as NonNullable<typeof best>;
      return {
        selected: { C: b.l2, features: p.dictionary.length },
        async choose(set) {
          return choices(rerankScores(await p.data(set), b.a0, b.weights, ctx.threads).chosen);
        },
      };
    },
  };
}
