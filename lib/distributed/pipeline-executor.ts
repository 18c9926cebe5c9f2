/**
 * The pipeline's candidate steps as a BullMQ flow: one child job per jackknife fold and one
 * for dev-test under a parent job that completes when they all have; then the rerankers as a
 * second flow, one job per reranker. A job's id is its step
 * cache id (`<step>-<key>`, the key hashing the step's options and its inputs' content), so
 * submitting the same step twice is one job, a step already in the artifact store or the
 * local step cache is not submitted, and a restarted coordinator finds the jobs it queued
 * before. Finished outputs are copied from the store into the local step cache, so the rest
 * of the pipeline reads the same files as after a local run.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { InputError } from '../errors.js';
import type { CandidateExecutor, CandidateStep, RerankerStep } from '../pipeline/candidates.js';
import type { PipelineConfig } from '../pipeline/config.js';
import { stepDataOptions } from '../pipeline/data.js';
import { stepKey, type StepResult } from '../pipeline/step-cache.js';
import { connectRedis } from './connection.js';
import { runFlow } from './flow.js';
import type { CandidatesPayload, RerankerPayload } from './payloads.js';
import { ArtifactStore } from './store.js';

export interface QueuedExecutorOptions {
  redis: string;
  store: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** One bar over all jobs: done of total. */
  progress?: (label: string, done: number, total: number, status?: string) => void;
  /** Poll interval while waiting for jobs (default 250 ms). */
  pollMs?: number;
}

export class QueuedCandidates implements CandidateExecutor {
  private connection?: Redis;

  constructor(
    private readonly config: PipelineConfig,
    private readonly options: QueuedExecutorOptions,
  ) {}

  private payload(step: CandidateStep, id: string, inputs: CandidatesPayload['inputs']): CandidatesPayload {
    const base: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(this.config.base))
      if (v !== undefined) base[k] = v as string | number | boolean;
    // A payload names no path: the cluster text travels as an input, by its hash.
    if (inputs.clusterText !== undefined) delete base.clusterText;
    return {
      step: id,
      task: this.config.task,
      data: stepDataOptions(this.config),
      inputs,
      base,
      nbest: this.config.nbest,
      folds: this.config.folds,
      fold: step.fold,
      seed: this.config.seed,
    };
  }

  /** Copies a finished step's files from the store into the local step cache (temp + rename). */
  private materialize(store: ArtifactStore, id: string, dir: string): void {
    const manifest = store.readManifest(id);
    if (!manifest) throw new InputError(store.root, undefined, `step ${id} has no outputs in the store`);
    const temp = `${dir}.partial`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    for (const [name, hash] of Object.entries(manifest.files)) writeFileSync(join(temp, name), store.get(hash));
    renameSync(temp, dir);
  }

  async run(steps: CandidateStep[], inputFiles: string[]): Promise<StepResult[]> {
    const log = this.options.log ?? (() => {});
    const store = new ArtifactStore(this.options.store);
    const [train, dev, test, clusterText] = inputFiles;
    const inputs: CandidatesPayload['inputs'] = {
      train: await store.putFile(train),
      dev: await store.putFile(dev),
      test: await store.putFile(test),
      ...(clusterText !== undefined ? { clusterText: await store.putFile(clusterText) } : {}),
    };
    const planned = await Promise.all(
      steps.map(async (step) => {
        const id = `${step.name}-${await stepKey(step.name, step.options, inputFiles)}`;
        return { step, id, dir: join(this.config.cache, id) };
      }),
    );
    const isLocal = (dir: string): boolean => existsSync(dir) && statSync(dir).isDirectory();
    const cachedBefore = new Set(
      planned.filter((p) => isLocal(p.dir) || store.readManifest(p.id) !== undefined).map((p) => p.id),
    );
    const missing = planned.filter((p) => !cachedBefore.has(p.id));
    if (missing.length > 0) {
      this.connection ??= await connectRedis(this.options.redis, 'client');
      const queued = planned
        .filter((p) => !isLocal(p.dir))
        .map((p) => ({ id: p.id, kind: 'pipeline.candidates' as const, payload: this.payload(p.step, p.id, inputs) }));
      await runFlow(this.connection, store, queued, {
        name: 'candidates',
        redisUrl: this.options.redis,
        signal: this.options.signal,
        log,
        progress: this.options.progress,
        pollMs: this.options.pollMs,
      });
    }
    return planned.map((p) => {
      if (!isLocal(p.dir)) this.materialize(store, p.id, p.dir);
      if (!cachedBefore.has(p.id)) log(`${p.step.name}: done on a worker (${p.id})`);
      return { dir: p.dir, cached: cachedBefore.has(p.id) };
    });
  }

  /** The pipeline's rerankers as one flow of jobs (they are independent of each other). */
  async prefetchRerankers(steps: RerankerStep[]): Promise<void> {
    if (steps.length === 0) return;
    const store = new ArtifactStore(this.options.store);
    const isLocal = (dir: string): boolean => existsSync(dir) && statSync(dir).isDirectory();
    const planned = await Promise.all(
      steps.map(async (step) => {
        const id = `${step.name}-${await stepKey(step.name, step.options, step.inputs)}`;
        return { step, id, dir: join(this.config.cache, id) };
      }),
    );
    const remote = planned.filter((p) => !isLocal(p.dir));
    if (remote.length === 0) return;
    const hashes = new Map<string, string>();
    for (const file of new Set(remote.flatMap((p) => p.step.inputs))) hashes.set(file, await store.putFile(file));
    const queued = remote.map((p) => {
      const files = p.step.inputs.map((f) => hashes.get(f) as string);
      const payload: RerankerPayload = {
        step: p.id,
        task: this.config.task,
        reranker: p.step.config,
        seed: this.config.seed,
        inputs: { folds: files.slice(0, -2), dev: files[files.length - 2], test: files[files.length - 1] },
      };
      return { id: p.id, kind: 'pipeline.reranker' as const, payload };
    });
    this.connection ??= await connectRedis(this.options.redis, 'client');
    await runFlow(this.connection, store, queued, {
      name: 'rerankers',
      redisUrl: this.options.redis,
      signal: this.options.signal,
      log: this.options.log,
      progress: this.options.progress,
      pollMs: this.options.pollMs,
    });
    // A reranker this build lacks left no result: the pipeline's loop reports it as locally.
    for (const p of remote)
      if (store.readManifest(p.id)?.files['result.json'] !== undefined) this.materialize(store, p.id, p.dir);
  }

  async close(): Promise<void> {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
