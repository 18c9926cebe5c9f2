/**
 * Head finding with Collins' head rules (Collins 1999, PhD thesis, appendix A; the same
 * table as Bikel's parser and Stanford's CollinsHeadFinder, without the later Stanford
 * additions such as AUX).
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
 * the unlabeled wrapper, anything unknown) take their first child.
 *
 * Coordination (Collins 1999, A; Stanford's postOperationFix): when the chosen head child
 * is at index h >= 2 and child h-1 is CC or CONJP, the head moves to child h-2, skipping
 * punctuation preterminals leftwards (`,` `:` `.` ` `` ` `''` -LRB- -RRB-). So
 * `(NP (NN cats) (CC and) (NN dogs))` is headed by `cats`. Turn it off with
 * `{ coordination: false }`.
 */
import type { Tree } from './tree.js';
import { basicCategory } from './transforms.js';

export type HeadDirection = 'left' | 'right' | 'leftdis' | 'rightdis';

export interface HeadRule {
  direction: HeadDirection;
  labels: readonly string[];
}

const r = (direction: HeadDirection, ...labels: string[]): HeadRule => ({ direction, labels });

/** Collins' head table: parent label -> rules tried in order. */
export const COLLINS_HEAD_RULES: Readonly<Record<string, readonly HeadRule[]>> = {
  ADJP: [r('left', 'NNS', 'QP', 'NN', '$', 'ADVP', 'JJ', 'VBN', 'VBG', 'ADJP', 'JJR', 'NP', 'JJS', 'DT', 'FW', 'RBR', 'RBS', 'SBAR', 'RB')],
  ADVP: [r('right', 'RB', 'RBR', 'RBS', 'FW', 'ADVP', 'TO', 'CD', 'JJR', 'JJ', 'IN', 'NP', 'JJS', 'NN')],
  CONJP: [r('right', 'CC', 'RB', 'IN')],
  FRAG: [r('right')],
  INTJ: [r('left')],
  LST: [r('right', 'LS', ':')],
  NAC: [r('left', 'NN', 'NNS', 'NNP', 'NNPS', 'NP', 'NAC', 'EX', '$', 'CD', 'QP', 'PRP', 'VBG', 'JJ', 'JJS', 'JJR', 'ADJP', 'FW')],
  NP: [
    r('rightdis', 'NN', 'NNP', 'NNPS', 'NNS', 'NX', 'POS', 'JJR'),
    r('left', 'NP'),
    r('rightdis', '$', 'ADJP', 'PRN'),
    r('right', 'CD'),
    r('rightdis', 'JJ', 'JJS', 'RB', 'QP'),
  ],
  NX: [r('left')],
  PP: [r('right', 'IN', 'TO', 'VBG', 'VBN', 'RP', 'FW')],
  PRN: [r('left')],
  PRT: [r('right', 'RP')],
  QP: [r('left', '$', 'IN', 'NNS', 'NN', 'JJ', 'RB', 'DT', 'CD', 'NCD', 'QP', 'JJR', 'JJS')],
  RRC: [r('right', 'VP', 'NP', 'ADVP', 'ADJP', 'PP')],
  S: [r('left', 'TO', 'IN', 'VP', 'S', 'SBAR', 'ADJP', 'UCP', 'NP')],
  SBAR: [r('left', 'WHNP', 'WHPP', 'WHADVP', 'WHADJP', 'IN', 'DT', 'S', 'SQ', 'SINV', 'SBAR', 'FRAG')],
  SBARQ: [r('left', 'SQ', 'S', 'SINV', 'SBARQ', 'FRAG')],
  SINV: [r('left', 'VBZ', 'VBD', 'VBP', 'VB', 'MD', 'VP', 'S', 'SINV', 'ADJP', 'NP')],
  SQ: [r('left', 'VBZ', 'VBD', 'VBP', 'VB', 'MD', 'VP', 'SQ')],
  UCP: [r('right')],
  VP: [r('left', 'TO', 'VBD', 'VBN', 'MD', 'VBZ', 'VB', 'VBG', 'VBP', 'VP', 'ADJP', 'NN', 'NNS', 'NP')],
  WHADJP: [r('left', 'CC', 'WRB', 'JJ', 'ADJP')],
  WHADVP: [r('right', 'CC', 'WRB')],
  WHNP: [r('left', 'WDT', 'WP', 'WP$', 'WHADJP', 'WHPP', 'WHNP')],
  WHPP: [r('right', 'IN', 'TO', 'FW')],
  X: [r('right')],
};

/** Punctuation tags skipped when the coordination rule moves the head leftwards. */
const PUNCTUATION_TAGS: ReadonlySet<string> = new Set([',', ':', '.', '``', "''", '-LRB-', '-RRB-']);

export interface HeadOptions {
  /** The head table; default COLLINS_HEAD_RULES. */
  rules?: Readonly<Record<string, readonly HeadRule[]>>;
  /** Apply the CC/CONJP coordination rule (default true). */
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
  const rules = (options.rules ?? COLLINS_HEAD_RULES)[basicCategory(t.label)];
  if (!rules || rules.length === 0) return 0;
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
  if ((options.coordination ?? true) && head >= 2 && (cats[head - 1] === 'CC' || cats[head - 1] === 'CONJP')) {
    let h = head - 2;
    while (h >= 0 && children[h].word !== undefined && PUNCTUATION_TAGS.has(children[h].label)) h--;
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
      return { label: n.label, children: [], word: n.word, head: -1, headWord: n.word, headTag: n.label, headIndex: position++ };
    }
    const children = n.children.map(walk);
    const head = headChildIndex(n, options);
    const h = children[head];
    return { label: n.label, children, head, headWord: h.headWord, headTag: h.headTag, headIndex: h.headIndex };
  };
  return walk(t);
}
