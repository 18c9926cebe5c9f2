/**
 * Word and tag classes learned from a treebank, for features that must not assume one
 * annotation scheme (no PTB tag list, no `PP` or `VB*`):
 * - punctuation tags: tags whose words (>= 95%) have no letter or digit in any script;
 * - closed-class tags: tags whose vocabulary is closed: fewer than 1 in 100 of their tokens
 *   are words seen once with the tag (determiners, prepositions, pronouns: ~0; nouns, verbs,
 *   adjectives: several percent), seen at least 20 times, punctuation excluded;
 * - conjunction tags: tags that stand between two siblings with equal labels (head-rules.ts);
 * - verb-like tags: the clause label is the label of most whole sentences (PTB `S`,
 *   Floresta `fcl`); verb-like tags are the tags of the lexical heads of clause nodes (found
 *   with the head table), most frequent first, until they cover 90% of them (each >= 2%);
 *   then every label mostly (>= 50%) headed by verb-like tags (a verb phrase, a non-finite
 *   clause) adds its open-class head tags of >= 5% of its nodes, until nothing changes
 *   (PTB `VB` and `VBN` under `VP`; Floresta's infinitives and participles under `vp`, `icl`);
 * - adposition-like labels: phrase labels whose head child is a closed-class word followed
 *   by a phrase in at least half of their nodes (the PTB's PP and SBAR, Floresta's pp).
 * The classes are plain JSON, saved with a reranker model so that test-time features use
 * the classes learned at training time.
 */
import { headRulePreset, type HeadTable } from './head-rules.js';
import { headTagCounts, learnHeadRules, learnTagClasses, type TagClasses } from './learn-heads.js';
import { headChildIndex } from './heads.js';
import type { Tree } from './tree.js';
import { basicCategory, ROOT_LABELS } from './transforms.js';

export interface TreeClasses {
  punctuationTags: string[];
  closedClassTags: string[];
  conjunctionTags: string[];
  verbTags: string[];
  adpositionLabels: string[];
}

/** The node under the trivial roots (wrapper, ROOT, TOP with one child). */
function topNode(t: Tree): Tree {
  let n = t;
  while (ROOT_LABELS.has(n.label) && n.word === undefined && n.children.length === 1) n = n.children[0];
  return n;
}

/** Adds the most frequent head tags (but `skip`) until they cover `cover` of `total`, each >= `least` of it; whether any was new. */
function addHeadTags(
  out: string[],
  heads: ReadonlyMap<string, number>,
  total: number,
  skip: ReadonlySet<string>,
  cover: number,
  least: number,
): boolean {
  let covered = 0;
  let added = false;
  for (const [tag, k] of [...heads].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (covered >= cover * total || k < least * total) break;
    covered += k;
    if (skip.has(tag)) continue;
    if (!out.includes(tag)) {
      out.push(tag);
      added = true;
    }
  }
  return added;
}

export function learnTreeClasses(
  trees: readonly Tree[],
  table: HeadTable,
  tagClasses: TagClasses = learnTagClasses(trees),
): TreeClasses {
  const { punctuation, closed, conjunctions } = tagClasses;
  // Verb-like: the heads of clauses, the label of most sentences.
  const topLabels = new Map<string, number>();
  for (const t of trees) {
    const top = topNode(t);
    if (top.word === undefined)
      topLabels.set(basicCategory(top.label), (topLabels.get(basicCategory(top.label)) ?? 0) + 1);
  }
  const clause = [...topLabels].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  // Adposition-like: head child a closed-class word with a phrase right after it.
  const phrase = new Map<string, { count: number; adposition: number }>();
  const walk = (n: Tree): void => {
    if (n.word !== undefined) return;
    if (n.children.length >= 2 && !ROOT_LABELS.has(n.label)) {
      const label = basicCategory(n.label);
      let s = phrase.get(label);
      if (!s) phrase.set(label, (s = { count: 0, adposition: 0 }));
      s.count++;
      const h = headChildIndex(n, { table });
      const head = n.children[h];
      const next = n.children[h + 1];
      if (head?.word !== undefined && closed.has(head.label) && next !== undefined && next.word === undefined)
        s.adposition++;
    }
    for (const c of n.children) walk(c);
  };
  for (const t of trees) walk(t);
  // Head tags of the phrase nodes with two or more children (no trivial roots), per label.
  const labelHeads = headTagCounts(trees, table, (n) => n.children.length >= 2 && !ROOT_LABELS.has(n.label));
  const clauseHeads = (clause !== undefined && labelHeads.get(clause)) || new Map<string, number>();
  let clauses = 0;
  for (const k of clauseHeads.values()) clauses += k;
  const verbTags: string[] = [];
  addHeadTags(verbTags, clauseHeads, clauses, punctuation, 0.9, 0.02);
  // Labels whose heads are mostly verb-like (a verb phrase, a non-finite clause) add every
  // open-class head tag of >= 5% of their nodes (a verb phrase's preposition is not a verb).
  const notVerbs = new Set([...punctuation, ...closed]);
  for (let grown = true; grown;) {
    grown = false;
    for (const [label, heads] of [...labelHeads].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      let total = 0;
      let verbal = 0;
      for (const [tag, k] of heads) {
        total += k;
        if (verbTags.includes(tag)) verbal += k;
      }
      if (label === clause || total < 20 || verbal < 0.5 * total) continue;
      labelHeads.delete(label);
      grown = addHeadTags(verbTags, heads, total, notVerbs, 1, 0.05) || grown;
    }
  }
  const adpositionLabels = [...phrase]
    .filter(([, s]) => s.count >= 20 && s.adposition >= 0.5 * s.count)
    .map(([l]) => l);
  const sorted = (s: Iterable<string>): string[] => [...s].sort();
  return {
    punctuationTags: sorted(punctuation),
    closedClassTags: sorted(closed),
    conjunctionTags: sorted(conjunctions),
    verbTags,
    adpositionLabels: sorted(adpositionLabels),
  };
}

/**
 * A treebank's classes with the head table they were found with: `given` (default the
 * `collins` preset) plus rules learned for the labels it does not cover. What the reranking
 * features (lib/rerank/tree-settings.ts) and the parser's verb features read.
 */
export function learnTreebankClasses(
  trees: readonly Tree[],
  given: HeadTable = headRulePreset('collins'),
): { table: HeadTable; classes: TreeClasses } {
  const tagClasses = learnTagClasses(trees);
  const table = learnHeadRules(trees, given, { tagClasses });
  return { table, classes: learnTreeClasses(trees, table, tagClasses) };
}
