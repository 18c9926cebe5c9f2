/**
 * The input files of `kernel tags`: tagged sentences in CoNLL columns (the columns named
 * `word` and `tag`) or in CoNLL-U (the FORMs and one field). Read whole, then banked in any
 * range, so the local command and its row-block jobs build the same banks.
 */
import { InputError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import { readConlluSync, type ColumnFormat, type ConlluField } from '../io/conllu.js';
import { SequenceBank, type BuiltinWordFeature } from './sequence-bank.js';

export interface SequenceFileOptions {
  format: ColumnFormat;
  /** CoNLL: the column names in order. */
  columns: string[];
  /** CoNLL-U: the field holding the tags. */
  tagField: ConlluField;
  wordFeature?: BuiltinWordFeature;
}

/** A file's sentences, and a bank of any range of them; errors name `source`. */
export function readSequenceFile(
  file: string,
  source: string,
  o: SequenceFileOptions,
): { size: number; bank(from: number, to: number): SequenceBank } {
  const bankOptions = { source, wordFeature: o.wordFeature };
  if (o.format === 'conllu') {
    const sentences = readConlluSync(file);
    return {
      size: sentences.length,
      bank: (from, to) => SequenceBank.fromConllu(sentences.slice(from, to), o.tagField, bankOptions),
    };
  }
  const sentences = readConllSync(file, { columns: o.columns.length });
  // As kernel trees: a file of blank lines has nothing to compare (it printed an empty matrix).
  if (sentences.length === 0) throw new InputError(source, undefined, 'no sentences in file');
  return {
    size: sentences.length,
    bank: (from, to) => SequenceBank.fromConll(sentences.slice(from, to), o.columns, bankOptions),
  };
}
