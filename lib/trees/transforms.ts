/**
 * Pure tree transforms used by the parser, the reranker features and evaluation. Every
 * function returns a new tree and never shares nodes with its input.
 */
import { cloneTree, type Tree } from './tree.js';
import { UsageError } from '../errors.js';

/**
 * PTB labels that begin with '-' and are whole tokens, never function tags:
 * -NONE-, -LRB-, -RRB-, -LCB-, -RCB-, -LSB-, -RSB-, ...
 */
const DASHED_LABEL = /^-[A-Z]+-$/;

/**
 * A label without its function tags, gap indices and coindices: cut at the first '-' or
 * '=' that is not at position 0. `NP-SBJ-1` -> `NP`, `NP=2` -> `NP`, `PP-LOC=1` -> `PP`,
 * `S-TPC-1` -> `S`. Kept intact: `-NONE-`, `-LRB-`, `-RRB-` and the other dashed PTB
 * tokens, labels without '-'/'=' such as `PRP$`, and the empty wrapper label.
 */
export function basicCategory(label: string): string {
  if (DASHED_LABEL.test(label)) return label;
  for (let i = 1; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === 45 /* - */ || c === 61 /* = */) return label.slice(0, i);
  }
  return label;
}

/** Strips function tags and indices from every label (preterminals included; see basicCategory). */
export function stripFunctionTags(t: Tree): Tree {
  if (t.word !== undefined) return { label: basicCategory(t.label), children: [], word: t.word };
  return { label: basicCategory(t.label), children: t.children.map(stripFunctionTags) };
}

/**
 * Strips function tags from phrase labels only; part-of-speech labels stay whole. A POS tag
 * carries no function tag in the Penn Treebank, and in other schemes its '-' is part of the
 * tag (Floresta's `v-fin`, `v-inf`, `pron-det`): cutting there merges tags the grammar needs.
 */
export function stripPhraseFunctionTags(t: Tree): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  return { label: basicCategory(t.label), children: t.children.map(stripPhraseFunctionTags) };
}

/** True for the PTB empty-element tag. */
export function isEmptyElement(t: Tree): boolean {
  return t.word !== undefined && t.label === '-NONE-';
}

/**
 * Removes `-NONE-` preterminals and every constituent left with no children by their
 * removal. Returns undefined when nothing is left (a tree of empty elements only).
 * Unary nodes created by the removal are kept (as EVALB does).
 */
export function removeEmptyElements(t: Tree): Tree | undefined {
  if (t.word !== undefined) return isEmptyElement(t) ? undefined : { label: t.label, children: [], word: t.word };
  const children: Tree[] = [];
  for (const c of t.children) {
    const kept = removeEmptyElements(c);
    if (kept) children.push(kept);
  }
  return children.length === 0 ? undefined : { label: t.label, children };
}

export interface UnaryChainOptions {
  /** Joins the labels of a collapsed chain. Default '+'. Labels must not contain it. */
  joiner?: string;
  /**
   * Whether a chain may end in a preterminal, e.g. `(NP (NN dogs))` -> `(NP+NN dogs)`.
   * Default false: the chain stops above the preterminal, so POS tags stay as they are.
   */
  includePreterminals?: boolean;
  /**
   * Whether the root may be the top of a chain, e.g. `(ROOT (S ...))` -> `(ROOT+S ...)`.
   * Default false: the root node is kept on its own (chains start at its child).
   */
  includeRoot?: boolean;
}

/**
 * Collapses every unary chain X -> Y -> ... -> Z (each node with exactly one child) into
 * one node labeled `X+Y+...+Z` that has Z's children (or Z's word when Z is a preterminal
 * and `includePreterminals` is set). `expandUnaryChains` with the same joiner is the exact
 * inverse. Throws if a label already contains the joiner, because the inverse would then
 * not be exact.
 */
export function collapseUnaryChains(t: Tree, options: UnaryChainOptions = {}): Tree {
  const joiner = options.joiner ?? '+';
  if (joiner === '') throw new UsageError('collapseUnaryChains: the joiner must not be empty');
  const includePreterminals = options.includePreterminals ?? false;

  const checkLabel = (label: string): void => {
    if (label.includes(joiner)) {
      throw new UsageError(
        `collapseUnaryChains: label '${label}' contains the joiner '${joiner}'; choose another joiner`,
      );
    }
  };

  const walk = (n: Tree): Tree => {
    checkLabel(n.label);
    if (n.word !== undefined) return { label: n.label, children: [], word: n.word };
    const labels = [n.label];
    let cur = n;
    for (;;) {
      if (cur.children.length !== 1) break;
      const child = cur.children[0];
      if (child.word !== undefined && !includePreterminals) break;
      checkLabel(child.label);
      labels.push(child.label);
      cur = child;
      if (cur.word !== undefined) return { label: labels.join(joiner), children: [], word: cur.word };
    }
    return { label: labels.join(joiner), children: cur.children.map(walk) };
  };

  if (options.includeRoot || t.word !== undefined) return walk(t);
  checkLabel(t.label);
  return { label: t.label, children: t.children.map(walk) };
}

/** Exact inverse of collapseUnaryChains: splits every label on the joiner into a chain. */
export function expandUnaryChains(t: Tree, options: { joiner?: string } = {}): Tree {
  const joiner = options.joiner ?? '+';
  if (joiner === '') throw new UsageError('expandUnaryChains: the joiner must not be empty');
  const walk = (n: Tree): Tree => {
    const labels = n.label.split(joiner);
    let inner: Tree =
      n.word !== undefined
        ? { label: labels[labels.length - 1], children: [], word: n.word }
        : { label: labels[labels.length - 1], children: n.children.map(walk) };
    for (let i = labels.length - 2; i >= 0; i--) inner = { label: labels[i], children: [inner] };
    return inner;
  };
  return walk(t);
}

/** Labels of a trivial root: the unlabeled wrapper of `( (S ...))`, ROOT and TOP. */
export const ROOT_LABELS: ReadonlySet<string> = new Set(['', 'ROOT', 'TOP']);

/** A trivial root: the unlabeled wrapper, ROOT or TOP with exactly one child. */
function isTrivialRoot(t: Tree): boolean {
  return t.word === undefined && ROOT_LABELS.has(t.label) && t.children.length === 1;
}

/**
 * Removes trivial roots: while the top node is the unlabeled wrapper, ROOT or TOP and has
 * exactly one child, that child becomes the tree. `( (S ...))` -> `(S ...)`,
 * `(ROOT (S ...))` -> `(S ...)`. A root with several children is kept.
 */
export function stripRoot(t: Tree): Tree {
  let cur = t;
  while (isTrivialRoot(cur)) cur = cur.children[0];
  return cloneTree(cur);
}

/**
 * `t` with its trivial roots (stripRoot) replaced by those of `like`: `t` as it is written in
 * `like`'s file, and so as EVALB scores it against `like` (it counts the unlabeled wrapper and
 * ROOT as brackets). `(ROOT (S ...))` like `( (S ...))` -> `( (S ...))`; like `(S ...)` -> `(S ...)`.
 * The result shares `t`'s nodes below its roots: scoring every candidate copies no tree.
 */
export function withRootOf(t: Tree, like: Tree): Tree {
  const labels: string[] = [];
  for (let cur = like; isTrivialRoot(cur); cur = cur.children[0]) labels.push(cur.label);
  let out = t;
  while (isTrivialRoot(out)) out = out.children[0];
  for (let i = labels.length - 1; i >= 0; i--) out = { label: labels[i], children: [out] };
  return out;
}
