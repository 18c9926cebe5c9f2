/** `eval chunks` on files: conlleval's counts from a gold and a test file, or one pasted file. */
import { InputError, UsageError } from '../errors.js';
import { readLines } from '../io/lines.js';
import { alignedConll } from './aligned.js';
import { ConllevalCounter, type ChunkScheme, type ConllevalReport } from './conlleval.js';

/**
 * Scores files the way `eval chunks` does.
 *
 * @example
 * ```ts
 * const report = await evalChunkFiles({ gold: 'gold.conll', test: 'tagged.conll', scheme: 'iob2' });
 * console.log(report.overall.f1);
 * ```
 */
export async function evalChunkFiles(options: {
  gold?: string;
  test?: string;
  file?: string;
  scheme?: ChunkScheme;
}): Promise<ConllevalReport> {
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
        if (width < 2)
          throw new InputError(
            file,
            line.number,
            `expected at least 2 columns (the last two are the gold and predicted tags), found ${width}`,
          );
      } else if (fields.length !== width) {
        throw new InputError(file, line.number, `expected ${width} columns, found ${fields.length}`);
      }
      counter.push(fields[width - 2], fields[width - 1], fields[0]);
    }
    if (lines === 0) throw new InputError(file, undefined, 'empty file');
  } else {
    if (options.gold === undefined || options.test === undefined)
      throw new UsageError('eval chunks: give --gold and --test, or --file');
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
