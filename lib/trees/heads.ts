/**
 * Head finding with a head-rule table (lib/trees/head-rules.ts: a JSON file, a preset, or
 * rules learned from a treebank). The default table is Collins' head rules (Collins 1999,
 * PhD thesis, appendix A; the same table as Bikel's parser and Stanford's
 * CollinsHeadFinder, without the later Stanford additions such as AUX), shipped as the
 * `collins` preset.
 *
 * For a node with label P (function tags ignored: `NP-SBJ` uses the NP rules) the rules
 * of P are tried in order; the first that finds a child gives the head:
 * - `left`:  for each label in the list, in order, the leftmost child with that label;
 * - `right`: for each label in the list, in order, the rightmost child with that label;
 * - `leftdis` / `rightdis`: the leftmost / rightmost child whose label is any of the list.
 * When no rule finds a child, the head is the first child if the last rule searches from
 * the left, else the last child (so an NP with none of the listed children takes its last
 * child, as Collins' "else return the last word"). A rule with no labels is exactly that
 * default. A node with one child has that child as head. Labels without rules (ROOT, TOP,
 * the unlabeled wrapper, anything unknown) take the table's `otherwise` child (first for
 * the Collins table).
 *
 * Coordination (Collins 1999, A; Stanford's postOperationFix): when the chosen head child
 * is at index h >= 2 and child h-1 is one of the table's conjunctions (Collins: CC or
 * CONJP), the head moves to child h-2, skipping the table's `skip` preterminals leftwards
 * (Collins: `,` `:` `.` ` `` ` `''` -LRB- -RRB-). So
 * `(NP (NN cats) (CC and) (NN dogs))` is headed by `cats`. Turn it off with
 * `{ coordination: false }`.
 */
import type { Tree } from './tree.js';
import { basicCategory } from './transforms.js';
import { headRulePreset, type HeadRule, type HeadTable } from './head-rules.js';

export type { HeadDirection, HeadRule, HeadTable } from './head-rules.js';

/** Collins' head table (the `collins` preset, data/head-rules/collins-ptb.json): parent label -> rules tried in order. */
export const COLLINS_HEAD_RULES: Readonly<Record<string, readonly HeadRule[]>> = headRulePreset('collins').rules;

export interface HeadOptions {
  /** The head table (rules, coordination, default child); default the `collins` preset. */
  table?: HeadTable;
  /** Rules only (kept for callers of earlier versions); `table` wins when both are given. */
  rules?: Readonly<Record<string, readonly HeadRule[]>>;
  /** Apply the table's coordination rule (default true). */
  coordination?: boolean;
}

function findWithRule(children: readonly Tree[], cats: readonly string[], rule: HeadRule): number {
  const n = children.length;
  const { direction, labels } = rule;
  if (direction === 'left' || direction === 'right') {
    for (const want of labels) {
      if (direction === 'left') {
        for (let i = 0; i < n; i++) if (cats[i] === want) return i;
      } else {
        for (let i = n - 1; i >= 0; i--) if (cats[i] === want) return i;
      }
    }
    return -1;
  }
  const set = labels;
  if (direction === 'leftdis') {
    for (let i = 0; i < n; i++) if (set.includes(cats[i])) return i;
  } else {
    for (let i = n - 1; i >= 0; i--) if (set.includes(cats[i])) return i;
  }
  return -1;
}

/**
 * Index of the head child of `t` among `t.children`, or -1 for a preterminal.
 */
export function headChildIndex(t: Tree, options: HeadOptions = {}): number {
  if (t.word !== undefined) return -1;
  const children = t.children;
  if (children.length === 1) return 0;
  const table =
    options.table ??
    (options.rules ? { ...headRulePreset('collins'), rules: options.rules } : headRulePreset('collins'));
  const rules = table.rules[basicCategory(t.label)];
  if (!rules || rules.length === 0) return table.otherwise === 'right' ? children.length - 1 : 0;
  const cats = children.map((c) => (c.word !== undefined ? c.label : basicCategory(c.label)));
  let head = -1;
  for (const rule of rules) {
    head = findWithRule(children, cats, rule);
    if (head >= 0) break;
  }
  if (head < 0) {
    const last = rules[rules.length - 1].direction;
    head = last === 'left' || last === 'leftdis' ? 0 : children.length - 1;
  }
  const coord = table.coordination;
  if ((options.coordination ?? true) && coord && head >= 2 && coord.conjunctions.includes(cats[head - 1])) {
    let h = head - 2;
    while (h >= 0 && children[h].word !== undefined && coord.skip.includes(children[h].label)) h--;
    if (h >= 0) head = h;
  }
  return head;
}

/** A tree whose every node knows its head child and lexical head. */
export interface HeadedTree extends Tree {
  children: HeadedTree[];
  /** Index of the head child; -1 for a preterminal. */
  head: number;
  /** The head word (a preterminal's own word). */
  headWord: string;
  /** The head word's POS tag. */
  headTag: string;
  /** The head word's position among the tree's preterminals (0-based; -NONE- counts). */
  headIndex: number;
}

/** Returns a new tree annotated with heads at every node. */
export function annotateHeads(t: Tree, options: HeadOptions = {}): HeadedTree {
  let position = 0;
  const walk = (n: Tree): HeadedTree => {
    if (n.word !== undefined) {
      return {
        label: n.label,
        children: [],
        word: n.word,
        head: -1,
        headWord: n.word,
        headTag: n.label,
        headIndex: position++,
      };
    }
    const children = n.children.map(walk);
    const head = headChildIndex(n, options);
    const h = children[head];
    return { label: n.label, children, head, headWord: h.headWord, headTag: h.headTag, headIndex: h.headIndex };
  };
  return walk(t);
}
