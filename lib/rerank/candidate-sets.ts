/**
 * The reranking features of candidate sets (lib/training/model-contract.ts: the pipeline's
 * n-best lists with the Score of every candidate): the parse-tree features of Collins & Koo
 * (2005) for trees, tag-sequence features (tag-features.ts) for tags, extracted once per
 * candidate set on worker threads and interned (candidate-feature-ids.ts), shared by every
 * reranker of a run; the count cutoff (feature-table.ts) taken on the training set.
 */
import type { NbestSentence } from '../io/nbest.js';
import { loadHeadRules } from '../io/head-rules-file.js';
import type { CandidateSet, StepContext } from '../training/model-contract.js';
import { parseTree } from '../trees/bracket-parser.js';
import type { RerankDataHandle } from './boost.js';
import { candidateFeatureIds, featureName, type CandidateFeatureIds } from './candidate-feature-ids.js';
import { buildIdFeatureTable, selectFeatureIds, type FeatureTable } from './feature-table.js';
import { tableData } from './table-data.js';
import { learnedSettingsLines, learnTreeSettings, type TreeSettings } from './tree-settings.js';

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
      for (const line of learnedSettingsLines(learned)) ctx.log?.(`  ${line}`);
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
): Promise<CandidateFeatureIds> {
  const features = await candidateFeatureIds(set.sentences, settings, {
    file: '<candidates>',
    threads: ctx.threads,
    signal: ctx.signal,
    onProgress: (done) => ctx.progress?.('reranking features', done, set.sentences.length),
  });
  return { ...features, score: Float64Array.from(set.scores.flat()) };
}

/** A training set's dictionary (count cutoff on train) and the native data of any set over it. */
export interface CandidateProblem {
  dictionary: string[];
  /** The native data of `set` over the dictionary (built once per set). */
  data: (set: CandidateSet) => Promise<RerankDataHandle>;
}

/** The problem of a training set: its dictionary (cutoff on train; head rules as a reranker entry's `headRules`). */
export async function candidateProblem(
  train: CandidateSet,
  cutoff: number,
  headRules: string,
  ctx: StepContext,
): Promise<CandidateProblem> {
  const settings = treeSettingsFor(train, headRules, ctx);
  const selected = await selectFeatureIds(
    await candidateFeatures(train, ctx, settings),
    Math.max(1, cutoff),
    ctx.signal,
  );
  const dictionary = selected.map(featureName);
  ctx.log?.(`  ${dictionary.length} features seen on candidates of >= ${Math.max(1, cutoff)} training sentences`);
  const handles = new Map<CandidateSet, RerankDataHandle>();
  return {
    dictionary,
    async data(set) {
      let h = handles.get(set);
      if (!h) {
        h = await tableData(
          await buildIdFeatureTable(await candidateFeatures(set, ctx, settings), selected, dictionary, ctx.signal),
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
  const selected = await selectFeatureIds(
    await candidateFeatures(train, ctx, settings),
    Math.max(1, cutoff),
    ctx.signal,
  );
  const dictionary = selected.map(featureName);
  return Promise.all(
    sets.map(async (set) =>
      buildIdFeatureTable(await candidateFeatures(set, ctx, settings), selected, dictionary, ctx.signal),
    ),
  );
}
