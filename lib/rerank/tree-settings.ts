/**
 * What the parse-tree reranking features need to know about a treebank's annotation
 * scheme: the head table (given rules plus rules learned for the labels it does not cover)
 * and the learned word and tag classes (lib/trees/tree-classes.ts). Learned once from the
 * gold trees of the training n-best lists, saved with the reranker model, and used unchanged
 * for dev and test lists. Plain JSON, so it travels to feature worker threads as is.
 */
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import type { Tree } from '../trees/tree.js';
import {
  HEAD_COVERAGE_WARNING,
  headCoverage,
  headRulePreset,
  headTableFromJson,
  headTableToJson,
  type HeadCoverage,
  type HeadTable,
  type HeadTableJson,
} from '../trees/head-rules.js';
import { learnTreebankClasses, type TreeClasses } from '../trees/tree-classes.js';
import { LEGACY_TREE_CLASSES } from './tree-features.js';

export interface TreeSettings {
  headRules: HeadTableJson;
  classes: TreeClasses;
  /** The word-context templates (tree-features.ts) are on; absent in models saved before them. */
  contextTemplates?: boolean;
}

/** Whether a value read from a file has the shape of tree settings (the plain JSON above). */
export function isTreeSettings(v: unknown): v is TreeSettings {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return typeof s.classes === 'object' && s.classes !== null && typeof s.headRules === 'object' && s.headRules !== null;
}

/** The settings of models saved before settings were learned: Collins heads and the PTB word classes. */
export function legacyTreeSettings(): TreeSettings {
  return {
    headRules: headTableToJson(headRulePreset('collins')),
    classes: {
      punctuationTags: [...LEGACY_TREE_CLASSES.punctuationTags],
      closedClassTags: [...LEGACY_TREE_CLASSES.closedClassTags],
      conjunctionTags: [...LEGACY_TREE_CLASSES.conjunctionTags],
      verbTags: [...LEGACY_TREE_CLASSES.verbTags],
      adpositionLabels: [...LEGACY_TREE_CLASSES.adpositionLabels],
    },
  };
}

export interface LearnedTreeSettings {
  settings: TreeSettings;
  /** How much of the training trees the given table covers (before learning). */
  coverage: HeadCoverage;
  /** A warning line when the coverage is under HEAD_COVERAGE_WARNING percent. */
  warning?: string;
}

/**
 * Learns the settings from gold training trees. `table` is the given head table (default
 * the `collins` preset); labels it does not cover get learned rules.
 */
export function learnTreeSettings(
  trees: readonly Tree[],
  table: HeadTable = headRulePreset('collins'),
): LearnedTreeSettings {
  const coverage = headCoverage(trees, table);
  const { table: full, classes } = learnTreebankClasses(trees, table);
  let warning: string | undefined;
  if (coverage.percent < HEAD_COVERAGE_WARNING) {
    const top = coverage.missing
      .slice(0, 8)
      .map(([l, n]) => `${l} (${n})`)
      .join(', ');
    warning =
      `head rules '${table.name}' cover ${coverage.percent.toFixed(1)}% of the training phrases (under ${HEAD_COVERAGE_WARNING}%): ` +
      `heads of the others are learned from the treebank; uncovered labels: ${top}. A head table for this scheme (--head-rules FILE; "headRules" in a pipeline config) takes their place.`;
  }
  return { settings: { headRules: headTableToJson(full), classes, contextTemplates: true }, coverage, warning };
}

/**
 * The settings learned from the gold trees of n-best lists (given `table` first), or
 * undefined when no sentence has a gold tree (tag lists).
 */
export function learnListSettings(
  sentences: readonly NbestSentence[],
  table?: HeadTable,
  file?: string,
): LearnedTreeSettings | undefined {
  const gold = sentences.filter((s) => typeof s.gold === 'string');
  if (gold.length === 0) return undefined;
  return learnTreeSettings(
    gold.map((s) => parseTree(s.gold as string, file, s.line)),
    table,
  );
}

/** A one-line summary of learned settings (coverage and classes), for logs. */
export function describeTreeSettings(l: LearnedTreeSettings): string {
  const c = l.settings.classes;
  const learned = l.settings.headRules.learned?.length ?? 0;
  return (
    `head rules '${l.settings.headRules.name}': ${l.coverage.percent.toFixed(1)}% of ${l.coverage.nodes} training phrases covered by the table, ` +
    `${learned} labels learned; closed-class tags ${c.closedClassTags.length}, verb-like tags [${c.verbTags.join(' ')}], ` +
    `adposition-like labels [${c.adpositionLabels.join(' ')}], conjunctions [${c.conjunctionTags.join(' ')}]`
  );
}

/** The log lines of learned settings: the summary, then the coverage warning if any. */
export function learnedSettingsLines(l: LearnedTreeSettings): string[] {
  return [describeTreeSettings(l), ...(l.warning ? [`warning: ${l.warning}`] : [])];
}

/** The head table of settings (validated). */
export function settingsHeadTable(s: TreeSettings): HeadTable {
  return headTableFromJson(s.headRules, '<reranker model head rules>');
}
