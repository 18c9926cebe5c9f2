import type { Command } from '../cli/command.js';
import { parseCommandArgs, requireOption } from '../cli/args.js';
import { InputError, UsageError } from '../errors.js';
import { alignedConll } from '../eval/aligned.js';
import { TagCounter, formatTagAccuracy, type TagAccuracy } from '../eval/tags.js';
import { parseColumns, readConll, type ColumnLayout } from '../io/conll.js';

const usage = `structrank eval tags --gold G --test T [--train F] [--columns word,pos,...] [--tag NAME] [--json]

Tagging accuracy over all tokens, and over words unseen in --train.
  --gold G       CoNLL file with the gold tags
  --test T       CoNLL file with the predicted tags, aligned token by token with G
  --train F      CoNLL training file: its words (first column) form the known vocabulary
  --columns L    names of the columns of G, T and F (e.g. word,pos,chunk); every line must have them
  --tag NAME     which named column holds the tag (default: the last column)
  --json         print {tokens, correct, accuracy, unknownTokens, unknownCorrect, unknownAccuracy}

By default the word is the first column and the tag the last one. With --columns, the word is
the column named 'word' (or 'form'), else the first.`;

export interface EvalTagsOptions {
  gold: string;
  test: string;
  train?: string;
  columns?: ColumnLayout;
  tag?: string;
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

/** Scores files the way `eval tags` does. */
export async function evalTagFiles(options: EvalTagsOptions): Promise<TagAccuracy> {
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

const command: Command = {
  name: 'eval tags',
  summary: 'tagging accuracy, overall and on words unseen in training',
  usage,
  async run(args) {
    const { values } = parseCommandArgs(
      'eval tags',
      args,
      {
        gold: { type: 'string' },
        test: { type: 'string' },
        train: { type: 'string' },
        columns: { type: 'string' },
        tag: { type: 'string' },
        json: { type: 'boolean' },
      },
      false,
    );
    const gold = requireOption('eval tags', values.gold, 'gold');
    const test = requireOption('eval tags', values.test, 'test');
    const columns = values.columns !== undefined ? parseColumns(values.columns) : undefined;
    if (values.tag !== undefined && columns === undefined) {
      throw new UsageError('eval tags: --tag needs --columns to name the columns');
    }
    if (values.tag !== undefined) columns?.index(values.tag);
    const report = await evalTagFiles({ gold, test, train: values.train, columns, tag: values.tag });
    process.stdout.write(values.json ? JSON.stringify(report) + '\n' : formatTagAccuracy(report));
  },
};

export default command;
