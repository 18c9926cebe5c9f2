import { z } from 'zod';
import { defineCommand } from '../cli/command.js';
import { option } from '../options/field.js';
import { json, optionalFile } from '../options/common.js';
import { InputError, UsageError } from '../errors.js';
import { CHUNK_SCHEMES, ConllevalCounter, formatConllevalReport, type ChunkScheme, type ConllevalReport } from '../eval/conlleval.js';
import { alignedConll } from '../eval/aligned.js';
import { readLines } from '../io/lines.js';

/**
 * Scores files the way `eval chunks` does; exported for the API and tests.
 *
 * @example
 * ```ts
 * const report = await evalChunkFiles({ gold: 'gold.conll', test: 'tagged.conll', scheme: 'iob2' });
 * console.log(report.overall.f1);
 * ```
 */
export async function evalChunkFiles(options: { gold?: string; test?: string; file?: string; scheme?: ChunkScheme }): Promise<ConllevalReport> {
  const counter = new ConllevalCounter(options.scheme ?? 'iob2');
  if (options.file !== undefined) {
    // Line by line, as conlleval reads: every blank line is a boundary of its own.
    const file = options.file;
    let width = 0;
    let lines = 0;
    for await (const line of readLines(file)) {
      lines++;
      const text = line.text.trim();
      if (text === '') {
        counter.boundary();
        continue;
      }
      const fields = text.split(/\s+/);
      if (width === 0) {
        width = fields.length;
        if (width < 2) throw new InputError(file, line.number, `expected at least 2 columns (the last two are the gold and predicted tags), found ${width}`);
      } else if (fields.length !== width) {
        throw new InputError(file, line.number, `expected ${width} columns, found ${fields.length}`);
      }
      counter.push(fields[width - 2], fields[width - 1], fields[0]);
    }
    if (lines === 0) throw new InputError(file, undefined, 'empty file');
  } else {
    if (options.gold === undefined || options.test === undefined) throw new UsageError('eval chunks: give --gold and --test, or --file');
    for await (const { gold, test } of alignedConll(options.gold, options.test)) {
      for (let i = 0; i < gold.rows.length; i++) {
        const g = gold.rows[i];
        const t = test.rows[i];
        counter.push(g[g.length - 1], t[t.length - 1], g[0]);
      }
      // As conlleval reads the pasted files: the gold file's blank line is the boundary
      // (further blank lines are no-ops; a last sentence without one is closed by end of input).
      if (gold.blankAfter) counter.boundary();
    }
  }
  return counter.report();
}

const command = defineCommand({
  description: `Chunk / entity precision, recall and F1 with conlleval.pl semantics, from --gold and --test
(the last column of each), or from one --file whose last two columns are gold and predicted.`,
  options: {
    gold: optionalFile('CoNLL file whose last column is the gold tag', 'G'),
    test: optionalFile('CoNLL file whose last column is the predicted tag (aligned token by token with G)', 'T'),
    file: optionalFile('one file whose last two columns are gold and predicted (as conlleval reads it)'),
    scheme: option(z.enum(CHUNK_SCHEMES).default('iob2'), "chunk encoding: iob1 and iob2 follow conlleval's rules (both read alike); iobes and bilou their own"),
    json: option(json, 'print {"overall": {...}, "byType": {...}} instead of conlleval\'s text'),
  },
  examples: ['structrank eval chunks --gold test.conll --test test.tagged', 'structrank eval chunks --file output.conll --scheme iobes --json'],
  async run(values) {
    const { scheme } = values;
    if (values.file !== undefined && (values.gold !== undefined || values.test !== undefined)) {
      throw new UsageError('eval chunks: give either --file, or --gold and --test');
    }
    if (values.file === undefined && (values.gold === undefined || values.test === undefined)) {
      throw new UsageError(`eval chunks: missing required option --${values.gold === undefined ? 'gold' : 'test'} (or give --file)`);
    }
    const report = await evalChunkFiles({ gold: values.gold, test: values.test, file: values.file, scheme });
    process.stdout.write(values.json ? JSON.stringify(report) + '\n' : formatConllevalReport(report));
  },
});
export default command;
