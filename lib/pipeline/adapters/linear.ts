/**
 * Boosting (Collins & Koo 2005) and the log-linear reranker behind the pipeline's Reranker
 * interface: the problems built from the pipeline's features, then the one training path of
 * the linear rerankers (trainLinearReranker, lib/rerank/linear-reranker.ts). Features: the
 * parse-tree features of Collins & Koo (2005) for trees, tag-sequence features
 * (tag-features.ts) for tags; extracted once per candidate set on worker threads, interned,
 * and shared by every reranker of the run; the count cutoff (feature-table.ts) is taken on
 * the training set.
 */
import type { NbestSentence } from '../../io/nbest.js';
import { rerankScores, type RerankDataHandle } from '../../rerank/boost.js';
import { candidateFeatureIds, featureName, type CandidateFeatureIds } from '../../rerank/candidate-feature-ids.js';
import { buildIdFeatureTable, selectFeatureIds, type FeatureTable } from '../../rerank/feature-table.js';
import { tableData } from '../../rerank/table-data.js';
import { trainLinearReranker, type LinearTrainSettings } from '../../rerank/linear-reranker.js';
import type { CandidateSet, Reranker, StepContext, TrainedReranker } from '../components.js';
import type { BoostConfig, LoglinearConfig } from '../config.js';
import type { StepCheckpoints, TrainerKnobs } from '../../rerank/trainers.js';
import { stepRun } from '../../training/step-run.js';
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
    const gold = train.sentences.filter(
      (s) => typeof s.gold === 'string' && s.candidates.some((c) => c.tree !== undefined),
    );
    let settings: TreeSettings | undefined;
    if (gold.length > 0) {
      const learned = learnTreeSettings(
        gold.map((s) => parseTree(s.gold as string)),
        loadHeadRules(headRules),
      );
      ctx.log?.(`  ${describeTreeSettings(learned)}`);
      if (learned.warning) ctx.log?.(`  warning: ${learned.warning}`);
      settings = learned.settings;
    }
    bySource.set(headRules, settings);
  }
  return bySource.get(headRules);
}

/** Interned features of every candidate (scores are the pipeline's Score(x)); trees use `settings`. */
export async function candidateFeatures(
  set: CandidateSet,
  ctx: StepContext,
  settings?: TreeSettings,
): Promise<SetFeatures> {
  const features = await candidateFeatureIds(set.sentences, settings, {
    file: '<candidates>',
    threads: ctx.threads,
    signal: ctx.signal,
    onProgress: (done) => ctx.progress?.('reranking features', done, set.sentences.length),
  });
  return { ...features, ids: set.sentences.map((s) => s.id), score: Float64Array.from(set.scores.flat()) };
}

interface Problem {
  dictionary: string[];
  data: (set: CandidateSet) => Promise<RerankDataHandle>;
}

/** The native problems of a training set's dictionary (cutoff on train), for any set. */
async function problem(train: CandidateSet, cutoff: number, headRules: string, ctx: StepContext): Promise<Problem> {
  const settings = treeSettingsFor(train, headRules, ctx);
  const selected = selectFeatureIds(await candidateFeatures(train, ctx, settings), Math.max(1, cutoff));
  const dictionary = selected.map(featureName);
  ctx.log?.(`  ${dictionary.length} features seen on candidates of >= ${Math.max(1, cutoff)} training sentences`);
  const handles = new Map<CandidateSet, RerankDataHandle>();
  return {
    dictionary,
    async data(set) {
      let h = handles.get(set);
      if (!h) {
        h = tableData(
          buildIdFeatureTable(await candidateFeatures(set, ctx, settings), selected, dictionary),
          ctx.threads,
        );
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
export async function featureTables(
  train: CandidateSet,
  sets: readonly CandidateSet[],
  cutoff: number,
  headRules: string,
  ctx: StepContext,
): Promise<FeatureTable[]> {
  const settings = treeSettingsFor(train, headRules, ctx);
  const selected = selectFeatureIds(await candidateFeatures(train, ctx, settings), Math.max(1, cutoff));
  const dictionary = selected.map(featureName);
  return Promise.all(
    sets.map(async (set) => buildIdFeatureTable(await candidateFeatures(set, ctx, settings), selected, dictionary)),
  );
}

/** The problem of a training set, with its train and dev data. */
async function trainAndDev(
  train: CandidateSet,
  dev: CandidateSet,
  cutoff: number,
  headRules: string,
  ctx: StepContext,
): Promise<{ p: Problem; trainData: RerankDataHandle; devData: RerankDataHandle }> {
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
function stepCheckpoints(
  ctx: StepContext,
  label: string,
  shaping: Record<string, unknown>,
): StepCheckpoints | undefined {
  const files = ctx.checkpoints?.(label);
  return files && { ...files, shaping };
}

function choices(chosen: Float64Array): number[] {
  return Array.from(chosen, (c) => (c >= 0 ? c : 0));
}

/**
 * A linear reranker step: trained by trainLinearReranker on the training set's problem, with
 * N (and eps, or C) chosen on dev; it chooses with the dense weights over the training dictionary.
 */
function linearStep(
  name: string,
  config: { cutoff: number; headRules: string },
  settings: LinearTrainSettings,
  knobs: Omit<TrainerKnobs, 'checkpoints'> & {
    checkpoints: (ctx: StepContext) => StepCheckpoints | undefined;
  },
  selected: (info: Record<string, number | string | boolean>, features: number) => Record<string, number | string>,
): Reranker {
  return {
    name,
    async train(train, dev, ctx): Promise<TrainedReranker> {
      const { p, trainData, devData } = await trainAndDev(train, dev, config.cutoff, config.headRules, ctx);
      const { trained } = await trainLinearReranker(
        { train: trainData, dev: devData, dictionary: p.dictionary, trainSentences: train.sentences.length },
        { ...settings, threads: ctx.threads, signal: ctx.signal, progress: false },
        {
          ...knobs,
          // A job retried after its worker died continues each setting from its last checkpoint.
          checkpoints: knobs.checkpoints(ctx),
          onSettingProgress: (setting, e) => stepRun(ctx, `${name} ${setting}`).onProgress?.(e),
          log: (line) => ctx.log?.(`  ${line}`),
        },
      );
      const { a0, dense, curves } = trained;
      return {
        selected: selected(trained.model.info, p.dictionary.length),
        ...(curves.length > 0 ? { curves, curveAxis: 'rounds' } : {}),
        async choose(set) {
          return choices(rerankScores(await p.data(set), a0, dense, ctx.threads).chosen);
        },
      };
    },
  };
}

export function boostReranker(config: BoostConfig & { name: string }): Reranker {
  return linearStep(
    config.name,
    config,
    { method: 'boost', rounds: config.rounds, eps: config.eps, weighting: config.weighting },
    {
      chunk: 500,
      devRounds: checkpoints,
      checkpoints: (ctx) =>
        stepCheckpoints(ctx, config.name, {
          method: 'sparse',
          eps: config.eps,
          weighting: config.weighting ?? 'score',
        }),
    },
    (info, features) => ({
      eps: info.eps as number,
      rounds: info.rounds as number,
      a0: +(info.a0 as number).toFixed(3),
      features,
    }),
  );
}

export function loglinearReranker(config: LoglinearConfig & { name: string }): Reranker {
  return linearStep(
    config.name,
    config,
    { method: 'loglinear', rounds: config.iterations, l2: config.l2 },
    {
      checkpoints: (ctx) => stepCheckpoints(ctx, config.name, { l2: config.l2 }),
    },
    (info, features) => ({ C: info.l2 as number, features }),
  );
}
