/**
 * The job registry: every kind of job a worker can run, each a payload schema and a body.
 * `runJob` validates the payload and runs the body; a BullMQ worker (worker.ts) calls it for
 * every job it takes, and the bodies call the same step code the local pipeline runs
 * (lib/pipeline/candidates.ts). A job's outputs go to the artifact store under its step id;
 * a step whose manifest is already there is not run again.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { realComponents } from '../pipeline/adapters/index.js';
import { candidateFiles, produceCandidates, produceRerankerResult } from '../pipeline/candidates.js';
import { ComponentUnavailable, type StepContext } from '../pipeline/components.js';
import { validatePipelineConfig, type PipelineConfig, type RerankerConfig } from '../pipeline/config.js';
import { readDataSets, type DataSets } from '../pipeline/data.js';
import { scoreSet } from '../pipeline/evaluate.js';
import { readNbestSync } from '../io/nbest.js';
import {
  candidatesPayload,
  collectPayload,
  emptyPayload,
  kernelStripPayload,
  nbestShardPayload,
  parsePayload,
  PayloadError,
  rerankerPayload,
  shardPayload,
  type CandidatesPayload,
  type RerankerPayload,
} from './payloads.js';
import { runKernelStrip } from './kernel-shards.js';
import { runNbestShard } from './nbest-shards.js';
import { runShard } from './shards.js';
import { runCrfGradientJob, runPerceptronEpochJob, trainShardPayload } from './gradient.js';
import { runParserGradientJob } from './parser-gradient.js';
import { runRerankerEpochJob } from './rerank-mixing.js';
import type { StepManifest } from './store.js';
import { InputError } from '../errors.js';
import type { JobEnv, JobKind, JobOutcome } from './job-env.js';

interface JobDefinition<S extends z.ZodType> {
  schema: S;
  run(payload: z.output<S>, env: JobEnv): Promise<JobOutcome>;
}

const define = <S extends z.ZodType>(d: JobDefinition<S>): JobDefinition<S> => d;

/**
 * Training checkpoints of a step's trainers, in the store (`checkpoints/<step>/`), which every
 * worker sees: a job retried after its worker was killed resumes each trainer from its last
 * epoch or iteration instead of from the start. Removed once the step's manifest is written.
 */
function storeCheckpoints(
  env: JobEnv,
  step: string,
): { checkpoints: NonNullable<StepContext['checkpoints']>; remove: () => void } {
  const dir = env.store.inside(join('checkpoints', step));
  return {
    checkpoints: (label) => {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${label.replace(/[^A-Za-z0-9._=-]+/g, '_')}.ckpt`);
      return existsSync(file) ? { checkpoint: file, resume: file } : { checkpoint: file };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A step job's context: the worker's signal, threads, log and progress, the run's seed, the step's checkpoints. */
function jobContext(env: JobEnv, seed: number, checkpoints: StepContext['checkpoints']): StepContext {
  return { signal: env.signal, threads: env.threads, seed, log: env.log, progress: env.progress, checkpoints };
}

/**
 * The data sets a worker read for its last candidate jobs, by content (the inputs' hashes and
 * the data options): the folds of one run read and parse the same treebank once per worker,
 * not once per job. Blobs are content-addressed, so equal hashes are equal bytes.
 */
const dataSetsRead = new Map<string, DataSets>();
function cachedDataSets(p: CandidatesPayload, config: PipelineConfig, log: JobEnv['log']): DataSets {
  const key = JSON.stringify([p.task, p.data, p.inputs, p.folds]);
  let sets = dataSetsRead.get(key);
  // The log line names the training data's hash: tests and operators can see what was reused.
  log(`data sets ${sets === undefined ? 'read' : 'reused'} (train ${p.inputs.train.slice(0, 12)})`);
  if (sets === undefined) {
    sets = readDataSets(config);
    dataSetsRead.set(key, sets);
    while (dataSetsRead.size > 2) dataSetsRead.delete(dataSetsRead.keys().next().value as string);
  }
  return sets;
}

/**
 * The payload's base options with the cluster text as a file of the store. A base naming a
 * file of its own is refused: a job reads no path it was sent.
 */
function clusterTextOf(p: CandidatesPayload, path: (hash: string) => string): CandidatesPayload['base'] {
  const named = p.base.clusterText;
  if (named !== undefined && named !== 'train')
    throw new PayloadError(
      'pipeline.candidates',
      'base.clusterText: expected "train" (a text file travels as inputs.clusterText)',
    );
  return p.inputs.clusterText === undefined ? p.base : { ...p.base, clusterText: path(p.inputs.clusterText) };
}

/** A pipeline candidate step (jackknife fold or dev-test) on data from the store. */
async function runCandidates(p: CandidatesPayload, env: JobEnv): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  // Inputs read before by this worker were checked against their hashes then.
  const known = dataSetsRead.has(JSON.stringify([p.task, p.data, p.inputs, p.folds]));
  const path = (hash: string): string => (known ? env.store.blobPath(hash) : env.store.verifiedPath(hash));
  const config = validatePipelineConfig(
    {
      task: p.task,
      data: {
        ...p.data,
        train: path(p.inputs.train),
        dev: path(p.inputs.dev),
        test: path(p.inputs.test),
      },
      folds: p.folds,
      nbest: p.nbest,
      base: clusterTextOf(p, path),
      rerankers: [],
      threads: env.threads,
      seed: p.seed,
      output: env.store.inside('tmp'),
    },
    `job ${p.step}`,
    env.store.root,
  );
  const data = cachedDataSets(p, config, env.log);
  const base = realComponents.base(config);
  const dir = mkdtempSync(join(env.store.inside('tmp'), 'job-'));
  const saved = storeCheckpoints(env, p.step);
  try {
    const ctx = jobContext(env, p.seed, saved.checkpoints);
    await produceCandidates({ name: p.step, options: {}, fold: p.fold }, config, data, base, dir, ctx);
    const files: Record<string, string> = {};
    for (const name of candidateFiles(p.fold, p.task)) files[name] = env.store.put(readFileSync(join(dir, name)));
    const seconds = (JSON.parse(readFileSync(join(dir, 'time.json'), 'utf8')) as { seconds: number }).seconds;
    const manifest: StepManifest = { step: p.step, files, seconds };
    env.store.writeManifest(manifest);
    saved.remove();
    return { step: p.step, cached: false, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A pipeline reranker on the candidate files in the store. */
async function runReranker(p: RerankerPayload, env: JobEnv): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  const read = (hash: string) => readNbestSync(env.store.verifiedPath(hash));
  const sets = {
    train: scoreSet(p.inputs.folds.flatMap(read)),
    dev: scoreSet(read(p.inputs.dev)),
    test: scoreSet(read(p.inputs.test)),
  };
  const rc = p.reranker as RerankerConfig & { name: string };
  const dir = mkdtempSync(join(env.store.inside('tmp'), 'job-'));
  const saved = storeCheckpoints(env, p.step);
  try {
    const ctx = jobContext(env, p.seed, saved.checkpoints);
    try {
      const reranker = realComponents.reranker(rc, { task: p.task } as PipelineConfig);
      await produceRerankerResult({ name: p.step, options: {}, config: rc, inputs: [] }, reranker, sets, dir, ctx);
    } catch (err) {
      // Not part of this build: no outputs; the coordinator's own loop reports it as usual.
      if (!(err instanceof ComponentUnavailable)) throw err;
      env.store.writeManifest({ step: p.step, files: {}, seconds: 0 });
      return { step: p.step, cached: false, files: {} };
    }
    const files = { 'result.json': env.store.put(readFileSync(join(dir, 'result.json'))) };
    env.store.writeManifest({ step: p.step, files, seconds: 0 });
    saved.remove();
    return { step: p.step, cached: false, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const jobs = {
  'pipeline.reranker': define({ schema: rerankerPayload, run: runReranker }),
  'pipeline.candidates': define({ schema: candidatesPayload, run: runCandidates }),
  /** A flow's parent: its children are done when it runs; it checks their manifests. */
  collect: define({
    schema: collectPayload,
    async run(p, env) {
      const missing = p.steps.filter((s) => env.store.readManifest(s) === undefined);
      if (missing.length > 0)
        throw new InputError(
          env.store.root,
          undefined,
          `steps finished without outputs in the store: ${missing.join(', ')}`,
        );
      return {};
    },
  }),
  /** One sentence shard of `parse` or `tag`. */
  shard: define({ schema: shardPayload, run: runShard }),
  /** One n-best shard of `rerank` or `features`. */
  'nbest-shard': define({ schema: nbestShardPayload, run: runNbestShard }),
  /** One row block of a `kernel trees` / `kernel tags` Gram matrix. */
  'kernel-strip': define({ schema: kernelStripPayload, run: runKernelStrip }),
  empty: define({ schema: emptyPayload, run: async () => ({}) }),
  /** Distributed training (gradient.ts, mixing.ts): one shard's CRF gradient or perceptron epoch. */
  'train.crf-gradient': define({ schema: trainShardPayload, run: runCrfGradientJob }),
  'train.perceptron-epoch': define({ schema: trainShardPayload, run: runPerceptronEpochJob }),
  'train.reranker-epoch': define({ schema: trainShardPayload, run: runRerankerEpochJob }),
  /** `train-parser --crf --lbfgs --redis` (parser-gradient.ts): one shard's CRF parser gradient. */
  'train.parser-gradient': define({ schema: trainShardPayload, run: runParserGradientJob }),
} satisfies Record<JobKind, JobDefinition<z.ZodType>>;

export function isJobKind(name: string): name is JobKind {
  return Object.prototype.hasOwnProperty.call(jobs, name);
}

/** Validates a job's payload and runs it (in this process, or for a queue worker). */
export async function runJob(kind: string, payload: unknown, env: JobEnv): Promise<JobOutcome> {
  if (!isJobKind(kind)) throw new PayloadError(kind, 'unknown job kind');
  const def = jobs[kind] as JobDefinition<z.ZodType>;
  return def.run(parsePayload(kind, def.schema, payload), env);
}
