import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { columnFormat, json, optionalFile, requiredFile } from '../options/common.js';
import { UsageError } from '../errors.js';
import { columnFormatOf } from '../io/conllu.js';
import { formatTagAccuracy } from '../eval/tags.js';
import { evalTagFiles } from '../eval/tag-files.js';
import { parseColumns } from '../io/conll.js';

const command = defineCommand({
  description: `Tagging accuracy over all tokens, and over words unseen in --train.

By default the word is the first column and the tag the last one. With --columns, the word is
the column named 'word' (or 'form'), else the first. CoNLL-U files (--format conllu, the
default for *.conllu gold files) are scored on the field --tag names (default upos), their
FORMs being the words; a --train file is then CoNLL-U too.`,
  options: {
    gold: requiredFile('CoNLL or CoNLL-U file with the gold tags', 'G'),
    test: requiredFile('the same format with the predicted tags, aligned token by token with G', 'T'),
    train: optionalFile(
      "training file in G's format: its words (the first column, or the FORMs) form the known vocabulary",
    ),
    columns: option(
      z.string().optional(),
      'names of the columns of G, T and F (e.g. word,pos,chunk); every line must have them',
      { value: 'L' },
    ),
    tag: option(
      z.string().optional(),
      'which named column holds the tag (default: the last column; CoNLL-U: the field, default upos)',
      { value: 'NAME' },
    ),
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
    if (format === 'conllu' && values.columns !== undefined)
      throw new UsageError(
        'eval tags: --columns names CoNLL columns; CoNLL-U files have their own (--tag names the field)',
      );
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
