import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { columnFormat, optionalFile, requiredFile, threads } from '../options/common.js';
import { shardFields } from '../options/distributed.js';
import { cliSignal } from './signal.js';
import { InputError, UsageError } from '../errors.js';
import { statSync } from 'node:fs';
import { AtomicFile } from '../io/atomic-writer.js';
import { claimOutputs } from './claim.js';
import { readLines, readLinesSync, type Line } from '../io/lines.js';
import { formatNbestLine, MAX_NBEST, type NbestSentence } from '../io/nbest.js';
import { Tagger } from '../tagger/tagger.js';
import { firstWidthError, tagStream, widthError } from '../tagger/tag-stream.js';
import { tagConllu } from '../tagger/tag-conllu.js';
import { columnFormatOf } from '../io/conllu.js';
import { resolveThreads } from '../native.js';
import { fileProgress, Progress, progressInterval } from '../progress.js';

interface Pending {
  lines: string[];
  rows: string[][];
}

const BATCH = 500;

function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false; // readLines reports the error
  }
}

const options = {
  model: requiredFile('model from train-tagger', 'M'),
  input: requiredFile("CoNLL file with the model's input columns, or all its training columns; or a CoNLL-U file"),
  format: columnFormat,
  out: optionalFile('output file (default: stdout): every input line with the predicted label appended'),
  nbest: option(
    z.number().int().min(1).optional(),
    'also write the K best tag sequences of each sentence (CRF: exact log-probabilities; maxent: beam; perceptron: scores)',
    { value: 'K' },
  ),
  outNbest: optionalFile(
    'the n-best JSON Lines file: {"id", "tokens", "candidates": [{"tags", "logprob"}], "gold"?}',
    'F.jsonl',
  ),
  separator: option(z.enum(['whitespace', 'tab']).default('whitespace'), 'column separator'),
  threads,
  ...shardFields,
};

const command = defineCommand({
  description: `Tags a CoNLL column file with a model from train-tagger. Writes every input line (blank lines
kept) with the predicted label appended as a new last column, so conlleval-style scoring works
on the output directly. Input lines have the model's input columns, or all its training
columns (the gold label is then kept and written to the n-best file as "gold").

A CoNLL-U file (--format conllu, the default for *.conllu files) is written back as CoNLL-U:
every line kept, the prediction in the label's field (upos, xpos, ...) of each word line, or
in MISC as label=TAG for a label that is no CoNLL-U field.`,
  options,
  examples: [
    'structrank tag --model chunker.model --input test.conll --out test.tagged',
    'structrank tag --model ner.model --input dev.conll --out dev.tagged --nbest 20 --out-nbest dev.nbest.jsonl',
    'structrank tag --model upos.model --input en_ewt-ud-test.conllu --out test.tagged.conllu',
  ],
  async run(values, { given }) {
    claimOutputs(
      'tag',
      { '--model': values.model, '--input': values.input },
      { '--out': values.out, '--out-nbest': values.outNbest },
    );
    // --redis/--store: sentence shards on a queue (lib/distributed/shards.ts, docs/scaling.md),
    // after the local run's checks.
    const sharded = values.redis !== undefined || values.store !== undefined;
    const shards = sharded ? await import('../distributed/shards.js') : undefined;
    shards?.queueOptions('tag', values);
    if (!sharded && given.has('--shard-size')) throw new UsageError('tag: --shard-size needs --redis and --store');
    const cmd = 'tag';
    const modelFile = values.model;
    const input = values.input;
    const nbest = values.nbest ?? 0;
    if (nbest > MAX_NBEST) throw new UsageError(`${cmd}: --nbest is at most ${MAX_NBEST}, not ${nbest}`);
    if (nbest > 0 !== (values.outNbest !== undefined))
      throw new UsageError(`${cmd}: --nbest and --out-nbest go together`);
    if (shards) return shards.runSharded('tag', values, cliSignal());
    const { separator } = values;
    const threads = resolveThreads(values.threads);
    const tagger = await Tagger.load(modelFile);
    const signal = cliSignal();
    if (columnFormatOf(input, values.format) === 'conllu')
      return void (await tagConllu(tagger, {
        input,
        out: values.out,
        nbest,
        outNbest: values.outNbest,
        threads,
        signal,
      }));
    // Without n-best lists, lines are split, tagged and written in native code, block by block.
    if (nbest === 0) {
      const progress = fileProgress('tag', input);
      await tagStream(tagger, { input, out: values.out, separator, threads, signal, onBlock: progress.onBytes });
      progress.finish();
      return;
    }
    const progress = new Progress({ label: 'tag', unit: 'sentences', logEvery: progressInterval() });
    const { columns, inputColumns, label } = tagger.meta;
    const goldIndex = columns.indexOf(label);
    const wordIndex = (width: number): number => (width === inputColumns.length ? 0 : columns.indexOf(inputColumns[0]));

    // Both outputs go through temp files: a failure or Ctrl-C leaves neither half-written.
    const out = values.out ? await AtomicFile.open(values.out) : undefined;
    let nbestOut: AtomicFile | undefined;
    try {
      if (values.outNbest) nbestOut = await AtomicFile.open(values.outNbest);
    } catch (err) {
      await out?.discard();
      throw err;
    }
    const write = (target: AtomicFile | undefined, text: string): Promise<void> =>
      target
        ? target.write(text)
        : new Promise((resolve) => {
            if (process.stdout.write(text)) resolve();
            else process.stdout.once('drain', resolve);
          });

    let width: number | undefined;
    let sentenceId = 0;
    let batch: Pending[] = [];
    let current: Pending = { lines: [], rows: [] };
    const flush = async (): Promise<void> => {
      const sentences = batch.filter((p) => p.rows.length > 0);
      const tags = await tagger.tag(
        sentences.map((p) => p.rows),
        { threads, signal },
      );
      const text: string[] = [];
      let k = 0;
      for (const p of batch) {
        if (p.rows.length === 0) {
          text.push(...p.lines);
          continue;
        }
        const t = tags[k++];
        let i = 0;
        for (const line of p.lines) {
          if (line.trim() === '') text.push(line);
          else text.push(`${line}${separator === 'tab' ? '\t' : ' '}${t[i++]}`);
        }
      }
      await write(out, text.length > 0 ? text.join('\n') + '\n' : '');
      progress.tick(sentences.length);
      if (nbestOut) {
        const lists = await tagger.tagNbest(
          sentences.map((p) => p.rows),
          nbest,
          { threads, signal },
        );
        const json: string[] = [];
        sentences.forEach((p, s) => {
          const w = wordIndex(p.rows[0].length);
          const record: NbestSentence = {
            id: `s${++sentenceId}`,
            tokens: p.rows.map((r) => r[w]),
            candidates: lists[s],
            line: 0,
          };
          if (p.rows[0].length >= columns.length) record.gold = p.rows.map((r) => r[goldIndex]);
          json.push(formatNbestLine(record));
        });
        if (json.length > 0) await write(nbestOut, json.join('\n') + '\n');
      }
      batch = [];
    };

    let lineCount = 0;
    // One line; returns a promise only when a batch was tagged, so most lines cost no await.
    const onLine = (line: Line): Promise<void> | undefined => {
      lineCount++;
      const text = line.text;
      if (text.trim() === '') {
        current.lines.push(text);
        batch.push(current);
        current = { lines: [], rows: [] };
        return batch.length >= BATCH ? flush() : undefined;
      }
      const fields = separator === 'tab' ? text.split('\t') : text.trim().split(/\s+/);
      if (fields[0] === '-DOCSTART-') {
        // A document marker is not part of a sentence: pass it through with an O label.
        if (current.rows.length > 0) batch.push(current);
        batch.push({ lines: [`${text}${separator === 'tab' ? '\t' : ' '}O`], rows: [] });
        current = { lines: [], rows: [] };
        return undefined;
      }
      if (width === undefined) {
        width = fields.length;
        if (width !== inputColumns.length && width !== columns.length) {
          throw firstWidthError(input, line.number, tagger, width);
        }
      } else if (fields.length !== width) {
        throw widthError(input, line.number, width, fields.length);
      }
      current.lines.push(text);
      current.rows.push(fields);
      return undefined;
    };
    try {
      // A regular file is read synchronously in blocks (no await per line); pipes stream.
      if (isRegularFile(input)) {
        for (const line of readLinesSync(input)) {
          const pending = onLine(line);
          if (pending) await pending;
        }
      } else {
        for await (const line of readLines(input)) {
          const pending = onLine(line);
          if (pending) await pending;
        }
      }
      if (lineCount === 0) throw new InputError(input, undefined, 'empty file');
      if (current.lines.length > 0) batch.push(current);
      await flush();
      await out?.commit();
      await nbestOut?.commit();
      progress.finish();
    } catch (err) {
      await out?.discard();
      await nbestOut?.discard();
      throw err;
    }
  },
});
export default command;
