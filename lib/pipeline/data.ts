/**
 * The pipeline's data sets: a treebank (task parse) or CoNLL columns (task tag) read into
 * PipelineSentences, with the length filter and the size limits of the config applied.
 */
import { InputError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import { conlluField, conlluRows, readConlluSync, type ColumnFormat, type ConlluField } from '../io/conllu.js';
import { readTreesSync } from '../io/treebank.js';
import { formatTree, preterminals } from '../trees/tree.js';
import type { PipelineSentence } from './components.js';
import type { PipelineConfig } from './config.js';

export interface DataSets {
  train: PipelineSentence[];
  dev: PipelineSentence[];
  test: PipelineSentence[];
}

function readTreeSentences(file: string, prefix: string): PipelineSentence[] {
  const out: PipelineSentence[] = [];
  readTreesSync(file).forEach((tree, i) => {
    const tokens = preterminals(tree)
      .filter((p) => p.label !== '-NONE-')
      .map((p) => p.word as string);
    if (tokens.length === 0) return;
    out.push({ id: `${prefix}${i + 1}`, tokens, gold: formatTree(tree) });
  });
  return out;
}

/** The token rows of a tagging file: CoNLL columns, or the named fields of CoNLL-U words. */
function readTagRows(file: string, format: ColumnFormat, columns: string[]): { rows: string[][]; line: number }[] {
  if (format === 'conllu') {
    const fields = columns.map((name) => conlluField(name) as ConlluField); // checked by the config
    return readConlluSync(file).map((s) => ({ rows: conlluRows(s, fields), line: s.line }));
  }
  return readConllSync(file, { columns: columns.length }).map((s) => {
    if (s.rows.some((r) => r.length !== columns.length))
      throw new InputError(file, s.line, `expected ${columns.length} columns (${columns.join(', ')})`);
    return s;
  });
}

function readTagSentences(
  file: string,
  prefix: string,
  format: ColumnFormat,
  columns: string[],
  label: string,
): PipelineSentence[] {
  const wordIndex = Math.max(0, columns.indexOf('word'));
  const labelIndex = columns.indexOf(label);
  return readTagRows(file, format, columns).map((s, i) => ({
    id: `${prefix}${i + 1}`,
    tokens: s.rows.map((r) => r[wordIndex]),
    gold: s.rows.map((r) => r[labelIndex]),
    rows: s.rows,
  }));
}

function limit(
  sentences: PipelineSentence[],
  maxLength: number | undefined,
  count: number | undefined,
): PipelineSentence[] {
  const kept = maxLength === undefined ? sentences : sentences.filter((s) => s.tokens.length <= maxLength);
  return count === undefined ? kept : kept.slice(0, count);
}

/**
 * The data options that decide what a step sees: a step's cache key holds them, and a queued
 * step's payload carries them to the worker that reads the data (lib/distributed).
 */
export function stepDataOptions(config: PipelineConfig) {
  const { format, columns, label, trainLimit, devLimit, testLimit, maxLength } = config.data;
  return { format, columns, label, trainLimit, devLimit, testLimit, maxLength };
}

export function readDataSets(config: PipelineConfig): DataSets {
  const d = config.data;
  const read = (file: string, prefix: string): PipelineSentence[] =>
    config.task === 'parse' || d.format === 'trees'
      ? readTreeSentences(file, prefix)
      : readTagSentences(file, prefix, d.format, d.columns, d.label);
  const sets = {
    train: limit(read(d.train, 'train.'), d.maxLength, d.trainLimit),
    dev: limit(read(d.dev, 'dev.'), d.maxLength, d.devLimit),
    test: limit(read(d.test, 'test.'), d.maxLength, d.testLimit),
  };
  if (sets.train.length < config.folds)
    throw new InputError(
      d.train,
      undefined,
      `${sets.train.length} training sentences cannot be split into ${config.folds} folds`,
    );
  if (sets.dev.length === 0) throw new InputError(d.dev, undefined, 'no dev sentences');
  if (sets.test.length === 0) throw new InputError(d.test, undefined, 'no test sentences');
  return sets;
}

/** Fold f of k: the contiguous chunk [f n / k, (f + 1) n / k) (Collins & Duffy 2002a and Collins & Koo 2005 jackknife in chunks). */
export function foldRange(n: number, k: number, f: number): [number, number] {
  return [Math.floor((f * n) / k), Math.floor(((f + 1) * n) / k)];
}
