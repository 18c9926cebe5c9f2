/**
 * Parser input: a bracketed treebank (its words are parsed; tags and brackets unused) or
 * tokenized text, one sentence per line, tokens separated by spaces. A file whose first
 * non-blank character is `(` is read as trees.
 */
import { InputError } from '../errors.js';
import { readFileHead, readLinesSync } from '../io/lines.js';
import { readTreebankSync } from '../io/treebank.js';
import type { Tree } from '../trees/tree.js';

export interface ParserInput {
  sentences: string[][];
  /** Ids: the tree's or line's number in the file (1-based). */
  ids: string[];
  /** Gold trees when the input is a treebank. */
  gold?: Tree[];
  /** Input trees (to copy their wrapper, or its absence, onto the output); undefined for text. */
  shapes?: Tree[];
}

function startsWithParen(file: string): boolean {
  return readFileHead(file, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('(');
}

/** The overt words of a tree (-NONE- elements are not words). */
export function treeWords(t: Tree, out: string[] = []): string[] {
  if (t.word !== undefined) {
    if (t.label !== '-NONE-') out.push(t.word);
  } else for (const c of t.children) treeWords(c, out);
  return out;
}

export function readParserInput(file: string): ParserInput {
  if (startsWithParen(file)) {
    const parsed = readTreebankSync(file);
    const sentences: string[][] = [];
    parsed.forEach((p) => {
      const w = treeWords(p.tree);
      if (w.length === 0) throw new InputError(file, p.line, 'tree has no words');
      sentences.push(w);
    });
    return {
      sentences,
      ids: parsed.map((_, i) => String(i + 1)),
      gold: parsed.map((p) => p.tree),
      shapes: parsed.map((p) => p.tree),
    };
  }
  const sentences: string[][] = [];
  const ids: string[] = [];
  for (const line of readLinesSync(file)) {
    const tokens = line.text.split(/\s+/).filter((t) => t !== '');
    if (tokens.length === 0) continue;
    for (const t of tokens) {
      if (t.includes('(') || t.includes(')'))
        throw new InputError(file, line.number, `token '${t}' contains a bracket (write -LRB- / -RRB-)`);
    }
    sentences.push(tokens);
    ids.push(String(line.number));
  }
  if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences in file');
  return { sentences, ids };
}
