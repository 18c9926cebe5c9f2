/**
 * From n-best sentences to reranking features and scores: candidates' own `features`
 * objects (name -> count; a count c gives the threshold features name, name|>=2, .., name|>=c),
 * and, for parse candidates given as trees, the tree-features.ts templates on the tree
 * annotated with the heads of `settings` (learned from the training treebank, tree-settings.ts;
 * without settings, Collins heads and PTB word classes). Score(x) (SPEC section 1): parses F1 * |gold brackets|
 * (EVALB, trivial roots stripped); tags: F1 * |gold chunks| for IOB chunk tags, else the
 * number of correct tags.
 */
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import { annotateHeads } from '../trees/heads.js';
import { stripRoot } from '../trees/transforms.js';
import { parseScore } from '../eval/evalb.js';
import { chunkCounts } from '../eval/conlleval.js';
import { treeFeatures, type TreeFeatureOptions } from './tree-features.js';
import { settingsHeadTable, type TreeSettings } from './tree-settings.js';
import type { HeadTable } from '../trees/head-rules.js';
import type { SentenceFeatureNames } from './feature-table.js';

export interface ExtractOptions extends TreeFeatureOptions {
  /** Compute tree features even when a candidate carries its own `features` (default: only when it has none). */
  treeFeatures?: 'auto' | 'always' | 'never';
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

const isChunkTag = (t: string): boolean => t === 'O' || /^[BIES]-/.test(t);

/** Score(x) of one candidate against the sentence's gold, or NaN without gold. */
export function candidateScore(s: NbestSentence, index: number, goldTree?: ReturnType<typeof parseTree>): number {
  const c = s.candidates[index];
  if (s.gold === undefined) return NaN;
  if (typeof s.gold === 'string') {
    if (c.tree === undefined) return NaN;
    const gold = goldTree ?? stripRoot(parseTree(s.gold));
    return parseScore(gold, stripRoot(parseTree(c.tree)));
  }
  const gold = s.gold;
  const tags = c.tags ?? [];
  if (gold.every(isChunkTag) && tags.every(isChunkTag)) {
    const k = chunkCounts(gold, tags, 'iob2');
    const f1 = k.gold + k.predicted === 0 ? 100 : (200 * k.correct) / (k.gold + k.predicted);
    return f1 * k.gold;
  }
  let correct = 0;
  for (let i = 0; i < gold.length; i++) if (gold[i] === tags[i]) correct++;
  return correct;
}

/** Feature names and scores of every candidate of one sentence. */
export function sentenceFeatures(s: NbestSentence, options: ExtractOptions = {}): SentenceFeatureNames {
  const mode = options.treeFeatures ?? 'auto';
  const goldTree = typeof s.gold === 'string' ? stripRoot(parseTree(s.gold)) : undefined;
  const table = options.settings ? headTableOf(options.settings) : undefined;
  const featureOptions: TreeFeatureOptions = options.settings ? { ...options, classes: options.settings.classes } : options;
  return {
    id: s.id,
    candidates: s.candidates.map((c, i) => {
      const names = c.features ? givenFeatures(c.features) : [];
      const wantTree = c.tree !== undefined && (mode === 'always' || (mode === 'auto' && !c.features));
      if (wantTree) names.push(...treeFeatures(annotateHeads(parseTree(c.tree as string), { table }), featureOptions));
      return { names, logprob: c.logprob, score: candidateScore(s, i, goldTree) };
    }),
  };
}
