/**
 * From n-best sentences to reranking features and scores: candidates' own `features`
 * objects (name -> count; a count c gives the threshold features name, name|>=2, .., name|>=c),
 * and, for parse candidates given as trees, the tree-features.ts templates on the tree
 * annotated with the heads of `settings` (learned from the training treebank, tree-settings.ts;
 * without settings, Collins heads and PTB word classes). Score(x): lib/eval/score.ts (minus 50
 * per missed or invented bracket / chunk; plain tags: minus 100 per wrong tag).
 */
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import { annotateHeads } from '../trees/heads.js';
import { candidateScore as scoreOf, tagCounts, tagScoring, treeCounts, type TaskScoring } from '../eval/score.js';
import type { Tree } from '../trees/tree.js';
import { treeFeatures, type TreeFeatureOptions } from './tree-features.js';
import { settingsHeadTable, type TreeSettings } from './tree-settings.js';
import type { HeadTable } from '../trees/head-rules.js';
import type { SentenceFeatureNames } from './feature-table.js';

export interface ExtractOptions extends TreeFeatureOptions {
  /**
   * The tree templates for every candidate with a tree, added to its own `features` (default
   * true); false: its own features only.
   */
  treeFeatures?: boolean;
  /** How tag candidates are scored (default: detected from each sentence's gold; lib/eval/score.ts). */
  scoring?: Exclude<TaskScoring, 'trees'>;
  /** Head rules and word classes of the treebank (see tree-settings.ts). */
  settings?: TreeSettings;
}

const tables = new WeakMap<TreeSettings, HeadTable>();
function headTableOf(settings: TreeSettings): HeadTable {
  let t = tables.get(settings);
  if (!t) tables.set(settings, (t = settingsHeadTable(settings)));
  return t;
}

function givenFeatures(features: Record<string, number>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(features)) {
    if (value === 0) continue;
    out.push(name);
    const c = Math.floor(value);
    for (let k = 2; k <= c; k++) out.push(`${name}|>=${k}`);
  }
  return out;
}

/**
 * Score(x) of one candidate against the sentence's gold (lib/eval/score.ts), or NaN without
 * gold. `scoring` says how tags are scored (default: detected from this sentence's gold).
 */
export function candidateScore(
  s: NbestSentence,
  index: number,
  goldTree?: Tree,
  scoring?: Exclude<TaskScoring, 'trees'>,
): number {
  const c = s.candidates[index];
  if (s.gold === undefined) return NaN;
  if (typeof s.gold === 'string') {
    if (c.tree === undefined) return NaN;
    return scoreOf(treeCounts(goldTree ?? parseTree(s.gold), parseTree(c.tree)));
  }
  const gold = s.gold;
  return scoreOf(tagCounts(gold, c.tags ?? [], scoring ?? tagScoring([gold])));
}

/** Feature names and scores of every candidate of one sentence. */
export function sentenceFeatures(s: NbestSentence, options: ExtractOptions = {}): SentenceFeatureNames {
  const goldTree = typeof s.gold === 'string' ? parseTree(s.gold) : undefined;
  const table = options.settings ? headTableOf(options.settings) : undefined;
  const featureOptions: TreeFeatureOptions = options.settings
    ? { ...options, classes: options.settings.classes, context: options.settings.contextTemplates ?? false }
    : options;
  return {
    id: s.id,
    candidates: s.candidates.map((c, i) => {
      const names = c.features ? givenFeatures(c.features) : [];
      const wantTree = c.tree !== undefined && options.treeFeatures !== false;
      if (wantTree) names.push(...treeFeatures(annotateHeads(parseTree(c.tree as string), { table }), featureOptions));
      return { names, logprob: c.logprob, score: candidateScore(s, i, goldTree, options.scoring) };
    }),
  };
}
