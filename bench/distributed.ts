/**
 * Distributed mode benchmark: npx tsx bench/distributed.ts (needs redis-server and a built
 * dist/: npm run build:ts). A private redis-server on 127.0.0.1 at a free port.
 *  1. Per-job overhead: empty jobs through one worker process, one at a time (queue round
 *     trip: add, take, run, complete, notice) and 500 at once (throughput).
 *  2. Jackknife n-best generation on ptb-sample (k = 10 folds + dev-test, PCFG 10-best):
 *     the pipeline's candidate steps on 1 worker process with 1 thread, then on 2 worker
 *     processes with 1 thread each; the ratio of wall times is the speed-up.
 *  3. CRF chunker training on conll2000, 2 worker processes against one process with 2
 *     threads: per-iteration overhead and bytes moved (bench/distributed-train.ts, which
 *     also runs alone and measures parameter mixing's accuracy).
 * Environment: BENCH_TRAIN (training sentences, default 500), BENCH_MAXLEN (default 20),
 * BENCH_FOLDS (default 10), BENCH_JOBS (empty jobs, default 200).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { QUEUE_NAME } from '../lib/distributed/connection.js';
import { dataFile } from '../test/helpers.js';
import { startCli, startRedis, startWorkerProcess, type CliProcess } from '../test/distributed-helpers.js';
import { crfTrainingOverhead } from './distributed-train.js';

const nTrain = Number(process.env.BENCH_TRAIN ?? 500);
const maxLength = Number(process.env.BENCH_MAXLEN ?? 20);
const folds = Number(process.env.BENCH_FOLDS ?? 10);
const nJobs = Number(process.env.BENCH_JOBS ?? 200);

const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-dist-'));
const redis = await startRedis();
const connection = { host: '127.0.0.1', port: redis.port };
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;
console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

try {
  // 1. Per-job overhead.
  {
    const worker = await startWorkerProcess(redis.url, join(dir, 'store-empty'));
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    await events.waitUntilReady();
    for (let i = 0; i < 20; i++) await (await queue.add('empty', { n: i })).waitUntilFinished(events); // warm-up
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < nJobs; i++) await (await queue.add('empty', { n: i })).waitUntilFinished(events);
    const serial = ms(t0) / nJobs;
    t0 = process.hrtime.bigint();
    const batch = await queue.addBulk(Array.from({ length: 500 }, (_, i) => ({ name: 'empty', data: { n: i } })));
    for (const job of batch) await job.waitUntilFinished(events);
    const bulk = ms(t0) / 500;
    console.log(`empty job, one at a time: ${serial.toFixed(2)} ms per job (${nJobs} jobs, 1 worker process)`);
    console.log(`empty jobs, 500 queued at once: ${bulk.toFixed(2)} ms per job (throughput ${(1000 / bulk).toFixed(0)} jobs/s)`);
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await worker.kill('SIGTERM');
  }

  // 2. Jackknife candidates on 1 and on 2 worker processes.
  const config = join(dir, 'pipeline.json');
  const heldOut = Math.max(1, Math.floor(nTrain / folds));
  writeFileSync(config, JSON.stringify({
    task: 'parse',
    data: { train: dataFile('ptb-sample', 'train.mrg'), dev: dataFile('ptb-sample', 'dev.mrg'), test: dataFile('ptb-sample', 'test.mrg'), maxLength, trainLimit: nTrain, devLimit: Math.ceil(heldOut / 2), testLimit: Math.ceil(heldOut / 2) },
    folds,
    nbest: 10,
    rerankers: [],
    threads: 1,
    output: join(dir, 'out'),
  }));
  const times: number[] = [];
  for (const n of [1, 2]) {
    const store = join(dir, `store-${n}`);
    const workers: CliProcess[] = [];
    for (let i = 0; i < n; i++) workers.push(await startWorkerProcess(redis.url, store));
    const t0 = process.hrtime.bigint();
    const run = startCli(['pipeline', '--config', config, '--output', join(dir, `out-${n}`), '--redis', redis.url, '--store', store]);
    const code = await run.exited();
    if (code !== 0) throw new Error(`pipeline failed:\n${run.output()}`);
    times.push(ms(t0) / 1000);
    for (const w of workers) await w.kill('SIGTERM');
    console.log(`jackknife ${folds} folds + dev-test, ${nTrain} ptb-sample sentences <= ${maxLength} words, PCFG 10-best: ${n} worker(s) x 1 thread: ${times[times.length - 1].toFixed(1)} s`);
  }
  console.log(`speed-up, 2 workers over 1: ${(times[0] / times[1]).toFixed(2)}x`);
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

  // 3. (dist) Distributed CRF training: its own function, bench/distributed-train.ts.
  await crfTrainingOverhead(redis);
} finally {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
