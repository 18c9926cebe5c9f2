import { z } from 'zod';
import { defineCommand } from '../cli/command.js';
import { option } from '../options/field.js';
import { columnFormat, json, optionalFile, requiredFile } from '../options/common.js';
import { InputError, UsageError } from '../errors.js';
import { alignedConll, alignedConllu } from '../eval/aligned.js';
import { columnFormatOf, conlluTagField, CONLLU_TAG_FIELD_NAMES, readConllu, type ColumnFormat, type ConlluField } from '../io/conllu.js';
import { TagCounter, formatTagAccuracy, type TagAccuracy } from '../eval/tags.js';
import { parseColumns, readConll, type ColumnLayout } from '../io/conll.js';

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
    throw new InputError(file, line, `expected ${layout.count} columns (${layout.names.join(',')}), found ${row.length}`);
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
  if (field === undefined) throw new UsageError(`eval tags: with CoNLL-U files, --tag names a field among ${CONLLU_TAG_FIELD_NAMES}; got '${tag}'`);
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

const command = defineCommand({
  description: `Tagging accuracy over all tokens, and over words unseen in --train.

By default the word is the first column and the tag the last one. With --columns, the word is
the column named 'word' (or 'form'), else the first. CoNLL-U files (--format conllu, the
default for *.conllu gold files) are scored on the field --tag names (default upos), their
FORMs being the words; a --train file is then CoNLL-U too.`,
  options: {
    gold: requiredFile('CoNLL or CoNLL-U file with the gold tags', 'G'),
    test: requiredFile('the same format with the predicted tags, aligned token by token with G', 'T'),
    train: optionalFile("training file in G's format: its words (the first column, or the FORMs) form the known vocabulary"),
    columns: option(z.string().optional(), 'names of the columns of G, T and F (e.g. word,pos,chunk); every line must have them', { value: 'L' }),
    tag: option(z.string().optional(), 'which named column holds the tag (default: the last column; CoNLL-U: the field, default upos)', { value: 'NAME' }),
    format: columnFormat,
    json: option(json, 'print {tokens, correct, accuracy, unknownTokens, unknownCorrect, unknownAccuracy}'),
  },
  examples: [
    'structrank eval tags --gold test.conll --test test.tagged --train train.conll',
    'structrank eval tags --gold dev.conll --test dev.tagged --columns word,pos,chunk --tag pos --json',
    'structrank eval tags --gold en_ewt-ud-test.conllu --test test.tagged.conllu --tag upos',
  ],
  async run(values) {
    const { gold, test } = values;
    const format = columnFormatOf(gold, values.format);
    if (format === 'conllu' && values.columns !== undefined) throw new UsageError('eval tags: --columns names CoNLL columns; CoNLL-U files have their own (--tag names the field)');
    const columns = values.columns !== undefined ? parseColumns(values.columns) : undefined;
    if (format === 'conll' && values.tag !== undefined && columns === undefined) {
      throw new UsageError('eval tags: --tag needs --columns to name the columns');
    }
    if (values.tag !== undefined) columns?.index(values.tag);
    const report = await evalTagFiles({ gold, test, train: values.train, columns, tag: values.tag, format });
    process.stdout.write(values.json ? JSON.stringify(report) + '\n' : formatTagAccuracy(report));
  },
});

export default command;
