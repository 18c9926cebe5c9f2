/**
 * Not a test of its own: `test/distributed/distributed-hygiene.test.ts` runs this file in a child vitest
 * to check that the distributed helpers' processes die with a test that times out, fails, or
 * whose process is killed. Each case appends the pids it started to $LEAK_PIDS_FILE.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { redisWithTwoWorkers, startRedis, startWorkerProcess } from '../../test-support/distributed.js';

const pidsFile = process.env.LEAK_PIDS_FILE ?? '';
const store = process.env.LEAK_STORE ?? join(tmpdir(), `structrank-leak-store-${process.pid}`);
const record = (...pids: (number | undefined)[]): void => appendFileSync(pidsFile, pids.map((p) => `${p}\n`).join(''));

/** Appends `marker` when every pid recorded so far is gone (while this process still runs). */
function markIfAllGone(marker: string): void {
  const pids = readFileSync(pidsFile, 'utf8')
    .split('\n')
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
  const alive = pids.filter((pid) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); // a zombie is gone
  });
  if (alive.length === 0) appendFileSync(pidsFile, `${marker}\n`);
}

async function redisAndWorker(): Promise<void> {
  const redis = await startRedis();
  record(redis.pid);
  record((await startWorkerProcess(redis.url, store)).proc.pid);
}

describe('a test that times out', () => {
  it('leaves nothing running', async () => {
    await redisAndWorker();
    await new Promise(() => {});
  }, 5_000); // longer than starting a worker on a loaded machine
  it('is followed by one that finds its processes gone', () => markIfAllGone('gone after the timeout'));
});

describe('a test that fails in a block with a shared cluster', () => {
  const cluster = redisWithTwoWorkers(store);
  it('leaves nothing running', () => {
    record(cluster.redis.pid, ...cluster.workers.map((w) => w.proc.pid));
    expect('passed').toBe('failed');
  });
});

describe('after that block', () => {
  it('its processes are gone', () => markIfAllGone('gone after the block'));
});

describe('a test process killed with SIGKILL', () => {
  it('leaves nothing running', async () => {
    await redisAndWorker();
    process.kill(process.pid, 'SIGKILL');
  });
});
