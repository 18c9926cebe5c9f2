/**
 * Parser-specific state splits and their exact inverse:
 *  - parent annotation on every state, POS tags included: NP under S becomes `NP^S`
 *    (the top node's parent is ROOT);
 *  - head-tag annotation on VPs: a VP whose head word is tagged VBD becomes `VP~VBD^S`.
 * A collapsed unary chain `S+VP` is annotated as one state; its children see the chain's
 * bottom label (VP) as their parent. `deannotate` cuts every label at its first `~` or `^`.
 */
import type { Tree } from '../trees/tree.js';
import { headChildIndex } from '../trees/heads.js';
import { CHAIN_SEPARATOR } from './standard-transforms.js';

export const PARENT_MARK = '^';
export const HEAD_MARK = '~';

/** Index of the head child (default: Collins' head rules, lib/trees/heads.ts). */
export type HeadFinder = (t: Tree) => number;

export interface AnnotateOptions {
  /** Annotate parents (default true). */
  parent?: boolean;
  /** Annotate VPs with their head tag (default true). */
  vpHeadTag?: boolean;
  headChild?: HeadFinder;
}

/** The label without annotations (a collapsed chain stays `A+B`). */
export function baseLabel(label: string): string {
  let end = label.length;
  for (let i = 1; i < label.length; i++) {
    const c = label[i];
    if (c === PARENT_MARK || c === HEAD_MARK) {
      end = i;
      break;
    }
  }
  return label.slice(0, end);
}

function bottomOfChain(label: string): string {
  const parts = label.split(CHAIN_SEPARATOR);
  return parts[parts.length - 1] || label;
}

function headTag(t: Tree, headChild: HeadFinder): string {
  if (t.word !== undefined) return t.label;
  const bottom = bottomOfChain(t.label);
  const h = t.children[headChild({ label: bottom, children: t.children })] ?? t.children[0];
  if (h.word !== undefined) return h.label;
  return bottomOfChain(h.label) === 'VP' ? headTag(h, headChild) : bottomOfChain(h.label);
}

export function annotate(t: Tree, options: AnnotateOptions = {}, parentLabel = 'ROOT'): Tree {
  const parent = options.parent ?? true;
  const vpHead = options.vpHeadTag ?? true;
  const headChild = options.headChild ?? ((n: Tree) => headChildIndex(n));
  let label = t.label;
  if (t.word !== undefined) {
    return { label: parent ? label + PARENT_MARK + parentLabel : label, children: [], word: t.word };
  }
  const bottom = bottomOfChain(t.label);
  if (vpHead && bottom === 'VP') label += HEAD_MARK + headTag(t, headChild);
  if (parent) label += PARENT_MARK + parentLabel;
  return { label, children: t.children.map((c) => annotate(c, options, bottom)) };
}

export function deannotate(t: Tree): Tree {
  if (t.word !== undefined) return { label: baseLabel(t.label), children: [], word: t.word };
  return { label: baseLabel(t.label), children: t.children.map(deannotate) };
}
