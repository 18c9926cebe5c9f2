/** `eval tags` on files: tagging accuracy, overall and on words unseen in a training file. */
import { InputError, UsageError } from '../errors.js';
import {
  columnFormatOf,
  conlluTagField,
  CONLLU_TAG_FIELD_NAMES,
  readConllu,
  type ColumnFormat,
  type ConlluField,
} from '../io/conllu.js';
import { readConll, type ColumnLayout } from '../io/conll.js';
import { alignedConll, alignedConllu } from './aligned.js';
import { TagCounter, type TagAccuracy } from './tags.js';

export interface EvalTagsOptions {
  gold: string;
  test: string;
  train?: string;
  columns?: ColumnLayout;
  tag?: string;
  /** CoNLL-U: score the field named by `tag` (default upos); the words are the FORMs. */
  format?: ColumnFormat;
}

function wordColumn(layout: ColumnLayout | undefined): number {
  if (layout?.has('word')) return layout.index('word');
  if (layout?.has('form')) return layout.index('form');
  return 0;
}

function checkWidth(file: string, line: number, row: string[], layout: ColumnLayout | undefined): void {
  if (layout && row.length !== layout.count) {
    throw new InputError(
      file,
      line,
      `expected ${layout.count} columns (${layout.names.join(',')}), found ${row.length}`,
    );
  }
}

/** Reads the words of a training file (the word column of every token line). */
export async function readVocabulary(file: string, layout?: ColumnLayout): Promise<Set<string>> {
  const col = wordColumn(layout);
  const known = new Set<string>();
  for await (const s of readConll(file, { keepDocstart: true })) {
    s.rows.forEach((row, i) => {
      checkWidth(file, s.line + i, row, layout);
      known.add(row[col]);
    });
  }
  return known;
}

/** The CoNLL-U field `eval tags --tag` names (default upos). */
function scoredField(tag: string | undefined): ConlluField {
  const field = conlluTagField(tag);
  if (field === undefined)
    throw new UsageError(
      `eval tags: with CoNLL-U files, --tag names a field among ${CONLLU_TAG_FIELD_NAMES}; got '${tag}'`,
    );
  return field;
}

/** Scores CoNLL-U files: the FORMs are the words, one field the tags. */
async function evalConlluFiles(options: EvalTagsOptions): Promise<TagAccuracy> {
  const field = scoredField(options.tag);
  let known: Set<string> | undefined;
  if (options.train !== undefined) {
    known = new Set();
    for await (const s of readConllu(options.train)) for (const t of s.tokens) known.add(t.form);
  }
  const counter = new TagCounter(known);
  for await (const { gold, test } of alignedConllu(options.gold, options.test, field)) {
    gold.rows.forEach((g, i) => counter.push(g[0], g[1], test.rows[i][1]));
  }
  return counter.report();
}

/** Scores files the way `eval tags` does. */
export async function evalTagFiles(options: EvalTagsOptions): Promise<TagAccuracy> {
  if (columnFormatOf(options.gold, options.format) === 'conllu') return evalConlluFiles(options);
  const layout = options.columns;
  const known = options.train !== undefined ? await readVocabulary(options.train, layout) : undefined;
  const counter = new TagCounter(known);
  const wordCol = wordColumn(layout);
  const tagCol = options.tag !== undefined && layout ? layout.index(options.tag) : undefined;
  for await (const { gold, test } of alignedConll(options.gold, options.test)) {
    for (let i = 0; i < gold.rows.length; i++) {
      const g = gold.rows[i];
      const t = test.rows[i];
      checkWidth(options.gold, gold.line + i, g, layout);
      checkWidth(options.test, test.line + i, t, layout);
      counter.push(g[wordCol], g[tagCol ?? g.length - 1], t[tagCol ?? t.length - 1]);
    }
  }
  return counter.report();
}
