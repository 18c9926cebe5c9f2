/**
 * CoNLL column files: one token per line, columns separated by whitespace (or tabs), a
 * blank line after each sentence. `-DOCSTART-` lines are document markers, not tokens
 * (skipped unless `keepDocstart`). Every token line must have the same number of columns.
 */
import { InputError, UsageError } from '../errors.js';
import { readLines, readLinesSync, type Line } from './lines.js';
import { writeTextAtomic } from './atomic-writer.js';

export interface ConllSentence {
  /** rows[token][column] */
  rows: string[][];
  /** Line number of the sentence's first token. */
  line: number;
}

export interface ConllReadOptions {
  /** 'whitespace' (default: runs of spaces or tabs) or 'tab' (CoNLL-U style; spaces inside fields kept). */
  separator?: 'whitespace' | 'tab';
  /** Number of columns each token line must have; by default the first token line's count. */
  columns?: number;
  /** Keep `-DOCSTART-` lines as tokens (conlleval treats them as ordinary tokens). */
  keepDocstart?: boolean;
}

/** Assembles sentences from lines; shared by the sync and async readers. */
export class ConllAssembler {
  private rows: string[][] = [];
  private first = 0;
  private width: number | undefined;

  constructor(
    private readonly file: string,
    private readonly options: ConllReadOptions = {},
  ) {
    this.width = options.columns;
  }

  /** Consumes a line; returns a finished sentence when the line ends one. */
  push(line: Line): ConllSentence | undefined {
    const text = line.text;
    if (text.trim() === '') return this.flush();
    const fields = this.options.separator === 'tab' ? text.split('\t') : text.trim().split(/\s+/);
    if (!this.options.keepDocstart && fields[0] === '-DOCSTART-') return this.flush();
    if (this.width === undefined) this.width = fields.length;
    else if (fields.length !== this.width) {
      throw new InputError(this.file, line.number, `expected ${this.width} columns, found ${fields.length}`);
    }
    if (this.rows.length === 0) this.first = line.number;
    this.rows.push(fields);
    return undefined;
  }

  flush(): ConllSentence | undefined {
    if (this.rows.length === 0) return undefined;
    const sentence = { rows: this.rows, line: this.first };
    this.rows = [];
    return sentence;
  }
}

/**
 * Streams the sentences of a CoNLL-style column file (blank-line separated), each with its
 * rows and first line number; bad input is an InputError naming file and line.
 *
 * @example
 * ```ts
 * for await (const s of readConll('train.conll')) console.log(s.line, s.rows.length);
 * ```
 */
export async function* readConll(file: string, options: ConllReadOptions = {}): AsyncGenerator<ConllSentence> {
  const assembler = new ConllAssembler(file, options);
  let lines = 0;
  for await (const line of readLines(file)) {
    lines++;
    const s = assembler.push(line);
    if (s) yield s;
  }
  const last = assembler.flush();
  if (last) yield last;
  if (lines === 0) throw new InputError(file, undefined, 'empty file');
}

/**
 * All sentences of a CoNLL-style column file, read at once.
 *
 * @example
 * ```ts
 * const rows = readConllSync('train.conll').map((s) => s.rows);   // input for Tagger.train
 * ```
 */
export function readConllSync(file: string, options: ConllReadOptions = {}): ConllSentence[] {
  const assembler = new ConllAssembler(file, options);
  const out: ConllSentence[] = [];
  let lines = 0;
  for (const line of readLinesSync(file)) {
    lines++;
    const s = assembler.push(line);
    if (s) out.push(s);
  }
  const last = assembler.flush();
  if (last) out.push(last);
  if (lines === 0) throw new InputError(file, undefined, 'empty file');
  return out;
}

/** Looks up named columns: `--columns word,pos,chunk` -> index of each name. */
export function columnIndex(names: string[], wanted: string, file = '<columns>'): number {
  const i = names.indexOf(wanted);
  if (i < 0) throw new InputError(file, undefined, `no column named '${wanted}' in [${names.join(', ')}]`);
  return i;
}

/** Named columns of a CoNLL file, e.g. from `--columns word,pos,chunk`. */
export interface ColumnLayout {
  names: string[];
  /** Number of columns every token line must have. */
  count: number;
  /** Index of a named column; throws UsageError naming the known columns if absent. */
  index(name: string): number;
  has(name: string): boolean;
}

/**
 * Parses a column list (`"word,pos,chunk"` or an array of names). Names must be non-empty
 * and distinct. Read files with `{ columns: layout.count }` so every token line is checked.
 */
export function parseColumns(spec: string | readonly string[], flag = '--columns'): ColumnLayout {
  const names = typeof spec === 'string' ? spec.split(',').map((n) => n.trim()) : [...spec];
  if (names.length === 0 || names.some((n) => n === ''))
    throw new UsageError(`${flag}: empty column name in '${names.join(',')}'`);
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new UsageError(`${flag}: column '${n}' named twice`);
    seen.add(n);
  }
  return {
    names,
    count: names.length,
    has: (name) => seen.has(name),
    index(name) {
      const i = names.indexOf(name);
      if (i < 0) throw new UsageError(`${flag}: no column named '${name}' in ${names.join(',')}`);
      return i;
    },
  };
}

/** Checks that a sentence has the layout's number of columns. */
export function checkColumnCount(layout: ColumnLayout, sentence: ConllSentence, file: string): void {
  sentence.rows.forEach((row, i) => {
    if (row.length !== layout.count) {
      throw new InputError(
        file,
        sentence.line + i,
        `expected ${layout.count} columns (${layout.names.join(',')}), found ${row.length}`,
      );
    }
  });
}

export interface ConllWriteOptions {
  /** Column separator: ' ' (default, as CoNLL-2000/2002) or '\t'. */
  separator?: ' ' | '\t';
}

/**
 * Writes sentences as CoNLL columns: one token per line, a blank line after each sentence.
 * Atomic (temp file + rename). Fields must be non-empty and contain no whitespace.
 *
 * @example
 * ```ts
 * await writeConll('tagged.conll', [[['Ana', 'NNP', 'B-PER'], ['sleeps', 'VBZ', 'O']]], { separator: '\t' });
 * ```
 */
export async function writeConll(
  file: string,
  sentences: Iterable<ConllSentence | string[][]> | AsyncIterable<ConllSentence | string[][]>,
  options: ConllWriteOptions = {},
): Promise<void> {
  const sep = options.separator ?? ' ';
  async function* lines(): AsyncGenerator<string> {
    let n = 0;
    for await (const s of sentences) {
      n++;
      const rows = Array.isArray(s) ? s : s.rows;
      let text = '';
      rows.forEach((row, t) => {
        row.forEach((field, c) => {
          if (field === '' || /\s/.test(field)) {
            throw new InputError(
              file,
              undefined,
              `sentence ${n}, token ${t + 1}, column ${c + 1}: field ${JSON.stringify(field)} is empty or contains whitespace`,
            );
          }
        });
        text += row.join(sep) + '\n';
      });
      yield text + '\n';
    }
  }
  await writeTextAtomic(file, lines());
}
