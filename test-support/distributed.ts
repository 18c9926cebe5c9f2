/**
 * Test helpers for the distributed mode: a private redis-server on 127.0.0.1 at a free port
 * with a temporary folder (never another address), and worker / coordinator processes of
 * the built CLI. Without `redis-server` installed the tests are skipped with one line, except
 * under CI=true, where they must run (.ci/run installs the package).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import { repoRoot } from './shared-data.js';

export const hasRedisServer = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;

/** Call at the top of a distributed test file: true when the tests must be skipped. */
export function skipWithoutRedis(): boolean {
  if (hasRedisServer) return false;
  if (process.env.CI === 'true')
    throw new Error(
      'redis-server is not installed, but CI=true needs the distributed tests to run (.ci/run installs it)',
    );
  console.log('distributed tests skipped: redis-server is not installed (apt-get install redis-server)');
  return true;
}

/** A free TCP port on loopback (the OS picks one; it is closed again at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Every process these helpers start dies with the test that started it, and all of them die
 * with the test process, however a test ends (a failed assertion, a timeout, or vitest
 * killing its fork, which runs no 'exit' handler).
 *
 * Two mechanisms: a process started inside a test is killed when that test finishes
 * (`onTestFinished`, which vitest runs after a timeout too); one started in a hook belongs to
 * its describe block's afterAll. Behind both, a reaper: a small detached process that reads
 * the pids on a pipe from this process and SIGKILLs those still listed when the pipe closes,
 * which the kernel does when this process exits by any means, SIGKILL included.
 */
const REAPER = `
const pids = new Set();
let line = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  const parts = (line + d).split('\\n');
  line = parts.pop();
  for (const p of parts) (p[0] === '+' ? pids.add(p.slice(1)) : pids.delete(p.slice(1)));
});
process.stdin.on('end', () => {
  for (const pid of pids) { try { process.kill(Number(pid), 'SIGKILL'); } catch {} }
  process.exit(0);
});`;
let reaper: ChildProcess | undefined;
function tellReaper(message: string): void {
  if (!reaper) {
    reaper = spawn(process.execPath, ['-e', REAPER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    reaper.unref();
    (reaper.stdin as unknown as { unref(): void }).unref();
  }
  reaper.stdin?.write(message + '\n');
}

/** SIGKILLs `child` and resolves once it has exited (a signal sent is not a process gone). */
function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  return exited;
}

/** Kills `child` when the current test ends (if called inside one) and when the test process dies. */
function track(child: ChildProcess, afterTest: () => Promise<void> = () => killAndWait(child)): ChildProcess {
  const pid = child.pid;
  if (pid === undefined) return child;
  tellReaper(`+${pid}`);
  child.once('exit', () => tellReaper(`-${pid}`));
  try {
    onTestFinished(afterTest);
  } catch {
    // Not inside a test (a beforeAll): the describe block's afterAll stops it.
  }
  return child;
}

export interface TestRedis {
  url: string;
  port: number;
  /** The redis-server process id. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** True once something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((r) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      r(true);
    });
    socket.once('error', () => r(false));
  });
}

/**
 * Starts redis-server on 127.0.0.1 with no persistence in a temporary folder. With `tls`
 * (certificate, key, CA files) it serves TLS only, and the URL is rediss://.
 */
export async function startRedis(
  extra: string[] = [],
  tls?: { cert: string; key: string; ca: string },
): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'structrank-redis-'));
  const ports = tls
    ? [
        '--port',
        '0',
        '--tls-port',
        String(port),
        '--tls-cert-file',
        tls.cert,
        '--tls-key-file',
        tls.key,
        '--tls-ca-cert-file',
        tls.ca,
        '--tls-auth-clients',
        'no',
      ]
    : ['--port', String(port)];
  const proc = spawn(
    'redis-server',
    [...ports, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    { stdio: 'ignore' },
  );
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  track(proc, () => stop('SIGKILL'));
  for (let i = 0; i < 100; i++) {
    if (await listening(port)) break;
    if (i === 99) {
      await stop('SIGKILL');
      throw new Error(`redis-server did not start on 127.0.0.1:${port}`);
    }
    await sleep(100);
  }
  return { url: `${tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`, port, pid: proc.pid, stop: () => stop('SIGTERM') };
}

/** A process of the built CLI whose stderr is collected. */
export interface CliProcess {
  proc: ChildProcess;
  output(): string;
  /** Resolves when the output from offset `from` on matches (rejects after timeoutMs). */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<void>;
  /**
   * Freezes the process (SIGSTOP) as soon as the output from offset `from` on matches: in
   * the handler that reads the bytes, not at the next poll, so that a short job cannot end
   * between the line and the signal. Resolves once it is stopped.
   */
  stopWhen(pattern: RegExp, timeoutMs?: number, from?: number): Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  exited(): Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Once the Redis on `port` is stopped: `run` (a coordinator) exits with 1 within a minute, its
 * last line the one clear error, not a stack or a hang.
 */
export async function expectLostRedisExit(run: CliProcess, port: number): Promise<void> {
  const timer = setTimeout(() => run.proc.kill('SIGKILL'), 60_000);
  const code = await run.exited();
  clearTimeout(timer);
  expect(code, run.output()).toBe(1);
  expect(run.output().trim().split('\n').pop()).toMatch(
    new RegExp(
      `^structrank: redis://127\\.0\\.0\\.1:${port}/?: cannot reach Redis: the connection was lost during the run`,
    ),
  );
}

export function startCli(args: string[], cwd = repoRoot): CliProcess {
  const proc = track(
    spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let text = '';
  proc.stdout?.on('data', (b: Buffer) => (text += b.toString()));
  proc.stderr?.on('data', (b: Buffer) => (text += b.toString()));
  // 'close', not 'exit': every byte the process wrote has been read by then.
  const exit = new Promise<number | string>((r) => proc.once('close', (code, signal) => r(code ?? signal ?? -1)));
  return {
    proc,
    output: () => text,
    async waitFor(pattern, timeoutMs = 60_000, from = 0) {
      const t0 = Date.now();
      while (!pattern.test(text.slice(from))) {
        if (proc.exitCode !== null || proc.signalCode !== null)
          throw new Error(`process exited before ${pattern}:\n${text}`);
        if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${pattern}:\n${text}`);
        await sleep(20);
      }
    },
    stopWhen(pattern, timeoutMs = 60_000, from = 0) {
      return new Promise<void>((resolve, reject) => {
        const streams = [proc.stdout, proc.stderr];
        const finish = (error?: Error): void => {
          clearTimeout(timer);
          for (const s of streams) s?.off('data', check);
          proc.off('close', closed);
          if (error) reject(error);
          else resolve();
        };
        // Registered after the listeners that append to `text`, so it sees the new bytes.
        const check = (): void => {
          if (!pattern.test(text.slice(from))) return;
          proc.kill('SIGSTOP');
          finish();
        };
        const closed = (): void => finish(new Error(`process exited before ${pattern}:\n${text}`));
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${pattern}:\n${text}`)), timeoutMs);
        for (const s of streams) s?.on('data', check);
        proc.once('close', closed);
        check();
      });
    },
    exited: () => exit,
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exit;
    },
  };
}

/** A worker process: `structrank worker` on the test Redis and store. */
export async function startWorkerProcess(redis: string, store: string, extra: string[] = []): Promise<CliProcess> {
  const w = startCli(['worker', '--redis', redis, '--store', store, '--threads', '1', ...extra]);
  try {
    await w.waitFor(/worker .* on redis:/);
  } catch (e) {
    await w.kill('SIGKILL');
    throw e;
  }
  return w;
}

/** The workers' log lines that report a failed job: asserted empty, so a failure shows its message. */
export function failedJobLines(workers: CliProcess[]): string[] {
  return workers.flatMap((w) =>
    w
      .output()
      .split('\n')
      .filter((line) => /^\S+ failed /.test(line)),
  );
}

/**
 * A test Redis and two worker processes on `store` for the enclosing describe block: started
 * in its beforeAll, killed (and the server stopped) in its afterAll, also when a start fails.
 */
export function redisWithTwoWorkers(store: string): { redis: TestRedis; workers: CliProcess[] } {
  const cluster = { redis: undefined as unknown as TestRedis, workers: [] as CliProcess[] };
  beforeAll(async () => {
    cluster.redis = await startRedis();
    for (let i = 0; i < 2; i++) cluster.workers.push(await startWorkerProcess(cluster.redis.url, store));
  });
  afterAll(async () => {
    for (const w of cluster.workers) await w.kill('SIGKILL');
    await cluster.redis?.stop();
  });
  return cluster;
}
