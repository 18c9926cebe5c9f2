/**
 * A CoNLL training file read in native code into the layout the tagger trains from: the
 * input columns and the labels as UTF-8 text, never a JavaScript string per token (on
 * conll2000 those rows were about 70 MB of a training process). Lines are split exactly as
 * lib/io/conll.ts splits them, with the same errors; `Tagger.train` takes the result in
 * place of rows.
 */
import { isUtf8 } from 'node:buffer';
import { InputError, optionError } from '../errors.js';
import { invalidUtf8, readWholeFileAsync, startsWithBom } from '../io/lines.js';
import { native } from '../native.js';

/** A training file's columns as the native trainer reads them. */
export interface TrainingColumns {
  readonly file: string;
  /** The file's column names, and which one is the label. */
  readonly columns: readonly string[];
  readonly label: string;
  /** The input columns of each token, tab-separated, one token per line, a blank line after each sentence. */
  readonly text: Uint8Array;
  /** The labels, one per token line of `text`. */
  readonly labels: Uint8Array;
  readonly sentences: number;
  readonly tokens: number;
  /** Each label with its number of tokens. */
  readonly labelCounts: ReadonlyMap<string, number>;
}

interface ColumnsAddon {
  NativeTagger: {
    readTrainingColumns(
      bytes: Uint8Array,
      width: number,
      tab: boolean,
      inputIdx: Int32Array,
      labelIndex: number,
    ): {
      text: Uint8Array;
      labels: Uint8Array;
      sentences: number;
      tokens: number;
      lines: number;
      labelNames: string[];
      labelCounts: Float64Array;
      errorLine: number;
      errorFound: number;
    };
  };
}

/**
 * Reads a CoNLL column file for training: every token line must have `columns.length`
 * fields (whitespace runs, or single tabs with `separator: 'tab'`); blank and `-DOCSTART-`
 * lines end sentences. Bad input is an InputError naming the file and line.
 *
 * @example
 * ```ts
 * const train = await readTrainingColumns('train.txt', { columns: ['word', 'pos', 'chunk'], label: 'chunk' });
 * const tagger = await Tagger.train(train, { algo: 'crf', columns: ['word', 'pos', 'chunk'], label: 'chunk' });
 * ```
 */
export async function readTrainingColumns(
  file: string,
  options: { columns: readonly string[]; label: string; separator?: 'whitespace' | 'tab' },
): Promise<TrainingColumns> {
  const { columns, label } = options;
  const labelIndex = columns.indexOf(label);
  if (labelIndex < 0) throw optionError(`label column '${label}' is not among the columns [${columns.join(', ')}]`);
  const inputIdx = Int32Array.from(columns.map((_, i) => i).filter((i) => i !== labelIndex));
  if (inputIdx.length === 0) throw optionError('no input columns besides the label');
  let bytes = await readWholeFileAsync(file);
  if (startsWithBom(bytes)) bytes = bytes.subarray(3);
  if (bytes.length === 0) throw new InputError(file, undefined, 'empty file');
  if (!isUtf8(bytes)) throw invalidUtf8(file, bytes, 0);
  const r = native<ColumnsAddon>().NativeTagger.readTrainingColumns(
    bytes,
    columns.length,
    options.separator === 'tab',
    inputIdx,
    labelIndex,
  );
  if (r.errorLine > 0)
    throw new InputError(file, r.errorLine, `expected ${columns.length} columns, found ${r.errorFound}`);
  const labelCounts = new Map<string, number>();
  r.labelNames.forEach((name, i) => labelCounts.set(name, r.labelCounts[i]));
  return {
    file,
    columns: [...columns],
    label,
    text: r.text,
    labels: r.labels,
    sentences: r.sentences,
    tokens: r.tokens,
    labelCounts,
  };
}

/** Whether `Tagger.train` was given a file read by readTrainingColumns (else rows). */
export function isTrainingColumns(train: unknown): train is TrainingColumns {
  return (
    typeof train === 'object' &&
    train !== null &&
    !Array.isArray(train) &&
    (train as TrainingColumns).text instanceof Uint8Array
  );
}
