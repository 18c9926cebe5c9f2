/**
 * Right-branching markovized binarization and its inverse. A node X with children
 * C1 ... Cn (n > 2) becomes X -> C1 @X|C1 ; @X|C1 -> C2 @X|C1 ... ; the last active state
 * has the two last children. Each active state remembers X (fully annotated), the first
 * child's base label and, at order 2, the previous sibling's: `@X|C1|C2` (Finkel, Kleeman & Manning 2008, section 5).
 * Active states start with `@`; debinarize splices them into their parent.
 */
import type { Tree } from '../trees/tree.js';
import { baseLabel } from './annotate.js';

export const ACTIVE_MARK = '@';
/** 0: `@X` only; 1: also the first child; 2: also the previous sibling. */
export type MarkovOrder = 0 | 1 | 2;

export function isActiveLabel(label: string): boolean {
  return label.length > 1 && label[0] === ACTIVE_MARK;
}

export function binarize(t: Tree, order: MarkovOrder = 2): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  const kids = t.children.map((c) => binarize(c, order));
  if (kids.length <= 2) return { label: t.label, children: kids };
  const first = baseLabel(t.children[0].label);
  // Build from the right: the last active state holds the two last children.
  let right: Tree | undefined;
  for (let i = kids.length - 2; i >= 1; i--) {
    const prev = baseLabel(t.children[i - 1].label);
    const active = ACTIVE_MARK + t.label + (order >= 1 ? '|' + first : '') + (order === 2 ? '|' + prev : '');
    right = { label: active, children: right ? [kids[i], right] : [kids[i], kids[i + 1]] };
  }
  return { label: t.label, children: [kids[0], right as Tree] };
}

export function debinarize(t: Tree): Tree {
  if (t.word !== undefined) return { label: t.label, children: [], word: t.word };
  const children: Tree[] = [];
  const collect = (c: Tree): void => {
    if (c.word === undefined && isActiveLabel(c.label)) for (const g of c.children) collect(g);
    else children.push(debinarize(c));
  };
  for (const c of t.children) collect(c);
  return { label: t.label, children };
}
