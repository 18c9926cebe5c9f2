import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { json, optionalFile } from '../options/common.js';
import { UsageError } from '../errors.js';
import { CHUNK_SCHEMES, formatConllevalReport } from '../eval/conlleval.js';
import { evalChunkFiles } from '../eval/chunk-files.js';

const command = defineCommand({
  description: `Chunk / entity precision, recall and F1 with conlleval.pl semantics, from --gold and --test
(the last column of each), or from one --file whose last two columns are gold and predicted.`,
  options: {
    gold: optionalFile('CoNLL file whose last column is the gold tag', 'G'),
    test: optionalFile('CoNLL file whose last column is the predicted tag (aligned token by token with G)', 'T'),
    file: optionalFile('one file whose last two columns are gold and predicted (as conlleval reads it)'),
    scheme: option(
      z.enum(CHUNK_SCHEMES).default('iob2'),
      "chunk encoding: iob1 and iob2 follow conlleval's rules (both read alike); iobes and bilou their own",
    ),
    json: option(json, 'print {"overall": {...}, "byType": {...}} instead of conlleval\'s text'),
  },
  examples: [
    'structrank eval chunks --gold test.conll --test test.tagged',
    'structrank eval chunks --file output.conll --scheme iobes --json',
  ],
  async run(values) {
    const { scheme } = values;
    if (values.file !== undefined && (values.gold !== undefined || values.test !== undefined)) {
      throw new UsageError('eval chunks: give either --file, or --gold and --test');
    }
    if (values.file === undefined && (values.gold === undefined || values.test === undefined)) {
      throw new UsageError(
        `eval chunks: missing required option --${values.gold === undefined ? 'gold' : 'test'} (or give --file)`,
      );
    }
    const report = await evalChunkFiles({ gold: values.gold, test: values.test, file: values.file, scheme });
    process.stdout.write(values.json ? JSON.stringify(report) + '\n' : formatConllevalReport(report));
  },
});
export default command;
