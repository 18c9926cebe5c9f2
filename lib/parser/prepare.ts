/**
 * From treebank trees to the parser's binarized, annotated trees and back:
 * prepare = strip function tags from phrases (POS tags stay whole), remove empties, strip the root wrapper, escape the
 * characters state names use (label-escape.ts), collapse unary chains, annotate, binarize; restore = debinarize,
 * deannotate, expand chains, unescape, wrap.
 */
import type { Tree } from '../trees/tree.js';
import { ROOT_LABELS } from '../trees/transforms.js';
import { annotate, deannotate, type AnnotateOptions } from './annotate.js';
import { escapeTreeLabels, unescapeTreeLabels } from './label-escape.js';
import { binarize, debinarize, type MarkovOrder } from './binarize.js';
import {
  collapseUnaryChains,
  expandUnaryChains,
  removeEmptyElements,
  stripPhraseFunctionTags,
  stripRoot,
} from './standard-transforms.js';

export interface GrammarOptions extends AnnotateOptions {
  markov?: MarkovOrder;
}

/** A treebank tree without phrase function tags and empty elements, or undefined when nothing is left. */
export function cleanTree(t: Tree): Tree | undefined {
  return removeEmptyElements(stripPhraseFunctionTags(t));
}

/** A training tree ready for grammar reading, or undefined when nothing is left of it. */
export function prepareTree(t: Tree, options: GrammarOptions = {}): Tree | undefined {
  const cleaned = cleanTree(t);
  if (!cleaned) return undefined;
  let top = stripRoot(cleaned);
  // A wrapper with several children becomes a plain S-like node that the grammar can read.
  if (ROOT_LABELS.has(top.label)) top = { label: 'S', children: top.children };
  return binarize(annotate(collapseUnaryChains(escapeTreeLabels(top)), options), options.markov ?? 2);
}

/** A parser output tree (binarized, annotated, no wrapper) as a plain PTB tree under `rootLabel`. */
export function restoreTree(t: Tree, rootLabel = 'ROOT'): Tree {
  return { label: rootLabel, children: [unescapeTreeLabels(expandUnaryChains(deannotate(debinarize(t))))] };
}
