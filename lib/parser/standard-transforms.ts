/**
 * The standard treebank transforms the parser needs, kept here until lib/trees/transforms.ts
 * lands in main (same names and behaviour, so switching is a one-line import change):
 * function tags stripped, -NONE- and emptied constituents removed, the unlabeled / ROOT /
 * TOP wrapper stripped, unary chains collapsed into one node labeled `A+B` (no repeated
 * states) over the chain's bottom node's children.
 */
import type { Tree } from '../trees/tree.js';

export const CHAIN_SEPARATOR = '+';

function stripLabel(label: string): string {
  if (label.startsWith('-')) return label; // -NONE-, -LRB-, -RRB-, ...
  let end = label.length;
  for (let i = 1; i < label.length; i++) {
    const c = label[i];
    if (c === '-' || c === '=') {
      end = i;
      break;
    }
  }
  return label.slice(0, end);
}

/** NP-SBJ-1 -> NP, NP=2 -> NP; -NONE- and bracket tags kept. */
export function stripFunctionTags(t: Tree): Tree {
  if (t.word !== undefined) return { label: stripLabel(t.label), children: [], word: t.word };
  return { label: t.label === '' ? '' : stripLabel(t.label), children: t.children.map(stripFunctionTags) };
}

/** Removes -NONE- preterminals and constituents left empty; undefined if nothing is left. */
export function removeEmptyElements(t: Tree): Tree | undefined {
  if (t.word !== undefined) return t.label === '-NONE-' ? undefined : { label: t.label, children: [], word: t.word };
  const children: Tree[] = [];
  for (const c of t.children) {
    const k = removeEmptyElements(c);
    if (k) children.push(k);
  }
  return children.length === 0 ? undefined : { label: t.label, children };
}

/** Removes an unlabeled, ROOT or TOP wrapper with a single child. */
export function stripRoot(t: Tree): Tree {
  let cur = t;
  while ((cur.label === '' || cur.label === 'ROOT' || cur.label === 'TOP') && cur.word === undefined && cur.children.length === 1) {
    cur = cur.children[0];
  }
  return cur;
}

/**
 * Collapses each chain of unary nodes A -> B -> C into one node `A+B` over C, so a span
 * carries at most one unary. Repeated states in a chain (NP -> NP) are dropped.
 */
export function collapseUnaryChains(t: Tree, options: { keepRepeated?: boolean } = {}): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  const labels = [t.label];
  let cur = t;
  // cur is unary over a phrasal node that is itself unary: merge that node into the chain.
  while (cur.children.length === 1 && cur.children[0].word === undefined && cur.children[0].children.length === 1) {
    cur = cur.children[0];
    if (options.keepRepeated || !labels.includes(cur.label)) labels.push(cur.label);
  }
  return { label: labels.join(CHAIN_SEPARATOR), children: cur.children.map((c) => collapseUnaryChains(c, options)) };
}

/** Inverse of collapseUnaryChains: `A+B` over x becomes A -> B -> x. */
export function expandUnaryChains(t: Tree): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  const children = t.children.map(expandUnaryChains);
  const parts = t.label.length > 1 ? t.label.split(CHAIN_SEPARATOR) : [t.label];
  let node: Tree = { label: parts[parts.length - 1], children };
  for (let i = parts.length - 2; i >= 0; i--) node = { label: parts[i], children: [node] };
  return node;
}
