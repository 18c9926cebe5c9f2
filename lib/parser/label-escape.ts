/**
 * Treebank labels as grammar states. The parser's state names give meaning to a few
 * characters: `+` joins a collapsed unary chain, `^` marks the parent, `~` the head tag, a
 * leading `@` an intermediate state of binarization. Labels that contain them (the French
 * Treebank's `P+D`, the Arabic Treebank's `DET+NOUN+CASE_DEF_GEN`, Korean `NNG+JKS`) are
 * escaped in the training trees and unescaped in the output, as `%XX` (with `%` itself
 * escaped), so they train and come back as themselves.
 */
import type { Tree } from '../trees/tree.js';
import { HEAD_MARK, PARENT_MARK } from './annotate.js';
import { ACTIVE_MARK } from './binarize.js';
import { CHAIN_SEPARATOR } from './standard-transforms.js';

const RESERVED = new Set(['%', CHAIN_SEPARATOR, PARENT_MARK, HEAD_MARK, ACTIVE_MARK]);
const NEEDS_ESCAPE = new RegExp(`[${[...RESERVED].map((c) => `\\${c}`).join('')}]`, 'g');
const ESCAPED = /%([0-9A-F]{2})/g;

/** The label with its reserved characters as `%XX` ("P+D" -> "P%2BD"); most labels are returned as they are. */
export function escapeLabel(label: string): string {
  return label.replace(NEEDS_ESCAPE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The inverse of escapeLabel. */
export function unescapeLabel(label: string): string {
  if (!label.includes('%')) return label;
  return label.replace(ESCAPED, (m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return RESERVED.has(c) ? c : m;
  });
}

function mapLabels(t: Tree, f: (label: string) => string): Tree {
  if (t.word !== undefined) return { label: f(t.label), children: [], word: t.word };
  return { label: f(t.label), children: t.children.map((c) => mapLabels(c, f)) };
}

/** Every label of the tree escaped (words untouched). */
export const escapeTreeLabels = (t: Tree): Tree => mapLabels(t, escapeLabel);

/** Every label of the tree unescaped. */
export const unescapeTreeLabels = (t: Tree): Tree => mapLabels(t, unescapeLabel);
