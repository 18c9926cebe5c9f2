/** Streaming readers and a writer for bracketed treebank files. */
import { InputError } from '../errors.js';
import { writeTextAtomic } from './atomic-writer.js';
import { BracketParser, type ParsedTree } from '../trees/bracket-parser.js';
import { formatTree, type Tree } from '../trees/tree.js';
import { readLines, readLinesSync } from './lines.js';

/**
 * Streams the trees of a file, each with the line it starts on.
 *
 * @example
 * ```ts
 * for await (const { tree, line } of readTreebank('train.mrg')) console.log(line, tree.label);
 * ```
 */
export async function* readTreebank(file: string): AsyncGenerator<ParsedTree> {
  const parser = new BracketParser(file);
  const out: ParsedTree[] = [];
  let last = 0;
  let count = 0;
  for await (const line of readLines(file)) {
    last = line.number;
    parser.feed(line.text, line.number, out);
    count += out.length;
    yield* out;
    out.length = 0;
  }
  parser.finish(last);
  if (count === 0) throw new InputError(file, undefined, last === 0 ? 'empty file' : 'no trees in file');
}

/** Reads all trees of a file synchronously. */
export function readTreebankSync(file: string): ParsedTree[] {
  const parser = new BracketParser(file);
  const out: ParsedTree[] = [];
  let last = 0;
  for (const line of readLinesSync(file)) {
    last = line.number;
    parser.feed(line.text, line.number, out);
  }
  parser.finish(last);
  if (out.length === 0) throw new InputError(file, undefined, last === 0 ? 'empty file' : 'no trees in file');
  return out;
}

/**
 * Reads the trees only.
 *
 * @example
 * ```ts
 * const trees = readTreesSync('train.mrg');
 * ```
 */
export function readTreesSync(file: string): Tree[] {
  return readTreebankSync(file).map((p) => p.tree);
}

/**
 * Writes one tree per line, atomically (`-`: standard output). Resolves when the file is in place.
 *
 * @example
 * ```ts
 * await writeTreebank('parsed.mrg', parses.map((p) => p.tree));
 * ```
 */
export async function writeTreebank(file: string, trees: Iterable<Tree> | AsyncIterable<Tree>): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    for await (const t of trees) yield formatTree(t) + '\n';
  }
  await writeTextAtomic(file, lines());
}
