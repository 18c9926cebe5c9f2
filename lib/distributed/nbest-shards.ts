/**
 * `rerank` and `features` over shards of an n-best file. The coordinator reads and checks the
 * whole file once (so a bad line is reported as a local run reports it, and the tag scoring is
 * detected on all gold sequences, as locally), cuts it into shards of whole sentences and
 * queues one job per shard.
 *  - rerank: a worker runs the `rerank` command on its shard; the chosen candidates of the
 *    shards, concatenated in input order, are the local run's output file byte for byte
 *    (every sentence is reranked on its own).
 *  - features: a worker extracts its shard's feature names (the costly part: head-annotated
 *    trees and templates) and stores them as a feature table keeping every name. The
 *    coordinator merges the shard tables in order on ids (mergeShardTables): the dictionary
 *    and the table are the ones `structrank features` builds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, InternalError } from '../errors.js';
import { checkOutputPath, writeTextAtomic } from '../io/atomic-writer.js';
import { readLinesSync } from '../io/lines.js';
import { readNbestSync, type NbestSentence } from '../io/nbest.js';
import { loadHeadRules } from '../io/head-rules-file.js';
import { listTagScoring } from '../eval/score.js';
import { loadFeatureTable, saveFeatureTable, type FeatureTable } from '../rerank/feature-table.js';
import { isContainerFile, loadFeatureRows, trainingTable } from '../rerank/inputs.js';
import { learnedSettingsLines, learnListSettings, type TreeSettings } from '../rerank/tree-settings.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import type { NbestShardPayload } from './payloads.js';
import { queueOptions, runShardSteps, shardStep, type Shard } from './shards.js';
import { ArtifactStore } from './store.js';

/** The file name errors of a shard carry until the coordinator maps them to the input's lines. */
const SHARD_INPUT = 'shard-input.jsonl';

/** Cuts an n-best file (one sentence per non-blank line) into shards of `size` sentences. */
export function splitNbestInput(file: string, size: number): Shard[] {
  const lines = [...readLinesSync(file)];
  const out: Shard[] = [];
  let part: typeof lines = [];
  let sentences = 0;
  let before = 0;
  const flush = (): void => {
    out.push({ text: part.map((l) => `${l.text}\n`).join(''), idOffset: before, lines: part.map((l) => l.number) });
    before += sentences;
    part = [];
    sentences = 0;
  };
  for (const line of lines) {
    part.push(line);
    if (line.text.trim() !== '' && ++sentences === size) flush();
  }
  // Trailing blank lines join the last shard.
  if (part.length > 0) {
    if (sentences === 0 && out.length > 0) {
      const last = out[out.length - 1];
      last.text += part.map((l) => `${l.text}\n`).join('');
      last.lines.push(...part.map((l) => l.number));
    } else flush();
  }
  return out;
}

/** Job body: one n-best shard through `rerank` or feature extraction. */
export async function runNbestShard(p: NbestShardPayload, env: JobEnv): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  const dir = mkdtempSync(join(env.store.inside('tmp'), 'shard-'));
  const input = join(dir, SHARD_INPUT);
  const o = p.options;
  try {
    writeFileSync(input, env.store.get(p.input));
    let out: string;
    try {
      if (p.command === 'rerank') {
        if (p.model === undefined) throw new InputError('<payload>', undefined, 'a rerank shard needs its model');
        out = join(dir, o.conll ? 'out.conll' : 'out.txt');
        const command = await env.commands.rerank();
        const given = new Set<string>();
        if (o.rounds !== undefined) given.add('--rounds');
        for (const flag of ['voted', 'averaged', 'last'] as const) if (o[flag]) given.add(`--${flag}`);
        if (o.compress === false) given.add('--no-compress');
        const values = z.object(command.options).parse({
          model: env.store.verifiedPath(p.model),
          input,
          out,
          threads: env.threads,
          rounds: o.rounds,
          voted: o.voted,
          averaged: o.averaged,
          last: o.last,
          compress: o.compress,
          json: true,
        });
        const code = (await command.run(values, { positionals: [], given })) ?? 0;
        if (code !== 0) throw new InternalError(`rerank exited with code ${code}`);
      } else {
        const { rows } = await loadFeatureRows(input, {
          threads: env.threads,
          signal: env.signal,
          treeFeatures: o.treeFeatures,
          scoring: o.scoring,
          settings: o.settings,
        });
        out = join(dir, 'features.bin');
        saveFeatureTable(out, await trainingTable(rows, 1, env.signal));
      }
    } catch (err) {
      // Name the shard's lines so the coordinator can map them to the input file's.
      if (err instanceof InputError && err.file === input) throw new InputError('<shard>', err.line, err.problem);
      throw err;
    }
    const files = { out: env.store.put(readFileSync(out)) };
    env.store.writeManifest({ step: p.step, files, seconds: 0 });
    return { step: p.step, cached: false, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface QueueValues {
  input: string;
  redis?: string;
  store?: string;
  shardSize: number;
}

/** Checks the whole n-best file, stores its shards and runs them; returns the shards' outputs. */
async function runNbestShards(
  command: 'rerank' | 'features',
  values: QueueValues,
  payload: (
    store: ArtifactStore,
    sentences: readonly NbestSentence[],
  ) => Promise<Omit<NbestShardPayload, 'step' | 'input' | 'command'>>,
  signal?: AbortSignal,
): Promise<{ parts: Buffer[]; sentences: number }> {
  const q = queueOptions(command, values);
  const file = values.input;
  if (isContainerFile(file)) throw new InputError(file, undefined, `a sharded ${command} needs the n-best file itself`);
  // Read once here: errors at the file's own lines, and what the payload learns from the whole file.
  const sentences = readNbestSync(file);
  if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences');
  const store = new ArtifactStore(q.store);
  const common = await payload(store, sentences);
  const shards = splitNbestInput(file, values.shardSize);
  const steps = shards.map((s, i) =>
    shardStep('nbest-shard', command, i, shards.length, { command, input: store.put(s.text), ...common }),
  );
  process.stderr.write(`${command}: ${shards.length} shard(s) of up to ${values.shardSize} sentences\n`);
  const manifests = await runShardSteps(command, q.redis, store, steps, { signal, input: file, shards });
  return { parts: manifests.map((m) => store.get(m.files.out)), sentences: sentences.length };
}

/** The validated options of `rerank` that a sharded run uses. */
export interface RerankShardValues extends QueueValues {
  model: string;
  out: string;
  rounds?: number;
  voted?: boolean;
  averaged?: boolean;
  last?: boolean;
  compress?: boolean;
}

/** The coordinator of `rerank --redis --store`: the chosen candidates, merged in input order. */
export async function runRerankSharded(values: RerankShardValues, signal?: AbortSignal): Promise<number> {
  checkOutputPath(values.out);
  const { parts, sentences } = await runNbestShards(
    'rerank',
    values,
    async (store) => ({
      model: await store.putFile(values.model),
      options: {
        conll: values.out.endsWith('.conll'),
        rounds: values.rounds,
        voted: values.voted,
        averaged: values.averaged,
        last: values.last,
        compress: values.compress,
      },
    }),
    signal,
  );
  await writeTextAtomic(
    values.out,
    parts.map((b) => b.toString('utf8')),
  );
  const say = values.out === '-' ? console.error : console.log;
  // The local run's Score and EVALB lines need every candidate's score: eval-parse / eval-tags give them from the output.
  say(`reranked ${sentences} sentences in ${parts.length} shard(s) -> ${values.out}`);
  return 0;
}

/**
 * The shards' feature tables (every name kept, numbered in order of first appearance) merged
 * into the table a local run builds: names in order of first appearance over all shards, kept
 * when they are on a candidate of at least `cutoff` sentences, and each candidate's row mapped
 * through that dictionary with ids ascending. Works on ids, one shard table at a time: names
 * are held once, not once per candidate.
 */
export function mergeShardTables(count: number, load: (shard: number) => FeatureTable, cutoff: number): FeatureTable {
  const sentencesOf = new Map<string, number>();
  const order: string[] = [];
  let sentences = 0;
  let candidates = 0;
  for (let k = 0; k < count; k++) {
    const t = load(k);
    const seenIn = new Int32Array(t.names.length);
    const last = new Int32Array(t.names.length).fill(-1);
    for (let i = 0; i < t.ids.length; i++) {
      for (let q = t.rowPtr[t.sentencePtr[i]]; q < t.rowPtr[t.sentencePtr[i + 1]]; q++) {
        const id = t.cols[q];
        if (last[id] !== i) {
          last[id] = i;
          seenIn[id]++;
        }
      }
    }
    t.names.forEach((name, id) => {
      const before = sentencesOf.get(name);
      if (before === undefined) order.push(name);
      sentencesOf.set(name, (before ?? 0) + seenIn[id]);
    });
    sentences += t.ids.length;
    candidates += t.logprob.length;
  }
  const names = order.filter((name) => (sentencesOf.get(name) as number) >= cutoff);
  sentencesOf.clear();
  const index = new Map<string, number>();
  names.forEach((name, i) => index.set(name, i));
  const ids: string[] = [];
  const sentencePtr = new Float64Array(sentences + 1);
  const rowPtr = new Float64Array(candidates + 1);
  const logprob = new Float64Array(candidates);
  const score = new Float64Array(candidates);
  const parts: Int32Array[] = [];
  let s0 = 0;
  let c0 = 0;
  let nnz = 0;
  for (let k = 0; k < count; k++) {
    const t = load(k);
    const global = Int32Array.from(t.names, (name) => index.get(name) ?? -1);
    const cols: number[] = [];
    for (let c = 0; c < t.logprob.length; c++) {
      const row: number[] = [];
      for (let q = t.rowPtr[c]; q < t.rowPtr[c + 1]; q++) if (global[t.cols[q]] >= 0) row.push(global[t.cols[q]]);
      row.sort((a, b) => a - b);
      cols.push(...row);
      logprob[c0 + c] = t.logprob[c];
      score[c0 + c] = t.score[c];
      rowPtr[c0 + c + 1] = nnz + cols.length;
    }
    for (let i = 0; i < t.ids.length; i++) {
      ids.push(t.ids[i]);
      sentencePtr[s0 + i + 1] = c0 + t.sentencePtr[i + 1];
    }
    parts.push(Int32Array.from(cols));
    nnz += cols.length;
    s0 += t.ids.length;
    c0 += t.logprob.length;
  }
  const cols = new Int32Array(nnz);
  let at = 0;
  for (const part of parts) {
    cols.set(part, at);
    at += part.length;
  }
  return { names, ids, sentencePtr, rowPtr, cols, logprob, score, cutoff };
}

/** The coordinator of `features --redis --store`: the shards' tables merged into the local run's table. */
export async function runFeaturesSharded(
  values: QueueValues & { treeFeatures: boolean; out: string; cutoff: number; headRules: string },
  save: (table: FeatureTable) => void,
  signal?: AbortSignal,
): Promise<number> {
  checkOutputPath(values.out);
  // Learned once here from every gold tree, as a local run learns them, and sent to every shard.
  const learned: string[] = [];
  let settings: TreeSettings | undefined;
  const { parts } = await runNbestShards(
    'features',
    values,
    async (_store, sentences) => {
      const l = learnListSettings(sentences, loadHeadRules(values.headRules), values.input);
      if (l) learned.push(...learnedSettingsLines(l));
      settings = l?.settings;
      // One tag scoring for the whole input, as a local run detects it.
      const scoring = listTagScoring(sentences);
      return {
        options: {
          treeFeatures: values.treeFeatures,
          ...(settings ? { settings } : {}),
          ...(scoring ? { scoring } : {}),
        },
      };
    },
    signal,
  );
  const dir = mkdtempSync(join(new ArtifactStore(values.store as string).inside('tmp'), 'features-'));
  try {
    const files = parts.map((bytes, i) => {
      const file = join(dir, `shard${i}.bin`);
      writeFileSync(file, bytes);
      return file;
    });
    parts.length = 0;
    const merged = mergeShardTables(files.length, (k) => loadFeatureTable(files[k]), values.cutoff);
    save(settings ? { ...merged, settings } : merged);
    for (const line of learned) console.error(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}
