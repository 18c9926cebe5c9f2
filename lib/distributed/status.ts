/** `structrank queue status`: jobs per kind and state, and the workers connected to the queue. */
import { Queue } from 'bullmq';
import { connectRedis, QUEUE_NAME } from './connection.js';

export interface StepCounts {
  waiting: number;
  active: number;
  done: number;
  failed: number;
}

export interface QueueStatus {
  queue: string;
  /** Counts per job kind (e.g. pipeline.candidates). */
  steps: Record<string, StepCounts>;
  total: StepCounts;
  workers: { name: string; addr: string; ageSeconds: number }[];
}

/** BullMQ states and the column they count in. */
const COLUMNS: Record<string, keyof StepCounts> = {
  waiting: 'waiting',
  'waiting-children': 'waiting',
  delayed: 'waiting',
  prioritized: 'waiting',
  active: 'active',
  completed: 'done',
  failed: 'failed',
};

/** Jobs are listed in pages of this many. */
const PAGE = 1000;

export async function queueStatus(url: string): Promise<QueueStatus> {
  const connection = await connectRedis(url, 'client');
  const queue = new Queue(QUEUE_NAME, { connection });
  try {
    const steps: Record<string, StepCounts> = {};
    const total: StepCounts = { waiting: 0, active: 0, done: 0, failed: 0 };
    for (const [state, column] of Object.entries(COLUMNS)) {
      for (let start = 0; ; start += PAGE) {
        const jobs = await queue.getJobs([state as 'waiting'], start, start + PAGE - 1, true);
        for (const job of jobs) {
          if (!job) continue;
          steps[job.name] ??= { waiting: 0, active: 0, done: 0, failed: 0 };
          steps[job.name][column]++;
          total[column]++;
        }
        if (jobs.length < PAGE) break;
      }
    }
    // BullMQ keeps the worker's own name (host:pid) after ':w:' in the raw client name.
    const workers = (await queue.getWorkers()).map((w) => ({
      name: String((w as { rawname?: string }).rawname ?? w.name ?? '').replace(/^.*?:w:/, ''),
      addr: w.addr ?? '',
      ageSeconds: Number(w.age ?? 0),
    }));
    return { queue: QUEUE_NAME, steps, total, workers };
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** A small table for the terminal. */
export function formatQueueStatus(s: QueueStatus): string {
  const rows = [['step', 'waiting', 'active', 'done', 'failed']];
  for (const [name, c] of Object.entries(s.steps).sort(([a], [b]) => a.localeCompare(b)))
    rows.push([name, String(c.waiting), String(c.active), String(c.done), String(c.failed)]);
  rows.push(['total', String(s.total.waiting), String(s.total.active), String(s.total.done), String(s.total.failed)]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '),
  );
  lines.push('', `workers alive: ${s.workers.length}`);
  for (const w of s.workers) lines.push(`  ${w.name} (${w.addr}, connected ${w.ageSeconds} s)`);
  return lines.join('\n');
}
