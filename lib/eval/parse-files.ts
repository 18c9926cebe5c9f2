/**
 * Reading gold and test treebanks for EVALB-style scoring, streamed in lockstep.
 *
 * EVALB reads one sentence per line. structrank keeps that convention where it matters
 * and also accepts trees spread over lines:
 * - a line that holds whole trees only is one sentence, even with several bracketed items
 *   on it (EVALB scores `(P this) (Q is)` as one sentence);
 * - a tree spread over several lines is one sentence;
 * - in the test file, while it is one-sentence-per-line, a blank line or `()` / `(())` is a
 *   failed parse (EVALB skips it); blank lines at the end of the file, before the first
 *   tree of a multi-line file, or anywhere in the gold file are ignored.
 */
import { InputError } from '../errors.js';
import { readLines } from '../io/lines.js';
import { BracketParser } from '../trees/bracket-parser.js';
import type { Tree } from '../trees/tree.js';
import { stripRoot } from '../trees/transforms.js';
import {
  COLLINS_PARAMS,
  DEFAULT_CUTOFF,
  EvalbAccumulator,
  evalbSentence,
  type EvalbParams,
  type EvalbReport,
  type EvalbSentence,
} from './evalb.js';

export interface ParseSentence {
  /** The sentence's trees: usually one; [] for a failed (empty) parse. */
  trees: Tree[];
  /** Line on which the sentence starts. */
  line: number;
}

export interface ParseSentenceOptions {
  /** Count blank lines and `()` / `(())` as failed parses (for test files). Default false. */
  emptyParses?: boolean;
  /** Receives the number of empty parses read so far. */
  stats?: { emptyParses: number };
}

const EMPTY_PARSE = /^\(\s*(?:\(\s*\)\s*)?\)$/;

/** Streams the sentences of a bracketed file as described in the module comment. */
export async function* readParseSentences(
  file: string,
  options: ParseSentenceOptions = {},
): AsyncGenerator<ParseSentence> {
  const parser = new BracketParser(file);
  const stats = options.stats ?? { emptyParses: 0 };
  let multiLine = false;
  let pendingBlank: number[] = [];
  let last = 0;
  let count = 0;
  for await (const { text, number } of readLines(file)) {
    last = number;
    const openBefore = parser.depth > 0;
    if (!openBefore && options.emptyParses) {
      const trimmed = text.trim();
      if (trimmed === '') {
        if (!multiLine) pendingBlank.push(number);
        continue;
      }
      if (EMPTY_PARSE.test(trimmed)) {
        for (const line of pendingBlank) yield { trees: [], line };
        stats.emptyParses += pendingBlank.length + 1;
        count += pendingBlank.length + 1;
        pendingBlank = [];
        yield { trees: [], line: number };
        continue;
      }
    }
    const trees = parser.feed(text, number);
    const selfContained = !openBefore && parser.depth === 0;
    if (!selfContained) {
      multiLine = true;
      pendingBlank = [];
    }
    if (selfContained && !multiLine) {
      if (trees.length === 0) continue;
      for (const line of pendingBlank) yield { trees: [], line };
      stats.emptyParses += pendingBlank.length;
      count += pendingBlank.length + 1;
      pendingBlank = [];
      yield { trees: trees.map((p) => p.tree), line: number };
    } else {
      for (const p of trees) {
        count++;
        yield { trees: [p.tree], line: p.line };
      }
    }
  }
  parser.finish(last);
  if (count === 0) throw new InputError(file, undefined, last === 0 ? 'empty file' : 'no trees in file');
}

export interface EvalbFilesOptions {
  cutoff?: number;
  params?: EvalbParams;
  /** Ignore blank lines in the test file instead of counting them as failed parses. */
  ignoreBlankLines?: boolean;
  /**
   * Remove the trivial roots (the unlabeled wrapper, ROOT or TOP with one child: stripRoot)
   * of every gold and test tree before scoring, so that the root bracket is not counted, as
   * in figures published without it. Default false: the trees are scored as written.
   */
  stripRoot?: boolean;
  /** Called for every sentence, in order (1-based index). */
  onSentence?: (s: EvalbSentence, index: number, goldLine: number, testLine: number) => void;
}

/**
 * Scores a test treebank against a gold one, both streamed in lockstep. Throws InputError
 * (naming the file and line) for malformed trees and when the files hold different numbers
 * of sentences. Returns the accumulator (report() gives the summaries).
 */
export async function scoreTreebankFiles(
  goldFile: string,
  testFile: string,
  options: EvalbFilesOptions = {},
): Promise<EvalbAccumulator> {
  const params = options.params ?? COLLINS_PARAMS;
  const acc = new EvalbAccumulator(options.cutoff ?? DEFAULT_CUTOFF);
  const testStats = { emptyParses: 0 };
  const gold = readParseSentences(goldFile);
  const test = readParseSentences(testFile, { emptyParses: !options.ignoreBlankLines, stats: testStats });
  let index = 0;
  try {
    for (;;) {
      const g = await gold.next();
      const t = await test.next();
      if (g.done && t.done) break;
      if (g.done) {
        const hint =
          testStats.emptyParses > 0
            ? ' (blank lines in a one-tree-per-line test file count as failed parses; --ignore-blank-lines turns that off)'
            : '';
        throw new InputError(
          testFile,
          t.value!.line,
          `the test file has more trees than the gold file ${goldFile}, which has ${index}${hint}`,
        );
      }
      if (t.done) {
        throw new InputError(
          goldFile,
          g.value.line,
          `the gold file has more trees than the test file ${testFile}, which has ${index}`,
        );
      }
      index++;
      const goldTrees = options.stripRoot ? g.value.trees.map(stripRoot) : g.value.trees;
      const testTrees = options.stripRoot ? t.value.trees.map(stripRoot) : t.value.trees;
      const s = evalbSentence(goldTrees, testTrees, params);
      acc.add(s);
      options.onSentence?.(s, index, g.value.line, t.value.line);
    }
  } finally {
    await gold.return(undefined);
    await test.return(undefined);
  }
  return acc;
}

/**
 * EVALB over two files: the summaries for all sentences, for length <= cutoff, and per label.
 *
 * @example
 * ```ts
 * const report = await evalbFiles('gold.mrg', 'parsed.mrg');
 * console.log(report.all.f1);
 * ```
 */
export async function evalbFiles(
  goldFile: string,
  testFile: string,
  options: EvalbFilesOptions = {},
): Promise<EvalbReport> {
  return (await scoreTreebankFiles(goldFile, testFile, options)).report();
}
