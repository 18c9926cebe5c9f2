/**
 * `parse` and `tag` over sentence shards. The coordinator cuts the input at sentence
 * boundaries, stores each shard and the model by hash and queues one job per shard; a worker
 * runs the ordinary command on its shard (the same code as a local run) inside the store;
 * the coordinator concatenates the shards' outputs in input order and shifts the n-best ids
 * by the sentences (or lines) before each shard, so the merged files are byte-identical to a
 * local run's. Errors a worker finds in a shard are reported at the input file's own line.
 * The coordinator's side (queueOptions, shardStep, runShardSteps) also serves the shards of
 * `rerank`/`features` (nbest-shards.ts) and the row blocks of `kernel` (kernel-shards.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { InputError, InternalError, UsageError } from '../errors.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { readFileHead, readLinesSync } from '../io/lines.js';
import { readTreebankSync } from '../io/treebank.js';
import { columnFormatOf, type ColumnFormat } from '../io/conllu.js';
import { formatTree } from '../trees/tree.js';
import { z } from 'zod';
import { checkRedisUrl, connectRedis } from './connection.js';
import { JobFailed, runFlow, type FlowStep } from './flow.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import type { ShardPayload } from './payloads.js';
import { ArtifactStore, type StepManifest } from './store.js';
import { Progress } from '../progress.js';
import type { ParserDecode, ParserRetry } from '../options/parser.js';
import type { KbestTagMode } from '../trees/kbest-modes.js';

export { DEFAULT_SHARD_SENTENCES } from '../options/distributed.js';

export interface Shard {
  text: string;
  idOffset: number;
  /** The input file's line number of each line of `text` (1-based; index 0 is line 1). */
  lines: number[];
}

/**
 * Groups lines into shards of `size` sentences, cutting only after a sentence's last line.
 * `isSentenceEnd(i)` says whether a cut may follow line i; `sentencesUpTo` counts sentences.
 * A tail of lines with no sentence joins the shard before it.
 */
function cutLines(
  lines: { text: string; number: number }[],
  size: number,
  isCut: (i: number) => boolean,
  countsAs: (i: number) => number,
): { from: number; to: number; before: number }[] {
  const out: { from: number; to: number; before: number }[] = [];
  let from = 0;
  let inShard = 0;
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    inShard += countsAs(i);
    if (inShard >= size && isCut(i)) {
      out.push({ from, to: i + 1, before: total });
      total += inShard;
      inShard = 0;
      from = i + 1;
    }
  }
  if (from < lines.length) {
    if (inShard === 0 && out.length > 0) out[out.length - 1].to = lines.length;
    else out.push({ from, to: lines.length, before: total });
  }
  return out;
}

const fieldsOf = (text: string, separator: 'whitespace' | 'tab'): string[] =>
  separator === 'tab' ? text.split('\t') : text.trim().split(/\s+/);

/** CoNLL input for `tag`: shards end at a blank line; the n-best ids count sentences. */
export function splitTagInput(file: string, size: number, separator: 'whitespace' | 'tab'): Shard[] {
  const lines = [...readLinesSync(file)];
  if (lines.length === 0) throw new InputError(file, undefined, 'empty file');
  // The local command takes its column count from the first row and holds every row to it:
  // check here, since each shard only sees its own rows.
  let width: number | undefined;
  const isRow = lines.map((l) => l.text.trim() !== '' && fieldsOf(l.text, separator)[0] !== '-DOCSTART-');
  lines.forEach((l, i) => {
    if (!isRow[i]) return;
    const n = fieldsOf(l.text, separator).length;
    width ??= n;
    if (n !== width) throw new InputError(file, l.number, `expected ${width} columns, found ${n}`);
  });
  // A sentence ends at a row followed by a non-row (blank line, document marker) or the end.
  const ends = (i: number): number => (isRow[i] && (i + 1 >= lines.length || !isRow[i + 1]) ? 1 : 0);
  return cutLines(lines, size, (i) => lines[i].text.trim() === '', ends).map((c) => ({
    text: lines
      .slice(c.from, c.to)
      .map((l) => `${l.text}\n`)
      .join(''),
    idOffset: c.before,
    lines: lines.slice(c.from, c.to).map((l) => l.number),
  }));
}

/**
 * CoNLL-U input for `tag`: shards end at the blank line after a sentence, so a sentence's
 * comments stay with it; the n-best ids count sentences. The lines are checked by the
 * workers' reader, whose errors name the input file's lines.
 */
export function splitConlluInput(file: string, size: number): Shard[] {
  const lines = [...readLinesSync(file)];
  if (lines.length === 0) throw new InputError(file, undefined, 'empty file');
  const blank = (i: number): boolean => i >= lines.length || lines[i].text.trim() === '';
  // A sentence ends at its last line before a blank line (or the end); comments are not word lines.
  const ends = (i: number): number => (!blank(i) && !lines[i].text.startsWith('#') && blank(i + 1) ? 1 : 0);
  return cutLines(lines, size, blank, ends).map((c) => ({
    text: lines
      .slice(c.from, c.to)
      .map((l) => `${l.text}\n`)
      .join(''),
    idOffset: c.before,
    lines: lines.slice(c.from, c.to).map((l) => l.number),
  }));
}

/** `parse` input: a treebank (shards of whole trees, one per line) or text (one sentence per line). */
export function splitParseInput(file: string, size: number): Shard[] {
  const head = readFileHead(file, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head.startsWith('(')) {
    const trees = readTreebankSync(file);
    const out: Shard[] = [];
    for (let lo = 0; lo < trees.length; lo += size) {
      const part = trees.slice(lo, lo + size);
      out.push({
        text: part.map((t) => `${formatTree(t.tree)}\n`).join(''),
        idOffset: lo,
        lines: part.map((t) => t.line),
      });
    }
    return out;
  }
  const lines = [...readLinesSync(file)];
  const hasWords = (i: number): number => (lines[i].text.trim() !== '' ? 1 : 0);
  if (!lines.some((_, i) => hasWords(i))) throw new InputError(file, undefined, 'no sentences in file');
  return cutLines(lines, size, () => true, hasWords).map((c) => ({
    text: lines
      .slice(c.from, c.to)
      .map((l) => `${l.text}\n`)
      .join(''),
    // N-best ids of text input are line numbers.
    idOffset: lines[c.from].number - 1,
    lines: lines.slice(c.from, c.to).map((l) => l.number),
  }));
}

/** Adds `offset` to the id of every n-best line (`{"id":"s12",...}` or `{"id":"12",...}`). */
export function shiftNbestIds(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(
    /^\{"id":"(s?)(\d+)"/gm,
    (_m, prefix: string, n: string) => `{"id":"${prefix}${Number(n) + offset}"`,
  );
}

/** One progress bar over all jobs on stderr (a line per job done off a terminal, after the first second). */
function jobBar(): (label: string, done: number, total: number, status?: string) => void {
  let bar: Progress | undefined;
  return (label, done, total, status) => {
    bar ??= new Progress({ label, total, unit: 'jobs' });
    bar.update(done, status);
    if (done >= total) bar.finish(status);
  };
}

/** A shard's input file, by the name errors use until the coordinator maps them back. */
const SHARD_INPUT = 'shard-input.txt';

/** Job body: runs the command on one shard inside the store. */
export async function runShard(p: ShardPayload, env: JobEnv): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  const dir = mkdtempSync(join(env.store.inside('tmp'), 'shard-'));
  try {
    const input = join(dir, SHARD_INPUT);
    writeFileSync(input, env.store.get(p.input));
    const out = join(dir, 'out.txt');
    const nbest = join(dir, 'nbest.jsonl');
    const o = p.options;
    const command = await env.commands[p.command]();
    // The command's own validation and defaults, as on the command line.
    const values = z.object(command.options).parse({
      model: env.store.verifiedPath(p.model),
      input,
      out,
      threads: env.threads,
      nbest: o.nbest,
      outNbest: o.nbest !== undefined ? nbest : undefined,
      ...(p.command === 'tag'
        ? { separator: o.separator, format: o.format }
        : {
            pcfg: o.pcfg,
            beam: o.beam,
            maxLength: o.maxLength,
            prune: o.prune,
            decode: o.decode,
            retry: o.retry,
            pcfgWeight: o.pcfgWeight,
            headModel: o.headModel ?? true,
            kbestTags: o.kbestTags,
            kbestPool: o.kbestPool,
          }),
    });
    try {
      const code = (await command.run(values, { positionals: [], given: new Set() })) ?? 0;
      if (code !== 0) throw new InternalError(`${p.command} exited with code ${code}`);
    } catch (err) {
      // Name the shard's lines so the coordinator can map them to the input file's.
      if (err instanceof InputError && err.file === input) throw new InputError('<shard>', err.line, err.problem);
      throw err;
    }
    const files: Record<string, string> = { out: env.store.put(readFileSync(out)) };
    if (o.nbest !== undefined) files.nbest = env.store.put(shiftNbestIds(readFileSync(nbest, 'utf8'), p.idOffset));
    env.store.writeManifest({ step: p.step, files, seconds: 0 });
    return { step: p.step, cached: false, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** --redis and --store of a sharded run: both or neither; the URL checked. */
export function queueOptions(
  command: string,
  values: { redis?: string; store?: string },
): { redis: string; store: string } {
  if (values.redis === undefined || values.store === undefined)
    throw new UsageError(`${command}: --redis and --store go together`);
  return { redis: checkRedisUrl(command, values.redis), store: values.store };
}

/** A shard job's step: its id hashes the payload, so equal work is one job and cached. */
export function shardStep<K extends FlowStep['kind']>(
  kind: K,
  command: string,
  i: number,
  count: number,
  payload: object,
): { id: string; kind: K; payload: object & { step: string } } {
  const key = createHash('sha256').update(JSON.stringify(payload)).digest('hex').slice(0, 16);
  const step = `${command}-shard${i + 1}of${count}-${key}`;
  return { id: step, kind, payload: { step, ...payload } };
}

/**
 * Runs shard steps on the queue with one progress bar over them. An error a worker found in
 * a shard (reported as `<shard>:LINE: problem`) is rethrown at the input file's own line.
 */
export async function runShardSteps(
  command: string,
  redisUrl: string,
  store: ArtifactStore,
  steps: FlowStep[],
  where: { signal?: AbortSignal; input: string; shards: Pick<Shard, 'lines'>[] },
): Promise<StepManifest[]> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  let connection: Redis | undefined;
  try {
    connection = await connectRedis(redisUrl, 'client');
    await runFlow(connection, store, steps, {
      name: `${command.replace(/ /g, '-')}-shards`,
      redisUrl,
      signal: where.signal,
      log,
      progress: jobBar(),
    });
  } catch (err) {
    const shard = err instanceof JobFailed ? steps.findIndex((s) => s.id === err.step) : -1;
    const m = shard >= 0 ? /^<shard>(?::(\d+))?: ([\s\S]*)$/.exec((err as JobFailed).reason) : null;
    if (m)
      throw new InputError(
        where.input,
        m[1] === undefined ? undefined : where.shards[shard].lines[Number(m[1]) - 1],
        m[2],
      );
    throw err;
  } finally {
    connection?.disconnect();
  }
  return steps.map((s) => store.readManifest(s.id) as StepManifest);
}

/** The validated options of `parse` / `tag` that a sharded run uses. */
export interface ShardedValues {
  model: string;
  input: string;
  out?: string;
  nbest?: number;
  outNbest?: string;
  redis?: string;
  store?: string;
  shardSize: number;
  /** tag */
  separator?: 'whitespace' | 'tab';
  format?: ColumnFormat;
  /** parse */
  pcfg?: boolean;
  beam?: number;
  maxLength?: number;
  prune?: number;
  decode?: ParserDecode;
  retry?: ParserRetry;
  pcfgWeight?: number;
  headModel?: boolean;
  kbestTags?: KbestTagMode;
  kbestPool?: number;
}

/**
 * The coordinator side of `parse`/`tag` with --redis and --store: runs the shards on the
 * queue and writes the outputs.
 */
export async function runSharded(
  command: 'parse' | 'tag',
  values: ShardedValues,
  signal?: AbortSignal,
): Promise<number> {
  const { redis } = queueOptions(command, values);
  const { model: modelFile, input: inputFile, shardSize: size, nbest } = values;
  if (values.out === undefined) throw new UsageError(`${command}: missing required option --out`);
  const outFile = values.out;
  if ((nbest !== undefined) !== (values.outNbest !== undefined))
    throw new UsageError(`${command}: --nbest and --out-nbest go together`);
  const options: ShardPayload['options'] = { nbest };
  if (command === 'tag') {
    options.separator = values.separator ?? 'whitespace';
    if (columnFormatOf(values.input, values.format) === 'conllu') options.format = 'conllu';
  } else {
    if (values.pcfg) options.pcfg = true;
    if (values.beam !== undefined && Number.isFinite(values.beam)) options.beam = values.beam;
    if (values.maxLength !== undefined) options.maxLength = values.maxLength;
    // The CRF's parse options and the k-best list's kind, as the command checked them.
    if (values.prune !== undefined) options.prune = values.prune;
    if (values.decode !== undefined) options.decode = values.decode;
    if (values.retry !== undefined) options.retry = values.retry;
    if (values.pcfgWeight !== undefined) options.pcfgWeight = values.pcfgWeight;
    if (values.headModel === false) options.headModel = false;
    if (nbest !== undefined && values.kbestTags !== undefined) options.kbestTags = values.kbestTags;
    if (nbest !== undefined && values.kbestPool !== undefined) options.kbestPool = values.kbestPool;
  }
  // The outputs were checked and locked by the command's claimOutputs.

  const store = new ArtifactStore(values.store as string);
  const model = await store.putFile(modelFile);
  const shards =
    command === 'parse'
      ? splitParseInput(inputFile, size)
      : options.format === 'conllu'
        ? splitConlluInput(inputFile, size)
        : splitTagInput(inputFile, size, options.separator ?? 'whitespace');
  const steps = shards.map((s, i) => {
    const input = store.put(s.text);
    const payload: Omit<ShardPayload, 'step'> = { command, model, input, idOffset: s.idOffset, options };
    return shardStep('shard', command, i, shards.length, payload);
  });
  process.stderr.write(`${command}: ${shards.length} shard(s) of up to ${size} sentences\n`);
  const manifests = await runShardSteps(command, redis, store, steps, { signal, input: inputFile, shards });
  await writeTextAtomic(
    outFile,
    manifests.map((m) => store.get(m.files.out).toString('utf8')),
  );
  if (values.outNbest)
    await writeTextAtomic(
      values.outNbest,
      manifests.map((m) => store.get(m.files.nbest).toString('utf8')),
    );
  return 0;
}
