import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, lockFolder, processAlive } from '../../lib/io/folder-lock.js';
import { validatePipelineConfig } from '../../lib/pipeline/config.js';
import { runPipeline } from '../../lib/pipeline/run.js';
import { fakeComponents, tinyNerCorpus, type FakeCalls } from '../pipeline/pipeline-fakes.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function tinyConfig(name: string) {
  const train = tmp.file(`${name}-train.txt`, tinyNerCorpus(40, 1));
  const dev = tmp.file(`${name}-dev.txt`, tinyNerCorpus(12, 2));
  const test = tmp.file(`${name}-test.txt`, tinyNerCorpus(12, 3));
  return validatePipelineConfig(
    {
      task: 'tag',
      data: { train, dev, test, columns: ['word', 'pos', 'ne'], label: 'ne' },
      folds: 4,
      nbest: 4,
      rerankers: [{ type: 'boost', name: 'context', rounds: 10 }],
      output: join(tmp.dir, `${name}-out`),
    },
    'pipeline.json',
    tmp.dir,
  );
}

const calls = (): FakeCalls => ({ trains: 0, nbests: 0, rerankerTrains: 0 });

/** The pid of a process that has exited (so a lock naming it is stale). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(r.stdout);
  expect(processAlive(pid)).toBe(false);
  return pid;
}

describe('one pipeline run per output folder', () => {
  it('refuses a second run while another live process holds the folder, naming it', async () => {
    const config = tinyConfig('live');
    mkdirSync(config.output, { recursive: true });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(
        join(config.output, LOCK_FILE),
        JSON.stringify({
          pid: other.pid,
          host: hostname(),
          started: '2026-01-01T00:00:00.000Z',
          command: 'pipeline --config other.json',
        }),
      );
      await expect(runPipeline(config, { components: fakeComponents(calls()) })).rejects.toThrow(
        new RegExp(
          `another structrank run uses this output folder: pid ${other.pid} on ${hostname()}, started 2026-01-01T00:00:00.000Z \\(structrank pipeline --config other.json\\)`,
        ),
      );
      // The other run's lock is left alone.
      expect(JSON.parse(readFileSync(join(config.output, LOCK_FILE), 'utf8')).pid).toBe(other.pid);
    } finally {
      other.kill();
    }
  });

  it('refuses a second run of the same process on the same folder while the first runs', async () => {
    const config = tinyConfig('twice');
    const first = runPipeline(config, { components: fakeComponents(calls()) });
    await expect(runPipeline(config, { components: fakeComponents(calls()) })).rejects.toThrow(
      /already runs in this output folder/,
    );
    await first;
    expect(existsSync(join(config.output, LOCK_FILE))).toBe(false);
  });

  it('takes over the lock of a process that is gone and releases it at the end', async () => {
    const config = tinyConfig('stale');
    mkdirSync(config.output, { recursive: true });
    writeFileSync(
      join(config.output, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), host: hostname(), started: '2026-01-01T00:00:00.000Z', command: 'demo' }),
    );
    const log: string[] = [];
    const r = await runPipeline(config, { components: fakeComponents(calls()), log: (line) => log.push(line) });
    expect(r.systems.length).toBeGreaterThan(0);
    // A line per pipeline step, also when no terminal shows progress bars.
    for (const step of ['train-fold1of4', 'train-fold4of4', 'dev-test', 'rerank-context'])
      expect(log).toContainEqual(expect.stringMatching(new RegExp(`^${step}: done in \\d+s$`)));
    expect(existsSync(join(config.output, LOCK_FILE))).toBe(false);
  });

  it('lockFolder writes pid and host and refuses a live holder on another host to be taken over', () => {
    const dir = join(tmp.dir, 'plain');
    mkdirSync(dir);
    const lock = lockFolder(dir, 'test');
    const owner = JSON.parse(readFileSync(lock.file, 'utf8'));
    expect([owner.pid, owner.host, owner.command]).toEqual([process.pid, hostname(), 'test']);
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
    writeFileSync(lock.file, JSON.stringify({ pid: deadPid(), host: 'elsewhere', started: 'then', command: '' }));
    expect(() => lockFolder(dir)).toThrow(
      /on elsewhere, started then; .*if that process is gone, remove .*\.structrank\.lock/,
    );
  });
});
