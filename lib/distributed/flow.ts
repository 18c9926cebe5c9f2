/**
 * Submitting steps as one BullMQ flow and waiting for them. Each child job's id is its step id
 * (content-addressed), so adding the same step twice is one job; the parent's id hashes all
 * step ids of the run, so a restarted coordinator adds the same flow again and waits for the
 * jobs it queued before. The wait ends when every step's manifest is in the store, or with
 * the message of the first job that failed for good.
 */
import { createHash } from 'node:crypto';
import { FlowProducer, Queue, type Job, type QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { InputError, throwIfAborted } from '../errors.js';
import { lostConnection, QUEUE_NAME } from './connection.js';
import type { JobKind } from './job-env.js';
import type { ArtifactStore } from './store.js';

/** Retries for a job that fails for a passing reason (a permanent failure is not retried). */
const ATTEMPTS = 3;

/** A job failed for good: its step and message, as the worker left it. */
export class JobFailed extends InputError {
  constructor(
    readonly step: string,
    readonly reason: string,
  ) {
    super(`job ${step}`, undefined, reason);
    this.name = 'JobFailed';
  }
}

export interface FlowStep {
  /** Step id: the job id and the manifest's name in the store. */
  id: string;
  kind: JobKind;
  payload: object;
}

export interface FlowOptions {
  /** A prefix for the parent job's id, e.g. 'candidates'. */
  name: string;
  /** The Redis URL, for the message when the connection is lost. */
  redisUrl: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
  progress?: (label: string, done: number, total: number, status?: string) => void;
  pollMs?: number;
  /**
   * The queue's events, when the caller keeps them open: the wait then wakes as soon as one
   * of the flow's jobs completes or fails, instead of at its next poll (which stays as the
   * fallback). Gradient evaluations use it: short flows, run back to back.
   */
  events?: QueueEvents;
  /**
   * The queue and flow producer on `connection`, when the caller keeps them open for many
   * flows (gradient evaluations: making them anew cost a few ms per evaluation).
   */
  clients?: { queue: Queue; flow: FlowProducer };
  /** Called once for each step this wait sees finish, as soon as it sees it (not for steps done before the flow). */
  onStepDone?: (step: string) => void;
}

/** The id of a flow's parent job: the flow's name and a hash of all its step ids. */
export function flowParentId(name: string, steps: string[]): string {
  return `${name}-${createHash('sha256').update(steps.join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * Queues the steps not yet in the store as children of one parent and waits until all of
 * `steps` have manifests.
 */
export async function runFlow(
  connection: Redis,
  store: ArtifactStore,
  steps: FlowStep[],
  options: FlowOptions,
): Promise<void> {
  const log = options.log ?? (() => {});
  const all = steps.map((s) => s.id);
  const missing = steps.filter((s) => store.readManifest(s.id) === undefined);
  if (missing.length === 0) return;
  const queue = options.clients?.queue ?? new Queue(QUEUE_NAME, { connection });
  const flow = options.clients?.flow ?? new FlowProducer({ connection });
  try {
    const parentId = flowParentId(options.name, all);
    const old = await queue.getJob(parentId);
    if (old) {
      // A parent from an earlier run that failed, or finished while outputs are now missing: start over.
      const state = await old.getState();
      if (state === 'failed' || state === 'completed') await old.remove({ removeChildren: true });
    }
    await flow.add({
      name: 'collect',
      queueName: QUEUE_NAME,
      data: { steps: all },
      opts: { jobId: parentId, removeOnComplete: 1000, removeOnFail: 1000 },
      children: missing.map((m) => ({
        name: m.kind,
        queueName: QUEUE_NAME,
        data: m.payload,
        opts: {
          jobId: m.id,
          attempts: ATTEMPTS,
          backoff: { type: 'fixed', delay: 1000 },
          failParentOnFailure: true,
          removeOnComplete: 1000,
          removeOnFail: 1000,
        },
      })),
    });
    log(`queued ${missing.length} ${options.name} job(s) on ${QUEUE_NAME} (flow ${parentId})`);
    await waitFor(store, queue, parentId, all, options);
  } catch (err) {
    // Redis gone for longer than the client's reconnects: one clear line, not a stack.
    throw lostConnection(options.redisUrl, connection, err);
  } finally {
    if (!options.clients) {
      await flow.close();
      await queue.close();
    }
  }
}

async function waitFor(
  store: ArtifactStore,
  queue: Queue,
  parentId: string,
  all: string[],
  options: FlowOptions,
): Promise<void> {
  const log = options.log ?? (() => {});
  const pollMs = options.pollMs ?? 250;
  let lastNote = 0;
  // The worker count for the bar, asked every 2 s from the third second on (a short flow, such as
  // one gradient evaluation, pays no extra round trip).
  let lastCount = Date.now();
  let workers: number | undefined;
  // Steps found done are not read again: a poll reads only the pending manifests.
  let pending = all;
  // Events of this flow's jobs seen so far; `wake` ends the current wait early.
  const ours = new Set([...all, parentId]);
  let seen = 0;
  let wake: (() => void) | undefined;
  const onEvent = ({ jobId }: { jobId: string }): void => {
    if (!ours.has(jobId)) return;
    seen++;
    wake?.();
  };
  options.events?.on('completed', onEvent);
  options.events?.on('failed', onEvent);
  try {
    for (;;) {
      throwIfAborted(options.signal);
      const seenBefore = seen;
      pending = pending.filter((id) => {
        if (store.readManifest(id) === undefined) return true;
        options.onStepDone?.(id);
        return false;
      });
      const done = all.length - pending.length;
      if (options.progress && Date.now() - lastCount > 2000) {
        lastCount = Date.now();
        workers = await queue.getWorkersCount();
      }
      options.progress?.(
        'jobs',
        done,
        all.length,
        workers === undefined ? undefined : `${workers} worker(s) on the queue`,
      );
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
        if ((await queue.getWorkersCount()) === 0)
          log(
            `waiting for workers: none is connected to the queue (start one with 'structrank worker --redis URL --store DIR')`,
          );
      }
      if (seen === seenBefore) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
  } finally {
    options.events?.off('completed', onEvent);
    options.events?.off('failed', onEvent);
  }
}
