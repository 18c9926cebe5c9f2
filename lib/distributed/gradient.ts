/**
 * CRF training by synchronous data parallelism. The training sentences are cut into shards;
 * at every point the optimizer asks about, each shard's objective and gradient are computed
 * (by queue jobs, or in this process) at the same weights, and the sharded L-BFGS coordinator
 * (lbfgs-coordinator.ts) adds the L2 prior and the shards' sums in shard order and takes the
 * step. The model equals local training's up to the order in which the per-sentence
 * gradients are summed.
 *
 * A worker builds the coordinator's whole training corpus once (the features are the whole
 * corpus's; the spec is a blob in the store) and keeps it for the next job of the same run;
 * weights go out and gradients come back as Float64 blobs (little-endian) in the store.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import {
  shardTrainingHandle,
  type ExternalTrainer,
  type ShardTrainingHandle,
  type TaggerTrainingSpec,
} from '../tagger/tagger.js';
import { checkRedisUrl, connectRedis, lostConnection, QUEUE_NAME } from './connection.js';
import { FlowProducer, Queue, QueueEvents } from 'bullmq';
import { flowParentId, runFlow, type FlowStep } from './flow.js';
import type { JobEnv, JobOutcome, JobKind } from './job-env.js';
import { parsePayload } from './payloads.js';
import { HASH_PATTERN, STEP_ID_PATTERN, type ArtifactStore, type StepManifest } from './store.js';
import {
  shardedLbfgs,
  type CrfShardResult,
  type GradientExecutor,
  type GradientStats,
  type ShardObjective,
} from './lbfgs-coordinator.js';
import { decodeVector, encodeVectorParts } from './vector-blob.js';
import type { PerceptronShardResult, ShardEpochs } from './mixing.js';
import { UsageError } from '../errors.js';

/** [first, last) sentence ranges of `shards` near-equal shards, in order. */
export function sentenceRanges(sentences: number, shards: number): [number, number][] {
  const n = Math.max(1, Math.min(shards, sentences));
  const out: [number, number][] = [];
  for (let k = 0; k < n; k++) out.push([Math.floor((k * sentences) / n), Math.floor(((k + 1) * sentences) / n)]);
  return out;
}

/** The shards' computations one after another in this process, in shard order. */
export async function inShardOrder<T>(
  ranges: readonly [number, number][],
  compute: (first: number, last: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (const [first, last] of ranges) out.push(await compute(first, last));
  return out;
}

// ---- what a shard computes: the same native calls in a worker or in this process ----

export type { CrfShardResult, GradientExecutor, GradientStats, PerceptronShardResult };

/** Runs one computation per shard at given weights (a gradient or a perceptron epoch); results in shard order. */
export interface ShardExecutor extends GradientExecutor, ShardEpochs {
  /** Queue runs only: where the time of the evaluations so far went. */
  readonly timings?: ExecutorTimings;
}

/** The shards computed one after another in this process (`--mix-shards` without --redis, tests). */
export function localExecutor(
  spec: TaggerTrainingSpec,
  shards: number,
  threads: number,
  signal?: AbortSignal,
): ShardExecutor {
  const handle = shardTrainingHandle(spec);
  const ranges = sentenceRanges(spec.sentences, shards);
  return {
    shards: ranges.length,
    bytesMoved: 0,
    crfGradients: (w) => inShardOrder(ranges, (a, b) => handle.gradient(w, a, b, threads, signal)),
    perceptronEpochs: (w, seed) => inShardOrder(ranges, (a, b) => handle.perceptronEpoch(w, a, b, seed, signal)),
    close: async () => {},
  };
}

// ---- the jobs ----

const hash = z
  .string()
  .regex(HASH_PATTERN, { message: 'expected a SHA-256 naming an artifact in the store (paths are refused)' });
const stepId = z.string().regex(STEP_ID_PATTERN, { message: 'expected a step id' });

/** One shard's work at one point: the run's spec and the weights, by hash; sentences [first, last). */
export const trainShardPayload = z.strictObject({
  step: stepId,
  spec: hash,
  weights: hash,
  first: z.number().int().min(0),
  last: z.number().int().min(1),
  /** Perceptron: the epoch's shuffling seed. */
  seed: z.number().int().min(0).optional(),
});
export type TrainShardPayload = z.output<typeof trainShardPayload>;

/** The spec blob: plain data, checked before a worker builds anything from it. */
const specSchema = z.strictObject({
  algorithm: z.enum(['perceptron', 'crf', 'maxent']),
  order: z.union([z.literal(1), z.literal(2)]),
  beam: z.number().int().min(1),
  numColumns: z.number().int().min(1),
  templates: z.array(z.number().int()),
  clusters: z.string().optional(),
  text: z.string(),
  labels: z.string(),
  sentences: z.number().int().min(1),
  startWeights: z.boolean(),
  c2: z.number().min(0),
  seed: z.number().int().min(0),
});

/** A worker's training corpora by spec hash: built once per run, the last two kept. */
const corpora = new Map<string, ShardTrainingHandle>();
function trainingHandle(store: ArtifactStore, specHash: string): ShardTrainingHandle {
  let h = corpora.get(specHash);
  if (h === undefined) {
    const spec = parsePayload('training spec', specSchema, JSON.parse(store.get(specHash).toString('utf8')));
    h = shardTrainingHandle(spec);
    corpora.set(specHash, h);
    while (corpora.size > 2) corpora.delete(corpora.keys().next().value as string);
  }
  return h;
}

async function runShardJob(
  p: TrainShardPayload,
  env: JobEnv,
  compute: (h: ShardTrainingHandle, w: Float64Array) => Promise<Float64Array[]>,
): Promise<JobOutcome> {
  return runWeightsJob(p, env, (w) => compute(trainingHandle(env.store, p.spec), w));
}

/**
 * The weights a worker read last, by hash: the shards of one evaluation that land on the
 * same worker read and verify the weights once (they are broadcast once per evaluation).
 */
let lastWeights: { hash: string; values: Float64Array } | undefined;
function weightsOf(store: ArtifactStore, hash: string): { values: Float64Array; read: number } {
  if (lastWeights?.hash === hash) return { values: lastWeights.values, read: 0 };
  const bytes = store.get(hash);
  lastWeights = { hash, values: decodeVector(bytes) };
  return { values: lastWeights.values, read: bytes.length };
}

/** 32 bits of a step id's hash: the owner tag of the step's result blob (vector-blob.ts). */
function ownerTag(step: string): number {
  return createHash('sha256').update(step).digest().readUInt32LE(0);
}

/**
 * A shard job's frame: done before -> its manifest; else the result of `compute` at the
 * payload's weights (one vector, or pieces of one), stored dense or sparse (vector-blob.ts).
 * `compute` must not change the weights it is given: the next shard on this worker reads the
 * same vector.
 */
export async function runWeightsJob(
  p: TrainShardPayload,
  env: JobEnv,
  compute: (w: Float64Array) => Promise<Float64Array | Float64Array[]>,
): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  const t0 = Date.now();
  const weights = weightsOf(env.store, p.weights);
  const out = await compute(weights.values);
  const files = { result: env.store.put(encodeVectorParts(out, ownerTag(p.step))) };
  env.store.writeManifest({ step: p.step, files, seconds: (Date.now() - t0) / 1000, weightsRead: weights.read });
  return { step: p.step, cached: false, files };
}

/** Job body: one shard's CRF loss and gradient; the blob is [loss, gradient...]. */
export function runCrfGradientJob(p: TrainShardPayload, env: JobEnv): Promise<JobOutcome> {
  return runShardJob(p, env, async (h, w) => {
    const r = await h.gradient(w, p.first, p.last, env.threads, env.signal);
    return [Float64Array.of(r.loss), r.gradient];
  });
}

/** Job body: one shard's perceptron epoch; the blob is [mistakes, weights..., averaged...]. */
export function runPerceptronEpochJob(p: TrainShardPayload, env: JobEnv): Promise<JobOutcome> {
  return runShardJob(p, env, async (h, w) => {
    const r = await h.perceptronEpoch(w, p.first, p.last, p.seed ?? 0, env.signal);
    return [Float64Array.of(r.mistakes), r.weights, r.averaged];
  });
}

/** Seconds summed over a queue executor's evaluations. */
export interface ExecutorTimings {
  /** Coordinator: storing the weights (hash + write). */
  putWeights: number;
  /** From queueing the jobs until every result is in the store. */
  flow: number;
  /** The slowest shard's job body per evaluation (reading the weights, computing, storing the result). */
  slowestJob: number;
  /** Coordinator: reading and verifying the results. */
  readResults: number;
}

/**
 * The shards as queue jobs: weights and results travel through the store. `spec` is stored
 * as JSON for the workers (a tagger's, a parser's with `gradientKind` 'train.parser-gradient',
 * or a perceptron reranker's with `epochKind` 'train.reranker-epoch'). An evaluation ends
 * when the queue reports its last job done; `pollMs` (default 50) is how often the store is
 * checked without such a report.
 */
export async function queueExecutor(
  spec: { sentences: number },
  shards: number,
  o: {
    redis: string;
    store: ArtifactStore;
    signal?: AbortSignal;
    log?: (line: string) => void;
    gradientKind?: JobKind;
    epochKind?: JobKind;
    pollMs?: number;
  },
): Promise<ShardExecutor> {
  const connection: Redis = await connectRedis(o.redis, 'client');
  const { store } = o;
  const specHash = store.put(JSON.stringify(spec));
  const ranges = sentenceRanges(spec.sentences, shards);
  let bytes = 0;
  const timings: ExecutorTimings = { putWeights: 0, flow: 0, slowestJob: 0, readResults: 0 };
  const since = (t0: number): number => (performance.now() - t0) / 1000;
  const queue = new Queue(QUEUE_NAME, { connection });
  const flow = new FlowProducer({ connection });
  // The queue's events on a connection of their own (BullMQ reads them with a blocking
  // command): an evaluation ends when its last job does, not at the next poll. Only a wake-up:
  // a lost connection is reported by the main one, and the polls go on without events.
  const events = new QueueEvents(QUEUE_NAME, { connection: { ...connection.options, maxRetriesPerRequest: null } });
  events.on('error', () => {});
  await events.waitUntilReady();
  // This run's weight blobs are its own (vector-blob.ts): another run's equal weights are
  // another blob, so discarding ours never takes theirs.
  const owner = randomBytes(4).readUInt32LE(0);
  // An evaluation's artifacts are removed once its flow's parent job (which checks that they
  // exist) has run or been taken off the queue: nothing reads them after that. That waits for
  // a worker and Redis, so it runs during the next evaluation's jobs, not before its start;
  // an evaluation waits only for the previous removal (whose error it then reports).
  let retiring: Promise<void> = Promise.resolve();
  const retire = (done: { steps: string[]; weights: string; parent: string }): void => {
    retiring = (async () => {
      await retireParent(queue, done.parent);
      for (const s of done.steps) store.discardStep(s);
      store.discard(done.weights);
    })();
    retiring.catch(() => {}); // reported by the next await of `retiring`, not as unhandled
  };
  // One line per evaluation would drown the progress bar: only the notes about workers.
  const log = (line: string): void => {
    if (!line.startsWith('queued ')) o.log?.(line);
  };
  const run = async (kind: JobKind, weights: Float64Array, seed: number | undefined): Promise<Float64Array[]> => {
    try {
      return await evaluate(kind, weights, seed);
    } catch (err) {
      throw lostConnection(o.redis, connection, err);
    }
  };
  const evaluate = async (kind: JobKind, weights: Float64Array, seed: number | undefined): Promise<Float64Array[]> => {
    let t0 = performance.now();
    const wBlob = encodeVectorParts(weights, owner);
    const wHash = store.put(wBlob);
    const wBytes = wBlob.reduce((n, piece) => n + piece.length, 0);
    timings.putWeights += since(t0);
    const steps: FlowStep[] = ranges.map(([first, last]) => {
      const payload = { spec: specHash, weights: wHash, first, last, ...(seed !== undefined ? { seed } : {}) };
      const key = createHash('sha256')
        .update(`${kind}\n${JSON.stringify(payload)}`)
        .digest('hex')
        .slice(0, 24);
      const id = `${kind}-${key}`;
      return { id, kind, payload: { step: id, ...payload } };
    });
    // Each result is read (and its hash checked) as soon as its job is seen done, while the
    // other shards still compute.
    const blobs: Buffer[] = [];
    const manifests: StepManifest[] = [];
    let reading = 0;
    const read = (k: number): void => {
      const r0 = performance.now();
      manifests[k] = store.readManifest(steps[k].id) as StepManifest;
      blobs[k] = store.get(manifests[k].files.result);
      reading += since(r0);
    };
    const onStepDone = (id: string): void => read(steps.findIndex((s) => s.id === id));
    t0 = performance.now();
    await runFlow(connection, store, steps, {
      name: kind,
      redisUrl: o.redis,
      signal: o.signal,
      log,
      pollMs: o.pollMs ?? 50,
      events,
      clients: { queue, flow },
      onStepDone,
    });
    timings.flow += since(t0) - reading;
    // Steps done before this flow (a resumed run) were not reported.
    for (let k = 0; k < steps.length; k++) if (blobs[k] === undefined) read(k);
    const results = blobs.map((b) => decodeVector(b));
    timings.readResults += reading;
    timings.slowestJob += Math.max(...manifests.map((m) => m.seconds));
    // The weights as the workers read them (once per worker and evaluation), and each
    // result blob written once and read once.
    bytes += manifests.reduce((n, m) => n + (m.weightsRead ?? wBytes), 0) + blobs.reduce((n, b) => n + b.length, 0);
    await retiring;
    retire({
      steps: steps.map((s) => s.id),
      weights: wHash,
      parent: flowParentId(
        kind,
        steps.map((s) => s.id),
      ),
    });
    return results;
  };
  return {
    shards: ranges.length,
    get bytesMoved() {
      return bytes;
    },
    timings,
    async crfGradients(w) {
      return (await run(o.gradientKind ?? 'train.crf-gradient', w, undefined)).map((r) => ({
        loss: r[0],
        gradient: r.subarray(1),
      }));
    },
    async perceptronEpochs(w, seed) {
      const n = w.length;
      return (await run(o.epochKind ?? 'train.perceptron-epoch', w, seed)).map((r) => ({
        mistakes: r[0],
        weights: r.subarray(1, 1 + n),
        averaged: r.subarray(1 + n),
      }));
    },
    async close() {
      try {
        // Only while Redis answers: after a lost connection the run has failed already, and
        // the leftovers are another run's to remove.
        if (connection.status === 'ready') await retiring;
      } finally {
        // With the server gone, close() would wait for it: started (which stops the events'
        // reading loop and drops its connection), not awaited.
        const closing = events.close().catch(() => {});
        if (connection.status === 'ready') await closing;
        await flow.close();
        await queue.close();
        connection.disconnect();
      }
    },
  };
}

/**
 * Waits until a flow's parent job has run (it reads the steps' manifests); one still queued
 * after a second is taken off the queue instead, and one running is waited for (a minute at
 * most: it only reads a few files).
 */
async function retireParent(queue: Queue, id: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const parent = await queue.getJob(id);
    if (!parent || (await parent.isCompleted()) || (await parent.isFailed())) return;
    if (i >= 100) {
      try {
        await parent.remove();
        return;
      } catch {
        // Locked: a worker is running it now.
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** g = 2 c2 x; returns c2 |x|^2. */
function setPrior(g: Float64Array, x: Float64Array, c2: number): number {
  let value = 0;
  for (let k = 0; k < x.length; k++) {
    value += c2 * x[k] * x[k];
    g[k] = 2 * c2 * x[k];
  }
  return value;
}

/** g += shard. */
function addInto(g: Float64Array, shard: Float64Array): void {
  for (let k = 0; k < g.length; k++) g[k] += shard[k];
}

/**
 * The CRF tagger's objective over shards. Sums as the native objective does: the prior
 * c2 |w|^2 first, then the shards' terms in shard order.
 */
export function crfShardObjective(spec: Pick<TaggerTrainingSpec, 'c2'>): ShardObjective {
  return {
    stateKind: 'lbfgs',
    sum(x, parts, gradient) {
      let value = 0;
      // Each weight's prior term, then the shards' terms in shard order (the local sum's order).
      value += setPrior(gradient, x, spec.c2);
      for (const p of parts) addInto(gradient, p.gradient);
      for (const p of parts) value += p.loss;
      return value;
    },
  };
}

/** The CRF tagger's L-BFGS iterations with the gradient summed over shards. */
export function crfGradientTrainer(
  spec: TaggerTrainingSpec,
  executor: GradientExecutor,
  stats?: GradientStats,
): ExternalTrainer {
  return shardedLbfgs(crfShardObjective(spec), executor, stats);
}

/** The `--redis/--store` pair of a trainer, checked; undefined for a local run. */
export function distributedTarget(
  command: string,
  values: { redis?: string; store?: string },
): { redis: string; store: string } | undefined {
  if (values.redis === undefined && values.store === undefined) return undefined;
  if (values.redis === undefined || values.store === undefined)
    throw new UsageError(`${command}: --redis and --store go together`);
  return { redis: checkRedisUrl(command, values.redis), store: values.store };
}
