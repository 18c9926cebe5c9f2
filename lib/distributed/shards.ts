/**
 * `parse` and `tag` over sentence shards. The coordinator cuts the input at sentence
 * boundaries, stores each shard and the model by hash and queues one job per shard; a worker
 * runs the ordinary command on its shard (the same code as a local run) inside the store;
 * the coordinator concatenates the shards' outputs in input order and shifts the n-best ids
 * by the sentences (or lines) before each shard, so the merged files are byte-identical to a
 * local run's. Errors a worker finds in a shard are reported at the input file's own line.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { InputError, UsageError } from '../errors.js';
import { checkOutputPath, writeTextAtomic } from '../io/atomic-writer.js';
import { readFileHead, readLinesSync } from '../io/lines.js';
import { readTreebankSync } from '../io/treebank.js';
import { formatTree } from '../trees/tree.js';
import { parseCommandArgs, intOption, numberOption, requireOption } from '../cli/args.js';
import { checkRedisUrl, connectRedis } from './connection.js';
import { JobFailed, runFlow } from './flow.js';
import type { JobEnv, JobOutcome } from './jobs.js';
import type { ShardPayload } from './payloads.js';
import { ArtifactStore } from './store.js';
import { Progress } from '../progress.js';

/** Sentences per shard by default: big enough that a job's queue round trip is small beside it. */
export const DEFAULT_SHARD_SENTENCES = 2000;

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
function cutLines(lines: { text: string; number: number }[], size: number, isCut: (i: number) => boolean, countsAs: (i: number) => number): { from: number; to: number; before: number }[] {
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

const fieldsOf = (text: string, separator: 'whitespace' | 'tab'): string[] => (separator === 'tab' ? text.split('\t') : text.trim().split(/\s+/));

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
    text: lines.slice(c.from, c.to).map((l) => `${l.text}\n`).join(''),
    idOffset: c.before,
    lines: lines.slice(c.from, c.to).map((l) => l.number),
  }));
}

/** `parse` input: a treebank (shards of whole trees, one per line) or text (one sentence per line). */
export function splitParseInput(file: string, size: number): Shard[] {
  const head = readFileHead(file, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('(')) {
    const trees = readTreebankSync(file);
    const out: Shard[] = [];
    for (let lo = 0; lo < trees.length; lo += size) {
      const part = trees.slice(lo, lo + size);
      out.push({ text: part.map((t) => `${formatTree(t.tree)}\n`).join(''), idOffset: lo, lines: part.map((t) => t.line) });
    }
    return out;
  }
  const lines = [...readLinesSync(file)];
  const hasWords = (i: number): number => (lines[i].text.trim() !== '' ? 1 : 0);
  if (!lines.some((_, i) => hasWords(i))) throw new InputError(file, undefined, 'no sentences in file');
  return cutLines(lines, size, () => true, hasWords).map((c) => ({
    text: lines.slice(c.from, c.to).map((l) => `${l.text}\n`).join(''),
    // N-best ids of text input are line numbers.
    idOffset: lines[c.from].number - 1,
    lines: lines.slice(c.from, c.to).map((l) => l.number),
  }));
}

/** Adds `offset` to the id of every n-best line (`{"id":"s12",...}` or `{"id":"12",...}`). */
export function shiftNbestIds(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(/^\{"id":"(s?)(\d+)"/gm, (_m, prefix: string, n: string) => `{"id":"${prefix}${Number(n) + offset}"`);
}

/** One progress bar over all jobs on stderr. */
function jobBar(): (label: string, done: number, total: number) => void {
  let bar: Progress | undefined;
  return (label, done, total) => {
    bar ??= new Progress({ label, total, unit: 'jobs' });
    bar.update(done);
    if (done >= total) bar.finish();
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
    const args = ['--model', env.store.verifiedPath(p.model), '--input', input, '--out', out, '--threads', String(env.threads)];
    const o = p.options;
    if (o.nbest !== undefined) args.push('--nbest', String(o.nbest), '--out-nbest', nbest);
    if (o.separator !== undefined) args.push('--separator', o.separator);
    if (o.pcfg) args.push('--pcfg');
    if (o.beam !== undefined) args.push('--beam', String(o.beam));
    if (o.maxLength !== undefined) args.push('--max-length', String(o.maxLength));
    const { commands } = await import('../commands/index.js');
    const command = await commands[p.command]();
    try {
      const code = (await command.run(args)) ?? 0;
      if (code !== 0) throw new Error(`${p.command} exited with code ${code}`);
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

/**
 * The coordinator side of `parse`/`tag` with --redis and --store: returns undefined when the
 * arguments ask for a local run, else runs the shards on the queue and writes the outputs.
 */
export async function runSharded(command: 'parse' | 'tag', args: string[], signal?: AbortSignal): Promise<number | undefined> {
  if (!args.some((a) => a === '--redis' || a.startsWith('--redis=') || a === '--store' || a.startsWith('--store='))) return undefined;
  const { values } = parseCommandArgs(command, args, {
    model: { type: 'string' }, input: { type: 'string' }, out: { type: 'string' }, nbest: { type: 'string' }, 'out-nbest': { type: 'string' },
    separator: { type: 'string' }, pcfg: { type: 'boolean' }, beam: { type: 'string' }, 'max-length': { type: 'string' }, threads: { type: 'string' },
    redis: { type: 'string' }, store: { type: 'string' }, 'shard-size': { type: 'string' },
  }, false);
  if (values.redis === undefined || values.store === undefined) throw new UsageError(`${command}: --redis and --store go together`);
  const redis = checkRedisUrl(command, values.redis);
  const modelFile = requireOption(command, values.model, 'model');
  const inputFile = requireOption(command, values.input, 'input');
  const outFile = requireOption(command, values.out, 'out');
  const size = intOption(command, values['shard-size'], 'shard-size', DEFAULT_SHARD_SENTENCES, 1);
  const nbest = values.nbest === undefined ? undefined : intOption(command, values.nbest, 'nbest', 1, 1);
  if ((nbest !== undefined) !== (values['out-nbest'] !== undefined)) throw new UsageError(`${command}: --nbest and --out-nbest go together`);
  const options: ShardPayload['options'] = { nbest };
  if (command === 'tag') {
    if (values.pcfg || values.beam !== undefined || values['max-length'] !== undefined) throw new UsageError('tag: --pcfg, --beam and --max-length are parse options');
    const separator = values.separator ?? 'whitespace';
    if (separator !== 'whitespace' && separator !== 'tab') throw new UsageError('tag: --separator must be whitespace or tab');
    options.separator = separator;
  } else {
    if (values.separator !== undefined) throw new UsageError('parse: --separator is a tag option');
    options.pcfg = values.pcfg ?? undefined;
    if (values.beam !== undefined) options.beam = numberOption(command, values.beam, 'beam', 1, (x) => x > 0);
    if (values['max-length'] !== undefined) options.maxLength = intOption(command, values['max-length'], 'max-length', 0, 0);
  }
  checkOutputPath(outFile);
  if (values['out-nbest']) checkOutputPath(values['out-nbest']);

  const store = new ArtifactStore(values.store);
  const model = await store.putFile(modelFile);
  const shards = command === 'tag' ? splitTagInput(inputFile, size, options.separator ?? 'whitespace') : splitParseInput(inputFile, size);
  const steps = shards.map((s, i) => {
    const input = store.put(s.text);
    const payload: Omit<ShardPayload, 'step'> = { command, model, input, idOffset: s.idOffset, options };
    const key = createHash('sha256').update(JSON.stringify(payload)).digest('hex').slice(0, 16);
    const step = `${command}-shard${i + 1}of${shards.length}-${key}`;
    return { id: step, kind: 'shard' as const, payload: { step, ...payload } };
  });
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  log(`${command}: ${shards.length} shard(s) of up to ${size} sentences`);
  let connection: Redis | undefined;
  try {
    connection = await connectRedis(redis, 'client');
    await runFlow(connection, store, steps, { name: `${command}-shards`, redisUrl: redis, signal, log, progress: jobBar() });
  } catch (err) {
    // A worker's error in a shard: report it at the input file's line.
    const shard = err instanceof JobFailed ? steps.findIndex((s) => s.id === err.step) : -1;
    const m = shard >= 0 ? /^<shard>(?::(\d+))?: ([\s\S]*)$/.exec((err as JobFailed).reason) : null;
    if (m) throw new InputError(inputFile, m[1] === undefined ? undefined : shards[shard].lines[Number(m[1]) - 1], m[2]);
    throw err;
  } finally {
    connection?.disconnect();
  }
  const manifests = steps.map((s) => store.readManifest(s.id) as NonNullable<ReturnType<ArtifactStore['readManifest']>>);
  await writeTextAtomic(outFile, manifests.map((m) => store.get(m.files.out).toString('utf8')));
  if (values['out-nbest']) await writeTextAtomic(values['out-nbest'], manifests.map((m) => store.get(m.files.nbest).toString('utf8')));
  return 0;
}
