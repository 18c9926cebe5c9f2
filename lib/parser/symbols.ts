/**
 * The parser's symbol table (annotated, binarized labels -> dense ids) and the encoding of
 * trees as pre-order (label id, arity) pairs that crosses to the native chart parser.
 */
import { InputError, InternalError } from '../errors.js';
import type { Tree } from '../trees/tree.js';
import { baseLabel, PARENT_MARK } from './annotate.js';
import { ACTIVE_MARK } from './binarize.js';

/** Base category of a state, for features: `NP^S` -> NP, `@VP~VBD^S|VBD` -> @VP. */
export function baseCategory(label: string): string {
  if (label.length > 1 && label[0] === ACTIVE_MARK) return ACTIVE_MARK + baseLabel(label.slice(1).split('|')[0]);
  return baseLabel(label);
}

/**
 * A treebank may use one label both as a part of speech and as a phrase (Floresta's `pp`,
 * `vp`, `?`): inside the grammar these are two symbols, told apart by this key; the
 * table's `labels` keep the treebank's own label for both.
 */
export function symbolKey(label: string, isTag: boolean): string {
  return isTag ? '\u0001' + label : label;
}

export interface SymbolTable {
  /** The treebank label of each symbol (a label used as a tag and as a phrase appears twice). */
  labels: string[];
  /** symbolKey(label, isTag) -> symbol id. */
  ids: Map<string, number>;
  isTag: Uint8Array;
  base: Int32Array;
  numBases: number;
  /**
   * Grammar relaxation groups: phrasal, non-active states that differ only in their parent
   * annotation share a group (`NP^S`, `NP^VP`); -1 for tags, active states and states
   * without a parent annotation.
   */
  relaxGroup: Int32Array;
}

/** The relaxation key of a state: its label without the parent annotation, or undefined. */
export function relaxKey(label: string, isTag: boolean): string | undefined {
  if (isTag || (label.length > 1 && label[0] === ACTIVE_MARK)) return undefined;
  const at = label.lastIndexOf(PARENT_MARK);
  return at > 0 ? label.slice(0, at) : undefined;
}

export function buildSymbolTable(trees: Tree[]): SymbolTable {
  const ids = new Map<string, number>();
  const labels: string[] = [];
  const tag: boolean[] = [];
  const visit = (t: Tree): void => {
    const isTag = t.word !== undefined;
    const key = symbolKey(t.label, isTag);
    if (!ids.has(key)) {
      ids.set(key, labels.length);
      labels.push(t.label);
      tag.push(isTag);
    }
    for (const c of t.children) visit(c);
  };
  for (const t of trees) visit(t);
  return finishTable(labels, ids, tag);
}

export function symbolTableFromLabels(labels: string[], isTag: boolean[]): SymbolTable {
  const ids = new Map<string, number>();
  labels.forEach((l, i) => ids.set(symbolKey(l, isTag[i]), i));
  if (ids.size !== labels.length)
    throw new InputError('<model>', undefined, 'chart parser model has a repeated symbol');
  return finishTable(labels, ids, isTag);
}

/**
 * The table of a latent-annotation PCFG (native/chart/latent_grammar.h): each symbol of the
 * base table (`labels`, `isTag`) repeated for each of its `subs` subsymbols, which keep its
 * label and base category; `ids` names each base symbol's first subsymbol.
 */
export function latentSymbolTable(labels: string[], isTag: boolean[], subs: readonly number[]): SymbolTable {
  const base = symbolTableFromLabels(labels, isTag);
  if (subs.length !== labels.length || !subs.every((n) => Number.isInteger(n) && n >= 1))
    throw new InputError('<model>', undefined, "latent PCFG's subsymbol counts do not fit its symbols");
  const expanded: string[] = [];
  const tag: boolean[] = [];
  const ids = new Map<string, number>();
  labels.forEach((label, s) => {
    ids.set(symbolKey(label, isTag[s]), expanded.length);
    for (let a = 0; a < subs[s]; a++) (expanded.push(label), tag.push(isTag[s]));
  });
  const table = finishTable(expanded, ids, tag);
  if (table.numBases !== base.numBases) throw new InternalError('latent PCFG table: base categories differ');
  return table;
}

function finishTable(labels: string[], ids: Map<string, number>, tag: boolean[]): SymbolTable {
  const bases = new Map<string, number>();
  const base = new Int32Array(labels.length);
  const isTag = new Uint8Array(labels.length);
  const relaxGroup = new Int32Array(labels.length).fill(-1);
  const groups = new Map<string, number>();
  labels.forEach((label, i) => {
    isTag[i] = tag[i] ? 1 : 0;
    // Tags and phrases never share a base category, even when their labels agree.
    const b = symbolKey(baseCategory(label), tag[i]);
    let bid = bases.get(b);
    if (bid === undefined) {
      bid = bases.size;
      bases.set(b, bid);
    }
    base[i] = bid;
    const key = relaxKey(label, tag[i]);
    if (key !== undefined) {
      let g = groups.get(key);
      if (g === undefined) {
        g = groups.size;
        groups.set(key, g);
      }
      relaxGroup[i] = g;
    }
  });
  return { labels, ids, isTag, base, numBases: Math.max(1, bases.size), relaxGroup };
}

/** 1 for each tag symbol whose base label is one of `verbTags`, for the verb-lexicalized rule features. */
export function verbFlags(table: SymbolTable, verbTags: readonly string[]): Uint8Array {
  const verbs = new Set(verbTags);
  return Uint8Array.from(table.labels, (label, i) => (table.isTag[i] === 1 && verbs.has(baseCategory(label)) ? 1 : 0));
}

/** Appends a tree's (label, arity) pairs; throws if a label is unknown or a node has > 2 children. */
export function encodeTree(t: Tree, table: SymbolTable, out: number[]): void {
  const id = table.ids.get(symbolKey(t.label, t.word !== undefined));
  if (id === undefined) throw new InternalError(`unknown parser state '${t.label}'`);
  if (t.children.length > 2) throw new InternalError('tree is not binarized');
  out.push(id, t.word !== undefined ? 0 : t.children.length);
  for (const c of t.children) encodeTree(c, table, out);
}

/** Rebuilds a tree from (label, arity) pairs starting at pair `start`; label -1 is the fallback X. */
export function decodeTree(pairs: Int32Array, start: number, end: number, words: string[], table: SymbolTable): Tree {
  let next = start;
  let word = 0;
  const read = (): Tree => {
    if (next >= end) throw new InternalError('chart parser returned a truncated tree');
    const label = pairs[2 * next];
    const arity = pairs[2 * next + 1];
    next++;
    const name = label < 0 ? 'X' : table.labels[label];
    if (arity === 0) return { label: name, children: [], word: words[word++] };
    const children: Tree[] = [];
    for (let c = 0; c < arity; c++) children.push(read());
    return { label: name, children };
  };
  const t = read();
  if (word !== words.length) throw new InternalError('chart parser returned a tree with the wrong number of words');
  return t;
}
