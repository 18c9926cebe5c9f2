/**
 * From n-best sentences to reranking features and scores: candidates' own `features`
 * objects (name -> count; a count c gives the threshold features name, name|>=2, .., name|>=c),
 * and, for parse candidates given as trees, the SPEC section 7 templates on the tree
 * annotated with Collins heads. Score(x): lib/eval/score.ts (minus 50 per missed or invented
 * bracket / chunk; plain tags: minus 100 per wrong tag).
 */
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import { annotateHeads } from '../trees/heads.js';
import { candidateScore as scoreOf, tagCounts, tagScoring, treeCounts, type TaskScoring } from '../eval/score.js';
import type { Tree } from '../trees/tree.js';
import { treeFeatures, type TreeFeatureOptions } from './tree-features.js';
import type { SentenceFeatureNames } from './feature-table.js';

export interface ExtractOptions extends TreeFeatureOptions {
  /** Compute tree features even when a candidate carries its own `features` (default: only when it has none). */
  treeFeatures?: 'auto' | 'always' | 'never';
  /** How tag candidates are scored (default: detected from each sentence's gold; lib/eval/score.ts). */
  scoring?: Exclude<TaskScoring, 'trees'>;
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
export function candidateScore(s: NbestSentence, index: number, goldTree?: Tree, scoring?: Exclude<TaskScoring, 'trees'>): number {
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
  const mode = options.treeFeatures ?? 'auto';
  const goldTree = typeof s.gold === 'string' ? parseTree(s.gold) : undefined;
  return {
    id: s.id,
    candidates: s.candidates.map((c, i) => {
      const names = c.features ? givenFeatures(c.features) : [];
      const wantTree = c.tree !== undefined && (mode === 'always' || (mode === 'auto' && !c.features));
      if (wantTree) names.push(...treeFeatures(annotateHeads(parseTree(c.tree as string)), options));
      return { names, logprob: c.logprob, score: candidateScore(s, i, goldTree, options.scoring) };
    }),
  };
}
