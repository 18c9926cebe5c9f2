/**
 * The distributed tests' processes (redis-server, workers, coordinators) must not outlive a
 * failed test: a CI run once left two workers running. This runs a fixture file in a child
 * vitest whose tests time out, fail, and kill their own process, then checks that every
 * process they started is gone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers.js';
import { skipWithoutRedis } from '../../test-support/distributed.js';

const skip = skipWithoutRedis();
const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** True while `pid` runs. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) counts as gone.
  return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
};

describe.skipIf(skip)('distributed test hygiene', () => {
  it('a timed-out, a failed and a killed test leave no worker or redis-server running', async () => {
    const pidsFile = join(tmp.dir, 'pids');
    const config = tmp.file(
      'vitest.config.mjs',
      `export default { test: { root: ${JSON.stringify(repoRoot)}, include: ['test/distributed/distributed-leak.fixture.ts'], pool: 'forks', hookTimeout: 60000 } };\n`,
    );
    const run = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', config],
      {
        cwd: repoRoot,
        env: { ...process.env, LEAK_PIDS_FILE: pidsFile, LEAK_STORE: join(tmp.dir, 'store') },
        encoding: 'utf8',
        timeout: 100_000,
      },
    );
    const output = run.stdout + run.stderr;
    expect(run.status, output).not.toBe(0);
    expect(existsSync(pidsFile), output).toBe(true);
    const lines = readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean);
    // Killed when their test ended (onTestFinished), and when their block ended (afterAll)...
    expect(lines, output).toContain('gone after the timeout');
    expect(lines, output).toContain('gone after the block');
    // ...and when the test process was killed (the reaper).
    const pids = lines.filter((l) => /^\d+$/.test(l)).map(Number);
    // Two from the timed-out test, three from the failed block, two from the killed process.
    expect(pids, output).toHaveLength(7);
    // The reaper acts when the killed process's pipe closes: give it a moment.
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  }, 120_000);
});
