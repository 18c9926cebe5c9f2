/**
 * Distributed mode benchmark (needs redis-server and a built dist/: npm run build:ts and the
 * native addon). A private redis-server on 127.0.0.1 at a free port; worker processes of the CLI.
 *
 *   npx tsx bench/distributed.ts [overhead] [jackknife] [boost] [crf]    (default: all four)
 *
 *  overhead   Per-job overhead: empty jobs through one worker process, one at a time (queue
 *             round trip: add, take, run, complete, notice) and 500 at once (throughput).
 *  jackknife  Jackknife n-best generation on ptb-sample (k = 10 folds, PCFG 10-best): the
 *             pipeline's candidate steps on 1 worker process with 1 thread, then on 2 worker
 *             processes with 1 thread each; prints the wall-clock ratio (the speed-up), the
 *             workers' CPU seconds and how busy the machine was (other processes included).
 *  boost      Boosting (which stays on one machine) on ptb-sample 20-best lists:
 *             train-reranker --method boost (feature extraction included), 1 thread, wall and
 *             CPU seconds.
 *             The lists are the cache of `structrank pipeline --config bench/ptb20-pipeline.json
 *             --output bench/out/ptb20/run` (BENCH_PTB20 names another run folder); made first
 *             when missing (minutes).
 *  crf        CRF chunker training on conll2000, 2 worker processes against one process with 2
 *             threads: per-iteration overhead and bytes moved (bench/distributed-train.ts, which
 *             also runs alone and measures parameter mixing's accuracy).
 *
 * Environment: BENCH_TRAIN (training sentences, default all 3,139 of ptb-sample, of which those of at most BENCH_MAXLEN words are used), BENCH_MAXLEN (default 40: all of ptb-sample, as the 20-best lists of docs/benchmarks.md),
 * BENCH_FOLDS (default 10), BENCH_REPEAT (runs of each jackknife setting, alternating; the
 * fastest counts; default 1), BENCH_JOBS (empty jobs, default 200), BENCH_ROUNDS (boosting
 * rounds, default 5000), BENCH_HEAP_MB (V8 heap of the boost section's process, default 8192:
 * extracting the 20-best lists' features holds every candidate's names and needs more than
 * Node's default 4 GB).
 * Sections are separate functions.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { QUEUE_NAME } from '../lib/distributed/connection.js';
import { dataFile, repoRoot } from '../test-support/shared-data.js';
import {
  startCli,
  startRedis,
  startWorkerProcess,
  type CliProcess,
  type TestRedis,
} from '../test-support/distributed.js';
import { crfTrainingOverhead } from './distributed-train.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** CPU seconds (user + system) a live process has used, from /proc (Linux; 0 elsewhere). */
function processCpu(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (CLK_TCK 100)
  } catch {
    return 0;
  }
}

/** Busy and total CPU seconds of the whole machine so far (all cores), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = cpu.reduce((a, b) => a + b, 0) / 100;
    const idle = (cpu[3] + (cpu[4] ?? 0)) / 100;
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

interface Context {
  dir: string;
  redis(): Promise<TestRedis>;
}

/** Per-job overhead of an empty job. */
async function benchOverhead(ctx: Context): Promise<void> {
  const nJobs = env('BENCH_JOBS', 200);
  const redis = await ctx.redis();
  const connection = { host: '127.0.0.1', port: redis.port };
  const worker = await startWorkerProcess(redis.url, join(ctx.dir, 'store-empty'));
  const queue = new Queue(QUEUE_NAME, { connection });
  const events = new QueueEvents(QUEUE_NAME, { connection });
  try {
    await events.waitUntilReady();
    for (let i = 0; i < 20; i++) await (await queue.add('empty', { n: i })).waitUntilFinished(events); // warm-up
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < nJobs; i++) await (await queue.add('empty', { n: i })).waitUntilFinished(events);
    const serial = ms(t0) / nJobs;
    t0 = process.hrtime.bigint();
    const batch = await queue.addBulk(Array.from({ length: 500 }, (_, i) => ({ name: 'empty', data: { n: i } })));
    for (const job of batch) await job.waitUntilFinished(events);
    const bulk = ms(t0) / 500;
    console.log(
      `overhead: empty job, one at a time: ${serial.toFixed(2)} ms per job (${nJobs} jobs, 1 worker process)`,
    );
    console.log(
      `overhead: empty jobs, 500 queued at once: ${bulk.toFixed(2)} ms per job (throughput ${(1000 / bulk).toFixed(0)} jobs/s)`,
    );
  } finally {
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await worker.kill('SIGTERM');
  }
}

interface RunTimes {
  wall: number;
  /** CPU seconds of each worker process during the run. */
  workerCpu: number[];
  /** CPU seconds of the coordinator process (start-up, reading and storing data, merging). */
  coordinatorCpu: number;
  /** CPU seconds the whole machine was busy (every process). */
  machineBusy: number;
}

/** One pipeline run's candidate steps on `workers` worker processes of 1 thread. */
async function jackknifeRun(
  ctx: Context,
  redis: TestRedis,
  config: string,
  workers: number,
  run: number,
): Promise<RunTimes> {
  const store = join(ctx.dir, `store-${workers}-${run}`);
  const procs: CliProcess[] = [];
  for (let i = 0; i < workers; i++) procs.push(await startWorkerProcess(redis.url, store));
  const cpu0 = procs.map((p) => processCpu(p.proc.pid));
  const m0 = machineCpu();
  const t0 = process.hrtime.bigint();
  const coordinator = startCli([
    'pipeline',
    '--config',
    config,
    '--output',
    join(ctx.dir, `out-${workers}-${run}`),
    '--redis',
    redis.url,
    '--store',
    store,
    '--quiet',
  ]);
  // /proc of the coordinator is gone once it exits: keep its last reading.
  let coordinatorCpu = 0;
  const poll = setInterval(() => (coordinatorCpu = Math.max(coordinatorCpu, processCpu(coordinator.proc.pid))), 50);
  const code = await coordinator.exited();
  clearInterval(poll);
  const wall = ms(t0) / 1000;
  const m1 = machineCpu();
  const workerCpu = procs.map((p, i) => processCpu(p.proc.pid) - cpu0[i]);
  for (const p of procs) await p.kill('SIGTERM');
  if (code !== 0) throw new Error(`pipeline failed:\n${coordinator.output()}`);
  return { wall, workerCpu, coordinatorCpu, machineBusy: m1.busy - m0.busy };
}

/** Jackknife n-best generation: 2 workers x 1 thread against 1 worker x 1 thread. */
async function benchJackknife(ctx: Context): Promise<void> {
  const nTrain = env('BENCH_TRAIN', 3139);
  const maxLength = env('BENCH_MAXLEN', 40);
  const folds = env('BENCH_FOLDS', 10);
  const repeat = env('BENCH_REPEAT', 1);
  const redis = await ctx.redis();
  const config = join(ctx.dir, 'pipeline.json');
  // Dev and test of one sentence each: the dev-test job (the base model on all of train) is
  // then small beside the k fold jobs, and the run measures the jackknife itself.
  writeFileSync(
    config,
    JSON.stringify({
      task: 'parse',
      data: {
        train: dataFile('ptb-sample', 'train.mrg'),
        dev: dataFile('ptb-sample', 'dev.mrg'),
        test: dataFile('ptb-sample', 'test.mrg'),
        maxLength,
        trainLimit: nTrain,
        devLimit: 1,
        testLimit: 1,
      },
      folds,
      nbest: 10,
      // The PCFG's plain 10-best (no larger pool), as scaling.md's figures were measured.
      base: { crf: false, kbest: 'all' },
      rerankers: [],
      threads: 1,
    }),
  );
  const best: Record<number, RunTimes> = {};
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  for (let r = 0; r < repeat; r++) {
    for (const workers of [1, 2]) {
      const t = await jackknifeRun(ctx, redis, config, workers, r);
      const ours = sum(t.workerCpu) + t.coordinatorCpu;
      console.log(
        `jackknife: ${folds} folds, ${nTrain} ptb-sample sentences <= ${maxLength} words, PCFG 10-best, ${workers} worker(s) x 1 thread: ` +
          `${t.wall.toFixed(1)} s wall; CPU s: workers ${t.workerCpu.map((c) => c.toFixed(1)).join(' + ')}, coordinator ${t.coordinatorCpu.toFixed(1)}; ` +
          `machine busy ${(t.machineBusy / t.wall).toFixed(2)} cores, of which other processes ${Math.max(0, (t.machineBusy - ours) / t.wall).toFixed(2)}; load average ${load()}`,
      );
      if (best[workers] === undefined || t.wall < best[workers].wall) best[workers] = t;
    }
  }
  console.log(
    `jackknife: speed-up, 2 workers over 1: ${(best[1].wall / best[2].wall).toFixed(2)}x wall (goal >= 1.8; meaningful only on an otherwise idle machine)`,
  );
  // What the CPU seconds allow when nothing else runs: the coordinator's work, then the busier worker.
  const cpuModel =
    (best[1].coordinatorCpu + sum(best[1].workerCpu)) / (best[2].coordinatorCpu + Math.max(...best[2].workerCpu));
  console.log(
    `jackknife: CPU-time bound on an idle machine (coordinator + all jobs over coordinator + the busier worker): ${cpuModel.toFixed(2)}x`,
  );
}

/** Wall and CPU seconds of a CLI command (GNU time), failing loudly. */
function timedCli(args: string[]): { wall: number; cpu: number; stdout: string } {
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '@@time %U %S %e',
      process.execPath,
      `--max-old-space-size=${env('BENCH_HEAP_MB', 8192)}`,
      join(repoRoot, 'dist', 'cli.js'),
      ...args,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stderr}`);
  const m = /@@time (\S+) (\S+) (\S+)/.exec(r.stderr);
  if (!m) throw new Error(`no timing from /usr/bin/time:\n${r.stderr}`);
  return { cpu: Number(m[1]) + Number(m[2]), wall: Number(m[3]), stdout: r.stdout };
}

/** Boosting on the ptb-sample 20-best lists: the sequential part that stays on one machine. */
async function benchBoost(ctx: Context): Promise<void> {
  const rounds = env('BENCH_ROUNDS', 5000);
  const run = process.env.BENCH_PTB20 ?? join(repoRoot, 'bench', 'out', 'ptb20', 'run');
  const cache = join(run, 'cache');
  const steps = (): string[] => (existsSync(cache) ? readdirSync(cache) : []);
  if (!steps().some((s) => s.startsWith('dev-test-') && !s.endsWith('.partial'))) {
    console.log(
      `boost: making the 20-best lists: structrank pipeline --config bench/ptb20-pipeline.json --output ${run}`,
    );
    timedCli(['pipeline', '--config', join(repoRoot, 'bench', 'ptb20-pipeline.json'), '--output', run, '--quiet']);
  }
  const folds = steps()
    .filter((s) => /^train-fold\d+of\d+-/.test(s) && !s.endsWith('.partial'))
    .sort();
  const devTest = steps().find((s) => s.startsWith('dev-test-') && !s.endsWith('.partial')) as string;
  const train = join(ctx.dir, 'ptb20-train.jsonl');
  writeFileSync(train, folds.map((f) => readFileSync(join(cache, f, 'nbest.jsonl'), 'utf8')).join(''));
  const dev = join(cache, devTest, 'dev.jsonl');
  // train-reranker extracts the features itself (the tree templates, count cutoff 5), then boosts.
  const b = timedCli([
    'train-reranker',
    '--method',
    'boost',
    '--train',
    train,
    '--dev',
    dev,
    '--cutoff',
    '5',
    '--rounds',
    String(rounds),
    '--eps',
    '0.0025',
    '--model',
    join(ctx.dir, 'boost.model'),
    '--threads',
    '1',
    '--quiet',
  ]);
  console.log(`boost: ${b.stdout.trim()}`);
  console.log(
    `boost: train-reranker --method boost on ${folds.length} folds' 20-best lists, ${rounds} rounds, eps 0.0025, 1 thread, features included: ` +
      `${b.wall.toFixed(1)} s wall, ${b.cpu.toFixed(1)} CPU s (load average ${load()})`,
  );
}

const sections: Record<string, (ctx: Context) => Promise<void>> = {
  overhead: benchOverhead,
  jackknife: benchJackknife,
  boost: benchBoost,
  // (dist) Distributed CRF training: its own function, bench/distributed-train.ts.
  crf: async (ctx) => crfTrainingOverhead(await ctx.redis()),
};
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(sections);
for (const name of wanted)
  if (!(name in sections)) throw new Error(`unknown section '${name}' (have: ${Object.keys(sections).join(', ')})`);

const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-dist-'));
let redis: TestRedis | undefined;
const ctx: Context = { dir, redis: async () => (redis ??= await startRedis()) };
console.log(`load average before: ${load()}`);
try {
  for (const name of wanted) await sections[name](ctx);
  console.log(`load average after: ${load()}`);
} finally {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
}
