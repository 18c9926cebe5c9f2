/**
 * A queue worker: takes jobs from the BullMQ queue and runs them through the job registry
 * with its own threads and concurrency. A job that fails for a real reason (bad input, a
 * payload the schema refuses, a path outside the store) fails once, with its message kept on
 * the job for the coordinator; any other error is retried. A worker killed mid-job stops
 * renewing its lock, and BullMQ's stalled-job check gives the job to another worker.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { InputError, UsageError } from '../errors.js';
import { connectRedis, QUEUE_NAME, redactUrl } from './connection.js';
import { runJob } from './jobs.js';
import type { JobOutcome, ShardCommands } from './job-env.js';
import { PayloadError } from './payloads.js';
import { ArtifactStore } from './store.js';

export interface WorkerOptions {
  redis: string;
  store: string;
  /** Threads per job for native work (0 = all cores). */
  threads: number;
  /** Jobs run at the same time. */
  concurrency: number;
  /**
   * How long a job's lock lasts without renewal: a killed worker's job is taken over this long
   * after its last renewal (default 30 s).
   */
  lockMs?: number;
  log?: (line: string) => void;
  /** The commands shard jobs run (lib/commands/worker.ts hands them over). */
  commands: ShardCommands;
}

export interface RunningWorker {
  worker: Worker;
  /** Waits for the running jobs to finish, then disconnects. */
  close(): Promise<void>;
}

/** Errors that a retry cannot fix: the job fails once. */
export function isPermanent(err: unknown): boolean {
  return (
    err instanceof InputError ||
    err instanceof UsageError ||
    err instanceof PayloadError ||
    (err as { code?: string })?.code === 'ERR_STRUCTRANK_INPUT'
  );
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const log = options.log ?? (() => {});
  const store = new ArtifactStore(options.store);
  let lastError = '';
  const connection = await connectRedis(options.redis, 'worker', (err) => {
    if (err.message !== lastError) log(`redis: ${err.message}`);
    lastError = err.message;
  });
  const lockMs = options.lockMs ?? 30_000;
  const processor = async (job: Job, _token?: string, signal?: AbortSignal): Promise<JobOutcome> => {
    const t0 = Date.now();
    log(`start ${job.name} ${job.id} (attempt ${job.attemptsMade + 1})`);
    try {
      const out = await runJob(job.name, job.data, {
        store,
        threads: options.threads,
        signal,
        log: (line) => log(`  ${line}`),
        commands: options.commands,
      });
      log(
        `done ${job.name} ${job.id}${out.cached ? ' (already in the store)' : ''} in ${((Date.now() - t0) / 1000).toFixed(2)} s`,
      );
      return out;
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      log(`failed ${job.name} ${job.id}: ${message}`);
      if (isPermanent(err)) throw new UnrecoverableError(message);
      throw err;
    }
  };
  const worker = new Worker(QUEUE_NAME, processor, {
    connection,
    concurrency: options.concurrency,
    name: `${hostname()}:${process.pid}`,
    lockDuration: lockMs,
    stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
    // A job whose worker died is retried; one that keeps killing its workers fails after 3.
    maxStalledCount: 3,
  });
  worker.on('error', (err) => {
    if (err.message !== lastError) log(`worker: ${err.message}`);
    lastError = err.message;
  });
  await worker.waitUntilReady();
  log(
    `worker ${hostname()}:${process.pid} on ${redactUrl(options.redis)}, store ${store.root}, ${options.concurrency} job(s) at a time, ${options.threads || 'all'} thread(s) each`,
  );
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
