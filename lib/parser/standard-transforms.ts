/**
 * The standard transforms as the parser uses them (lib/trees/transforms.ts), plus the one
 * parser-specific step: unary chains lose repeated states (NP -> NP -> x becomes NP -> x)
 * before they are collapsed, so a collapsed chain never repeats a state.
 * Chains are collapsed from the top node down and stop above POS tags: `S+VP` over x.
 */
import type { Tree } from '../trees/tree.js';
import { collapseUnaryChains as collapseChains, expandUnaryChains as expandChains } from '../trees/transforms.js';

export { stripFunctionTags, stripPhraseFunctionTags, removeEmptyElements, stripRoot } from '../trees/transforms.js';

export const CHAIN_SEPARATOR = '+';

/** Drops a phrasal node whose only child is a phrasal node with the same label. */
export function dropRepeatedUnaries(t: Tree): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  let cur = t;
  while (cur.children.length === 1 && cur.children[0].word === undefined && cur.children[0].label === cur.label)
    cur = cur.children[0];
  return { label: cur.label, children: cur.children.map(dropRepeatedUnaries) };
}

export function collapseUnaryChains(t: Tree): Tree {
  return collapseChains(dropRepeatedUnaries(t), { joiner: CHAIN_SEPARATOR, includeRoot: true });
}

export function expandUnaryChains(t: Tree): Tree {
  return expandChains(t, { joiner: CHAIN_SEPARATOR });
}
