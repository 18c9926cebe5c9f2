/**
 * The pipeline's candidate steps as a BullMQ flow: one child job per jackknife fold and one
 * for dev-test under a parent job that completes when they all have. A job's id is its step
 * cache id (`<step>-<key>`, the key hashing the step's options and its inputs' content), so
 * submitting the same step twice is one job, a step already in the artifact store or the
 * local step cache is not submitted, and a restarted coordinator finds the jobs it queued
 * before. Finished outputs are copied from the store into the local step cache, so the rest
 * of the pipeline reads the same files as after a local run.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlowProducer, Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { InputError, throwIfAborted } from '../errors.js';
import type { CandidateExecutor, CandidateStep } from '../pipeline/candidates.js';
import type { PipelineConfig } from '../pipeline/config.js';
import { stepKey, type StepResult } from '../pipeline/step-cache.js';
import { connectRedis, QUEUE_NAME } from './connection.js';
import type { CandidatesPayload } from './payloads.js';
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

/** Retries for a job that fails for a passing reason (a permanent failure is not retried). */
const ATTEMPTS = 3;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A job failed for good: its step and message, as the worker left it. */
export class JobFailed extends InputError {
  constructor(step: string, reason: string) {
    super(`job ${step}`, undefined, reason);
    this.name = 'JobFailed';
  }
}

export class QueuedCandidates implements CandidateExecutor {
  private connection?: Redis;

  constructor(
    private readonly config: PipelineConfig,
    private readonly options: QueuedExecutorOptions,
  ) {}

  private payload(step: CandidateStep, id: string, inputs: CandidatesPayload['inputs']): CandidatesPayload {
    const d = this.config.data;
    const base: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(this.config.base)) if (v !== undefined) base[k] = v as string | number | boolean;
    return {
      step: id,
      task: this.config.task,
      data: { format: d.format, columns: d.columns, label: d.label, trainLimit: d.trainLimit, devLimit: d.devLimit, testLimit: d.testLimit, maxLength: d.maxLength },
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
    const [train, dev, test] = inputFiles;
    const inputs = { train: await store.putFile(train), dev: await store.putFile(dev), test: await store.putFile(test) };
    const planned = await Promise.all(
      steps.map(async (step) => {
        const id = `${step.name}-${await stepKey(step.name, step.options, inputFiles)}`;
        return { step, id, dir: join(this.config.cache, id) };
      }),
    );
    const isLocal = (dir: string): boolean => existsSync(dir) && statSync(dir).isDirectory();
    const cachedBefore = new Set(planned.filter((p) => isLocal(p.dir) || store.readManifest(p.id) !== undefined).map((p) => p.id));
    const missing = planned.filter((p) => !cachedBefore.has(p.id));
    if (missing.length > 0) await this.submitAndWait(store, planned.map((p) => p.id), missing.map((p) => ({ id: p.id, payload: this.payload(p.step, p.id, inputs) })));
    return planned.map((p) => {
      if (!isLocal(p.dir)) this.materialize(store, p.id, p.dir);
      if (!cachedBefore.has(p.id)) log(`${p.step.name}: done on a worker (${p.id})`);
      return { dir: p.dir, cached: cachedBefore.has(p.id) };
    });
  }

  private async submitAndWait(store: ArtifactStore, all: string[], missing: { id: string; payload: CandidatesPayload }[]): Promise<void> {
    const log = this.options.log ?? (() => {});
    this.connection ??= await connectRedis(this.options.redis, 'client');
    const connection = this.connection;
    const queue = new Queue(QUEUE_NAME, { connection });
    const flow = new FlowProducer({ connection });
    try {
      // The parent's id hashes every step of the run, so a restarted coordinator adds the
      // same flow again (BullMQ keeps one job per id) and waits for the jobs it queued before.
      const parentId = `candidates-${createHash('sha256').update(all.join('\n')).digest('hex').slice(0, 16)}`;
      const old = await queue.getJob(parentId);
      if (old) {
        const state = await old.getState();
        // A finished parent from an earlier run whose outputs are gone, or a failed one: start over.
        if (state === 'failed' || state === 'completed') await old.remove({ removeChildren: true });
      }
      await flow.add({
        name: 'pipeline.collect',
        queueName: QUEUE_NAME,
        data: { steps: all },
        opts: { jobId: parentId, removeOnComplete: 1000, removeOnFail: 1000 },
        children: missing.map((m) => ({
          name: 'pipeline.candidates',
          queueName: QUEUE_NAME,
          data: m.payload,
          opts: { jobId: m.id, attempts: ATTEMPTS, backoff: { type: 'fixed', delay: 1000 }, failParentOnFailure: true, removeOnComplete: 1000, removeOnFail: 1000 },
        })),
      });
      log(`queued ${missing.length} candidate job(s) on ${QUEUE_NAME} (flow ${parentId})`);
      await this.waitFor(store, queue, parentId, all);
    } finally {
      await flow.close();
      await queue.close();
    }
  }

  /** Waits until every step's manifest is in the store; a failed job ends the wait with its message. */
  private async waitFor(store: ArtifactStore, queue: Queue, parentId: string, all: string[]): Promise<void> {
    const log = this.options.log ?? (() => {});
    const pollMs = this.options.pollMs ?? 250;
    let lastNote = 0;
    for (;;) {
      throwIfAborted(this.options.signal);
      const done = all.filter((id) => store.readManifest(id) !== undefined).length;
      this.options.progress?.('jobs', done, all.length);
      if (done === all.length) return;
      const parent: Job | undefined = await queue.getJob(parentId);
      const state = parent ? await parent.getState() : 'unknown';
      if (state === 'failed' || state === 'unknown') {
        for (const id of all) {
          const child = await queue.getJob(id);
          if (child && (await child.getState()) === 'failed') throw new JobFailed(id, child.failedReason);
        }
        throw new JobFailed(parentId, parent?.failedReason ?? 'the flow vanished from the queue');
      }
      if (Date.now() - lastNote > 15_000) {
        lastNote = Date.now();
        const workers = await queue.getWorkersCount();
        if (workers === 0) log(`waiting for workers: none is connected to the queue (start one with 'structrank worker --redis URL --store DIR')`);
      }
      await sleep(pollMs);
    }
  }

  async close(): Promise<void> {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
