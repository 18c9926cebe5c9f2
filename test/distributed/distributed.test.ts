/**
 * The distributed mode for real: a private redis-server on loopback, worker processes of the
 * built CLI, the pipeline's candidate steps as BullMQ jobs. Results must equal a local run
 * byte for byte; killed workers and a killed coordinator must lose nothing; failures must be
 * clear and final.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAME } from '../../lib/distributed/connection.js';
import { ArtifactStore } from '../../lib/distributed/store.js';
import type { CandidatesPayload } from '../../lib/distributed/payloads.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { formatTree } from '../../lib/trees/tree.js';
import { treeWords } from '../../lib/parser/input.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import {
  expectLostRedisExit,
  freePort,
  skipWithoutRedis,
  startCli,
  startRedis,
  startWorkerProcess,
  type CliProcess,
  type TestRedis,
} from '../../test-support/distributed.js';

const skip = skipWithoutRedis();
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gum = join(repoRoot, 'data', 'gum-open');

/**
 * A tiny parsing pipeline on a slice of GUM: 3 folds, dev-test, boosting and log-linear
 * (another training file and no rerankers with `only`).
 */
function writeConfig(name: string, only?: { train: string; rerankers: [] }, base: object = { crf: false }): string {
  return tmp.file(
    `${name}.json`,
    JSON.stringify({
      task: 'parse',
      data: {
        train: only?.train ?? join(gum, 'train.mrg'),
        dev: join(gum, 'dev.mrg'),
        test: join(gum, 'test.mrg'),
        maxLength: 15,
        trainLimit: 90,
        devLimit: 12,
        testLimit: 12,
      },
      folds: 3,
      nbest: 4,
      base,
      rerankers: only?.rerankers ?? [
        { type: 'boost', rounds: 30, eps: [0.01], cutoff: 1 },
        { type: 'loglinear', l2: [1, 10], iterations: 20, cutoff: 1 },
      ],
      threads: 1,
      output: join(tmp.dir, name),
    }),
  );
}

/** results.json without times: what must be equal between runs. */
function results(dir: string): unknown {
  const r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Record<string, unknown> & {
    systems: Record<string, unknown>[];
    steps: { name: string }[];
  };
  return {
    ...r,
    totalSeconds: undefined,
    systems: r.systems.map((s) => ({ ...s, seconds: undefined })),
    steps: r.steps.map((s) => s.name),
  };
}

/** Every candidate file of a run's step cache, by step folder and name. */
function candidateFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const step of readdirSync(join(dir, 'cache'))
    .filter((d) => /^(train-fold|dev-test)/.test(d))
    .sort()) {
    for (const f of readdirSync(join(dir, 'cache', step)).filter((f) => f.endsWith('.jsonl')))
      out[`${step}/${f}`] = readFileSync(join(dir, 'cache', step, f), 'utf8');
  }
  return out;
}

describe('artifact store', () => {
  it('stores by SHA-256, verifies on read and refuses paths outside the store', () => {
    const store = new ArtifactStore(join(tmp.dir, 'unit-store'));
    const hash = store.put('hello\n');
    expect(hash).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03');
    expect(store.get(hash).toString()).toBe('hello\n');
    expect(store.put('hello\n')).toBe(hash);
    // Pieces are stored as their bytes one after another: the same blob.
    const pieces = store.put([Buffer.from('to be '), Buffer.alloc(0), Buffer.from('written\n')]);
    expect(pieces).toBe(store.put('to be written\n'));
    expect(store.get(pieces).toString()).toBe('to be written\n');
    writeFileSync(store.blobPath(hash), 'hellO\n');
    expect(() => store.get(hash)).toThrow(/corrupt/);
    expect(() => store.blobPath('../../etc/passwd')).toThrow(/refused/);
    expect(() => store.inside('../outside')).toThrow(/refused/);
    expect(() => store.inside('/etc/passwd')).toThrow(/refused/);
    expect(() => store.readManifest('../steps/x')).toThrow(/refused/);
    expect(store.readManifest('train-fold1of2-0123456789abcdef')).toBeUndefined();
  });

  it('streams a file in under its hash; a missing file is an input error', async () => {
    const store = new ArtifactStore(join(tmp.dir, 'unit-store-files'));
    const file = join(gum, 'dev.mrg');
    const hash = await store.putFile(file);
    expect(store.get(hash).equals(readFileSync(file))).toBe(true);
    expect(store.put(readFileSync(file))).toBe(hash);
    expect(await store.putFile(file)).toBe(hash);
    await expect(store.putFile(join(tmp.dir, 'nope.mrg'))).rejects.toThrow(/nope\.mrg: cannot store: .*ENOENT/);
    expect(readdirSync(join(tmp.dir, 'unit-store-files', 'tmp'))).toEqual([]);
  });
});

describe('Redis unreachable', () => {
  it('pipeline, worker and queue status stop with one clear line within seconds', async () => {
    const port = await freePort(); // nothing listens there
    const url = `redis://127.0.0.1:${port}`;
    const config = writeConfig('unreachable');
    for (const args of [
      ['pipeline', '--config', config, '--redis', url, '--store', join(tmp.dir, 'store-unreachable')],
      ['worker', '--redis', url, '--store', join(tmp.dir, 'store-unreachable')],
      ['queue', 'status', '--redis', url],
    ]) {
      const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.signal, `${args[0]} hung`).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`structrank: redis://127\\.0\\.0\\.1:${port}/?: cannot reach Redis: .*ECONNREFUSED`),
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(
      runCli([
        'pipeline',
        '--config',
        config,
        '--redis',
        'http://127.0.0.1:1',
        '--store',
        join(tmp.dir, 'store-unreachable'),
      ]).stderr,
    ).toMatch(/--redis expects a redis:\/\/ or rediss:\/\/ URL/);
    expect(runCli(['pipeline', '--config', config, '--redis', url]).stderr).toMatch(/--redis and --store go together/);
  });
});

describe.skipIf(skip)('Redis lost during a run', () => {
  it('the coordinator stops with one clear line within seconds', async () => {
    const doomed = await startRedis();
    const run = startCli([
      'pipeline',
      '--config',
      writeConfig('lost'),
      '--redis',
      doomed.url,
      '--store',
      join(tmp.dir, 'store-lost'),
    ]);
    try {
      await run.waitFor(/queued 4 candidates job/);
      await doomed.stop();
      await expectLostRedisExit(run, doomed.port);
    } finally {
      await run.kill('SIGKILL');
    }
  });
});

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe.skipIf(skip || !hasOpenssl)('Redis over TLS', () => {
  it('rediss:// works with a CA the process trusts (NODE_EXTRA_CA_CERTS); an untrusted one is one clear line', async () => {
    const d = tmp.dir;
    const openssl = (args: string[]): void => {
      const r = spawnSync('openssl', args, { cwd: d, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=structrank-test-ca',
    ]);
    openssl([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ]);
    writeFileSync(join(d, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    openssl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'san.cnf',
    ]);
    const secure = await startRedis([], {
      cert: join(d, 'server.crt'),
      key: join(d, 'server.key'),
      ca: join(d, 'ca.crt'),
    });
    try {
      expect(secure.url).toMatch(/^rediss:/);
      const cli = (env: NodeJS.ProcessEnv) =>
        spawnSync(
          process.execPath,
          [join(repoRoot, 'dist', 'cli.js'), 'queue', 'status', '--redis', secure.url, '--json'],
          { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 },
        );
      const trusted = cli({ NODE_EXTRA_CA_CERTS: join(d, 'ca.crt') });
      expect(trusted.status, trusted.stderr).toBe(0);
      expect(JSON.parse(trusted.stdout).workers).toEqual([]);
      const untrusted = cli({ NODE_EXTRA_CA_CERTS: '' });
      expect(untrusted.status).toBe(1);
      expect(untrusted.stderr).toMatch(/cannot reach Redis: self-signed certificate in certificate chain/);
    } finally {
      await secure.stop();
    }
  });
});

describe.skipIf(skip)('Redis with a password', () => {
  it('redis://:pass@host works; a wrong password is one clear line that does not show it', async () => {
    const secured = await startRedis(['--requirepass', 's3cret']);
    try {
      const ok = runCli(['queue', 'status', '--redis', `redis://:s3cret@127.0.0.1:${secured.port}`, '--json']);
      expect(ok.status, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout).total).toEqual({ waiting: 0, active: 0, done: 0, failed: 0 });
      const bad = runCli(['queue', 'status', '--redis', `redis://:wrong@127.0.0.1:${secured.port}`]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/cannot reach Redis: WRONGPASS/);
      expect(bad.stderr).not.toContain('wrong');
      const none = runCli(['queue', 'status', '--redis', `redis://127.0.0.1:${secured.port}`]);
      expect(none.status).toBe(1);
      expect(none.stderr).toMatch(/cannot reach Redis: NOAUTH/);
    } finally {
      await secured.stop();
    }
  });
});

describe.skipIf(skip)('distributed pipeline on Redis (2 worker processes)', () => {
  let redis: TestRedis;
  let reference: { results: unknown; files: Record<string, string> };
  const workers: CliProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const local = runCli(['pipeline', '--config', writeConfig('local')]);
    expect(local.status, local.stderr).toBe(0);
    reference = { results: results(join(tmp.dir, 'local')), files: candidateFiles(join(tmp.dir, 'local')) };
    expect(Object.keys(reference.files)).toHaveLength(5);
  });
  afterAll(async () => {
    for (const w of workers) await w.kill('SIGKILL');
    await redis?.stop();
  });
  beforeEach(async () => {
    for (const w of workers.splice(0)) await w.kill('SIGKILL');
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
  });

  const coordinator = (name: string, store: string, config = writeConfig(name)): CliProcess =>
    startCli(['pipeline', '--config', config, '--redis', redis.url, '--store', store]);

  async function completedJobs(kind: string): Promise<number> {
    const queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port: redis.port } });
    const jobs = await queue.getJobs(['completed']);
    await queue.close();
    return jobs.filter((j) => j.name === kind).length;
  }

  it('gives the same candidates and results as a local run; a rerun on the same store runs no job', async () => {
    const store = join(tmp.dir, 'store-same');
    workers.push(await startWorkerProcess(redis.url, store), await startWorkerProcess(redis.url, store));
    const run = coordinator('remote', store);
    expect(await run.exited(), run.output()).toBe(0);
    expect(candidateFiles(join(tmp.dir, 'remote'))).toEqual(reference.files);
    expect(results(join(tmp.dir, 'remote'))).toEqual(reference.results);
    expect(await completedJobs('pipeline.candidates')).toBe(4);
    expect(await completedJobs('pipeline.reranker')).toBe(2);
    // Both workers took part (4 jobs, 2 workers, each job holds its worker for a while).
    expect(workers.filter((w) => /start pipeline\.candidates/.test(w.output())).length).toBe(2);

    const status = runCli(['queue', 'status', '--redis', redis.url, '--json']);
    expect(status.status, status.stderr).toBe(0);
    const counts = JSON.parse(status.stdout);
    expect(counts.steps['pipeline.candidates']).toEqual({ waiting: 0, active: 0, done: 4, failed: 0 });
    expect(counts.steps['pipeline.reranker']).toEqual({ waiting: 0, active: 0, done: 2, failed: 0 });
    expect(counts.steps.collect).toEqual({ waiting: 0, active: 0, done: 2, failed: 0 });
    expect(counts.workers.map((w: { name: string }) => w.name).sort()).toEqual(
      workers.map((w) => `${hostname()}:${w.proc.pid}`).sort(),
    );
    const table = runCli(['queue', 'status', '--redis', redis.url]).stdout;
    expect(table).toMatch(/^pipeline\.candidates +0 +0 +4 +0$/m);
    expect(table).toMatch(/^workers alive: 2$/m);

    const again = coordinator('remote-again', store);
    expect(await again.exited(), again.output()).toBe(0);
    expect(await completedJobs('pipeline.candidates')).toBe(4);
    expect(await completedJobs('pipeline.reranker')).toBe(2);
    const steps = JSON.parse(readFileSync(join(tmp.dir, 'remote-again', 'results.json'), 'utf8')).steps as {
      name: string;
      cached: boolean;
    }[];
    expect(steps.map((s) => s.name)).toEqual([
      'train-fold1of3',
      'train-fold2of3',
      'train-fold3of3',
      'dev-test',
      'rerank-boosting',
      'rerank-log-linear',
    ]);
    expect(steps.every((s) => s.cached)).toBe(true);
    expect(candidateFiles(join(tmp.dir, 'remote-again'))).toEqual(reference.files);
  });

  it('workers keep the data sets between jobs; changed data (another hash) is read again', async () => {
    const store = join(tmp.dir, 'store-data-cache');
    workers.push(await startWorkerProcess(redis.url, store), await startWorkerProcess(redis.url, store));
    // Per worker, its lines naming the data set its candidate jobs used.
    const lines = (w: CliProcess): string[] =>
      w.output().match(/data sets (?:read|reused) \(train [0-9a-f]{12}\)/g) ?? [];
    const trainHash = (l: string): string => /train ([0-9a-f]{12})/.exec(l)?.[1] as string;
    const first = coordinator(
      'data-cache-1',
      store,
      writeConfig('data-cache-1', { train: join(gum, 'train.mrg'), rerankers: [] }),
    );
    expect(await first.exited(), first.output()).toBe(0);
    const run1 = workers.map(lines);
    // 4 candidate jobs (3 folds, dev-test): each worker that took one read the data once,
    // at its first job, and reused it for the others.
    expect(run1.flat()).toHaveLength(4);
    for (const mine of run1.filter((m) => m.length > 0)) {
      expect(mine[0]).toMatch(/^data sets read/);
      expect(mine.slice(1).every((l) => l.startsWith('data sets reused'))).toBe(true);
    }
    expect(run1.flat().filter((l) => l.startsWith('data sets reused')).length).toBeGreaterThanOrEqual(2);
    const hash1 = trainHash(run1.flat()[0]);
    expect(run1.flat().every((l) => trainHash(l) === hash1)).toBe(true);

    // The same treebank less its first 10 trees: other content, so another hash, read afresh
    // by every worker that takes a job, and the candidates of a local run on that file.
    const changed = tmp.file(
      'train-changed.mrg',
      readTreesSync(join(gum, 'train.mrg'))
        .slice(10)
        .map((t) => formatTree(t))
        .join('\n') + '\n',
    );
    const second = coordinator('data-cache-2', store, writeConfig('data-cache-2', { train: changed, rerankers: [] }));
    expect(await second.exited(), second.output()).toBe(0);
    const run2 = workers.map((w, i) => lines(w).slice(run1[i].length));
    expect(run2.flat()).toHaveLength(4);
    const hash2 = trainHash(run2.flat()[0]);
    expect(hash2).not.toBe(hash1);
    expect(run2.flat().every((l) => trainHash(l) === hash2)).toBe(true);
    for (const mine of run2.filter((m) => m.length > 0)) {
      expect(mine[0]).toMatch(/^data sets read/);
      expect(mine.slice(1).every((l) => l.startsWith('data sets reused'))).toBe(true);
    }
    const local = runCli(['pipeline', '--config', writeConfig('data-cache-local', { train: changed, rerankers: [] })]);
    expect(local.status, local.stderr).toBe(0);
    expect(candidateFiles(join(tmp.dir, 'data-cache-2'))).toEqual(candidateFiles(join(tmp.dir, 'data-cache-local')));
    expect(candidateFiles(join(tmp.dir, 'data-cache-2'))).not.toEqual(candidateFiles(join(tmp.dir, 'data-cache-1')));
  });

  it("a base's cluster text travels by its hash, not its path; the candidates equal a local run's", async () => {
    const store = join(tmp.dir, 'store-clusters');
    workers.push(await startWorkerProcess(redis.url, store));
    const text = tmp.file(
      'cluster-text.txt',
      readTreesSync(join(gum, 'test.mrg'))
        .map((t) => treeWords(t).join(' '))
        .join('\n') + '\n',
    );
    const only = { train: join(gum, 'train.mrg'), rerankers: [] as [] };
    const withClusters = { crf: false, clusterText: text, clusterClasses: 8 };
    const remote = coordinator('clusters-remote', store, writeConfig('clusters-remote', only, withClusters));
    expect(await remote.exited(), remote.output()).toBe(0);
    const queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port: redis.port } });
    const jobs = (await queue.getJobs(['completed'])).filter((j) => j.name === 'pipeline.candidates');
    await queue.close();
    expect(jobs).toHaveLength(4);
    const textHash = new ArtifactStore(store).put(readFileSync(text));
    for (const job of jobs) {
      const p = job.data as CandidatesPayload;
      expect(p.base.clusterText).toBeUndefined();
      expect(p.base.clusterClasses).toBe(8);
      expect(p.inputs.clusterText).toBe(textHash);
    }
    for (const [name, base] of [
      ['clusters-local', withClusters],
      ['clusters-none', { crf: false }],
    ] as const) {
      const local = runCli(['pipeline', '--config', writeConfig(name, only, base)]);
      expect(local.status, local.stderr).toBe(0);
    }
    const files = candidateFiles(join(tmp.dir, 'clusters-remote'));
    expect(files).toEqual(candidateFiles(join(tmp.dir, 'clusters-local')));
    // The clusters reach the parser: its lists differ from those without them.
    expect(files).not.toEqual(candidateFiles(join(tmp.dir, 'clusters-none')));
  });

  /** The ids of the candidate jobs a worker's log shows started and not done. */
  function unfinishedJobs(log: string): string[] {
    const started = [...log.matchAll(/start pipeline\.candidates (\S+)/g)].map((m) => m[1]);
    return started.filter((id) => !log.includes(`done pipeline.candidates ${id}`));
  }

  /**
   * SIGKILLs the worker when its log next matches pattern, but only inside a job: the worker
   * is frozen (SIGSTOP) as the line arrives and its log read, and if the job already finished
   * (a short job can end before the signal) it is thawed and the next job is tried.
   */
  async function killMidJob(worker: CliProcess, pattern: RegExp): Promise<number | string> {
    for (let from = 0; ;) {
      await worker.stopWhen(pattern, 60_000, from);
      await new Promise((r) => setTimeout(r, 100)); // read what it wrote before it stopped
      if (unfinishedJobs(worker.output()).length > 0) return worker.kill('SIGKILL');
      from = worker.output().length;
      worker.proc.kill('SIGCONT');
    }
  }

  // Kill points: as the job starts (reading its inputs), once the base model trains, and
  // once it is trained (the n-best lists being parsed and written).
  for (const [point, pattern] of [
    ['at the start of a job', /start pipeline\.candidates/],
    ['while the base model trains', /training PCFG chart parser/],
    ['while the n-best lists are written', /trained in [\d.]+ s; writing the n-best lists/],
  ] as const) {
    it(`a worker killed with SIGKILL ${point} loses nothing`, async () => {
      const name = `kill-${point.length}`;
      const store = join(tmp.dir, `store-${name}`);
      const victim = await startWorkerProcess(redis.url, store, ['--lock-seconds', '2']);
      workers.push(victim);
      const run = coordinator(name, store);
      expect(await killMidJob(victim, pattern)).toBe('SIGKILL');
      const rescuer = await startWorkerProcess(redis.url, store, ['--lock-seconds', '2']);
      workers.push(rescuer);
      expect(await run.exited(), run.output() + rescuer.output()).toBe(0);
      expect(candidateFiles(join(tmp.dir, name))).toEqual(reference.files);
      expect(results(join(tmp.dir, name))).toEqual(reference.results);
      // The job the victim had started and not finished was finished by the rescuer. The
      // coordinator waits for the steps' outputs, not for the queue: a victim killed after
      // writing its outputs leaves a stalled job that the rescuer completes after the
      // coordinator has exited, so the queue is counted once the rescuer is done.
      const interrupted = unfinishedJobs(victim.output());
      expect(interrupted).toHaveLength(1);
      await rescuer.waitFor(new RegExp(`done pipeline\\.candidates ${interrupted[0]}`), 10_000);
      expect(await completedJobs('pipeline.candidates')).toBe(4);
    });
  }

  it('SIGTERM stops a worker after the job it is running; nothing is lost', async () => {
    const store = join(tmp.dir, 'store-term');
    const first = await startWorkerProcess(redis.url, store);
    workers.push(first);
    const run = coordinator('term', store);
    // Frozen at the line, so the signal lands inside that job, then thawed to handle it.
    await first.stopWhen(/training PCFG chart parser/);
    const running = /start pipeline\.candidates (\S+)/.exec(first.output())?.[1] as string;
    first.proc.kill('SIGTERM');
    first.proc.kill('SIGCONT');
    expect(await first.exited()).toBe(0);
    expect(first.output()).toContain(`done pipeline.candidates ${running}`);
    expect(first.output().match(/start pipeline\.candidates/g)).toHaveLength(1);
    workers.push(await startWorkerProcess(redis.url, store));
    expect(await run.exited(), run.output()).toBe(0);
    expect(results(join(tmp.dir, 'term'))).toEqual(reference.results);
    expect(await completedJobs('pipeline.candidates')).toBe(4);
  });

  it('a coordinator killed and restarted resumes from the jobs it queued; no job runs twice', async () => {
    const store = join(tmp.dir, 'store-restart');
    const first = coordinator('restart', store);
    await first.waitFor(/queued 4 candidates job/);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    const w = await startWorkerProcess(redis.url, store);
    workers.push(w);
    await w.waitFor(/done pipeline\.candidates train-fold1of3/);
    const second = coordinator('restart', store);
    expect(await second.exited(), second.output()).toBe(0);
    expect(candidateFiles(join(tmp.dir, 'restart'))).toEqual(reference.files);
    expect(results(join(tmp.dir, 'restart'))).toEqual(reference.results);
    expect(w.output().match(/start pipeline\.candidates/g)).toHaveLength(4);
    expect(await completedJobs('pipeline.candidates')).toBe(4);
  });

  it('a job with bad input or a path outside the store fails once, with its message, and the worker goes on', async () => {
    const store = join(tmp.dir, 'store-bad');
    const w = await startWorkerProcess(redis.url, store);
    workers.push(w);
    const artifacts = new ArtifactStore(store);
    const good = artifacts.put(readFileSync(join(gum, 'dev.mrg')));
    const broken = artifacts.put('(S (NP (DT the) (NN dog)) (VP (VBZ barks))\n');
    const payload = (train: string, step: string): CandidatesPayload => ({
      step,
      task: 'parse',
      data: {
        format: 'trees',
        columns: ['word', 'pos', 'tag'],
        label: 'tag',
        trainLimit: 20,
        devLimit: 5,
        testLimit: 5,
      },
      inputs: { train, dev: good, test: good },
      base: {},
      nbest: 2,
      folds: 2,
      fold: 0,
      seed: 1,
    });
    const queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port: redis.port } });
    try {
      const opts = { attempts: 3, backoff: { type: 'fixed', delay: 100 } };
      const outside = await queue.add(
        'pipeline.candidates',
        { ...payload(good, 'outside'), inputs: { train: '../../etc/passwd', dev: good, test: good } },
        opts,
      );
      const namedText = await queue.add(
        'pipeline.candidates',
        { ...payload(good, 'named-text'), base: { clusterText: '/etc/hostname' } },
        opts,
      );
      const badData = await queue.add('pipeline.candidates', payload(broken, 'bad-data'), opts);
      const notAJob = await queue.add('rm -rf /', { n: 1 }, opts);
      const fine = await queue.add('pipeline.candidates', payload(good, 'fine'), opts);
      for (let i = 0; i < 600 && (await fine.getState()) !== 'completed'; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await fine.getState()).toBe('completed');
      for (const [job, message] of [
        [outside, /inputs\.train: expected a SHA-256 naming an artifact in the store \(paths are refused\)/],
        [namedText, /base\.clusterText: expected "train" \(a text file travels as inputs\.clusterText\)/],
        [badData, /blobs\/[0-9a-f]{2}\/[0-9a-f]{64}:1: unbalanced brackets/],
        [notAJob, /unknown job kind/],
      ] as const) {
        const j = await queue.getJob(job.id as string);
        expect(await j?.getState()).toBe('failed');
        expect(j?.attemptsMade).toBe(1);
        expect(j?.failedReason).toMatch(message);
      }
      expect(artifacts.readManifest('fine')).toBeDefined();
    } finally {
      await queue.close();
    }
  });
});
