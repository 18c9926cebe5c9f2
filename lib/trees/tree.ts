/**
 * Labeled ordered trees as read from bracketed treebanks. A preterminal has a `word` and
 * no children; every other node has children and no word. The unlabeled outer wrapper of
 * `( (S ...))` is a node with label ''.
 */
export interface Tree {
  label: string;
  children: Tree[];
  word?: string;
}

/**
 * A generative model of trees: its log-probability of a tree (lib/rerank/tree-model.ts and
 * head-model.ts; the reranking lists' `KbestListOptions.treeModel` and `headModel`).
 */
export interface TreeModel {
  logprob(tree: Tree): number;
}

export function isPreterminal(t: Tree): boolean {
  return t.word !== undefined;
}

export function preterminal(label: string, word: string): Tree {
  return { label, children: [], word };
}

export function node(label: string, children: Tree[]): Tree {
  return { label, children };
}

/** The preterminals of a tree, left to right. */
export function preterminals(t: Tree, out: Tree[] = []): Tree[] {
  if (t.word !== undefined) out.push(t);
  else for (const c of t.children) preterminals(c, out);
  return out;
}

/** The words of a tree, left to right. */
export function words(t: Tree): string[] {
  return preterminals(t).map((p) => p.word as string);
}

/** The POS tags of a tree, left to right. */
export function tags(t: Tree): string[] {
  return preterminals(t).map((p) => p.label);
}

/**
 * Writes a tree in PTB bracket form on one line, e.g. `(S (NP (DT the) (NN dog)))`.
 *
 * @example
 * ```ts
 * formatTree(parseTree('(S (NP (DT a) (NN dog)) (VP (VBZ barks)))')); // '(S (NP (DT a) (NN dog)) (VP (VBZ barks)))'
 * ```
 */
export function formatTree(t: Tree): string {
  return bracketText(t);
}

/**
 * The bracket text of a tree; with `tagLabel`, every preterminal shows that label instead of
 * its own (the bracketing alone, as k-best over bracketings compares trees).
 */
export function bracketText(t: Tree, tagLabel?: string): string {
  const parts: string[] = [];
  const walk = (n: Tree): void => {
    if (n.word !== undefined) {
      parts.push('(', tagLabel ?? n.label, ' ', n.word, ')');
      return;
    }
    parts.push('(', n.label);
    for (const c of n.children) {
      parts.push(' ');
      walk(c);
    }
    parts.push(')');
  };
  walk(t);
  return parts.join('');
}

/** Deep copy. */
export function cloneTree(t: Tree): Tree {
  return t.word !== undefined
    ? { label: t.label, children: [], word: t.word }
    : { label: t.label, children: t.children.map(cloneTree) };
}

/** Number of nodes, preterminals included, words excluded. */
export function countNodes(t: Tree): number {
  let n = 1;
  for (const c of t.children) n += countNodes(c);
  return n;
}
