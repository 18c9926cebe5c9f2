/**
 * Distributed training benchmarks (the `dist` part of bench/distributed.ts; also runnable
 * alone: npx tsx bench/distributed-train.ts [crf|mixing|parser|rerank-mixing|all], default all; needs
 * redis-server for crf and the shared conll2000 data).
 *
 * crf: per-iteration overhead of CRF chunker training on conll2000 (L-BFGS, c2 = 1): one
 *   process with 2 threads against the coordinator in this process and 2 worker processes
 *   with 1 thread each (2 gradient shards). Both runs take the same iterations (the same
 *   trajectory up to summation order); the time per iteration is measured from the end of
 *   the first iteration (which includes building the corpus) to the last. Also the bytes
 *   moved per objective evaluation (the weights to each worker, a gradient back from each).
 *   BENCH_CRF_ITERS (default 10), BENCH_CRF_TRAIN (sentences, default all), BENCH_CRF_COPIES
 *   (the training set that many times over, default 1: how the overhead falls as the work per
 *   evaluation grows and the weights stay the same).
 * mixing: accuracy of the perceptron chunker on conll2000 trained by iterative parameter
 *   mixing (in process; as jobs it gives the same model, see test/distributed/distributed-train.test.ts)
 *   against the single-machine perceptron, at the same epochs (BENCH_MIX_EPOCHS, default 10),
 *   no early stopping: chunk F1 on dev and test.
 * parser: the CRF parser (`--crf --lbfgs`) on ptb-sample trees of at most BENCH_PARSER_MAXLEN
 *   words (default 15), BENCH_PARSER_ITERS L-BFGS iterations (default 3), 2^22 surface
 *   weights: one process (1 thread) against 2 worker processes x 1 thread (2 shards). Bytes
 *   moved per evaluation (weights read by the workers, result blobs written and read), and
 *   what the dense form (every shard reads the weights, every gradient dense) would move;
 *   CPU seconds of the local run, the coordinator and each worker; the largest weight
 *   difference against local training (the 1e-7 (1 + |w|) tolerance).
 * rerank-mixing: accuracy of a perceptron reranker trained by iterative parameter mixing
 *   (in process; as jobs it gives the same model bytes) against the single-machine
 *   perceptron on real n-best lists: BENCH_RERANK_TRAIN, BENCH_RERANK_DEV, BENCH_RERANK_TEST
 *   (n-best files, e.g. a pipeline run's jackknifed lists), BENCH_RERANK_KERNEL (default
 *   linear), BENCH_MIX_EPOCHS (default 10); averaged prediction, F1 on dev and test.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readConllSync } from '../lib/io/conll.js';
import { Tagger, type TaggerTrainOptions, type TokenRows } from '../lib/tagger/tagger.js';
import { scoreTags } from '../lib/tagger/dev-score.js';
import {
  crfGradientTrainer,
  localExecutor,
  queueExecutor,
  type ExecutorTimings,
  type GradientStats,
  type ShardExecutor,
} from '../lib/distributed/gradient.js';
import { mixingTrainer, type MixWeighting } from '../lib/distributed/mixing.js';
import { ArtifactStore } from '../lib/distributed/store.js';
import { rerankerMixing } from '../lib/distributed/rerank-mixing.js';
import { readNbestSync } from '../lib/io/nbest.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { ChartParserModel, type ParserTrainOptions } from '../lib/parser/chart-parser.js';
import { treeWords } from '../lib/parser/input.js';
import { parserGradientTrainer } from '../lib/distributed/parser-gradient.js';
import { PerceptronReranker, type PerceptronKernel, type PerceptronTrainOptions } from '../lib/rerank/perceptron.js';
import { dataFile } from '../test-support/shared-data.js';
import { startRedis, startWorkerProcess, type TestRedis } from '../test-support/distributed.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const read = (name: string): TokenRows[] =>
  readConllSync(dataFile('conll2000', name), { columns: 3 }).map((s) => s.rows);
const chunker = { columns: ['word', 'pos', 'chunk'], label: 'chunk' };
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** Seconds per iteration after the first, from the progress events. */
async function timedTraining(
  train: TokenRows[],
  options: TaggerTrainOptions,
): Promise<{ perIteration: number; iterations: number; tagger: Tagger }> {
  const marks: number[] = [];
  const tagger = await Tagger.train(train, { ...options, onProgress: () => marks.push(performance.now()) });
  const n = marks.length;
  return { perIteration: n > 1 ? (marks[n - 1] - marks[0]) / 1000 / (n - 1) : NaN, iterations: n, tagger };
}

export async function crfTrainingOverhead(redis: TestRedis): Promise<void> {
  const iterations = Number(process.env.BENCH_CRF_ITERS ?? 10);
  const all = read('train.txt');
  const copies = Number(process.env.BENCH_CRF_COPIES ?? 1);
  const train = Array.from({ length: copies }, () =>
    all.slice(0, Number(process.env.BENCH_CRF_TRAIN ?? all.length)),
  ).flat();
  const options: TaggerTrainOptions = { ...chunker, algo: 'crf', templates: 'chunk', epochs: iterations, patience: 0 };
  console.log(
    `CRF chunker, conll2000: ${train.length} sentences${copies > 1 ? ` (the training set ${copies} times: the same weights, ${copies} times the gradient work)` : ''}, ${iterations} L-BFGS iterations; load average ${load()}`,
  );
  const local = await timedTraining(train, { ...options, threads: 2 });
  console.log(`  one process, 2 threads: ${(local.perIteration * 1000).toFixed(0)} ms per iteration`);
  const single = await timedTraining(train, { ...options, threads: 1 });
  console.log(
    `  one process, 1 thread: ${(single.perIteration * 1000).toFixed(0)} ms per iteration (a shard's job computes about half of this)`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-crf-'));
  const workers = [await startWorkerProcess(redis.url, dir), await startWorkerProcess(redis.url, dir)];
  try {
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    let evaluationsAtFirst = 0;
    // The timings at the end of the first iteration: the breakdown below is of the later ones,
    // as the per-iteration time is (the first includes the workers' building of the corpus).
    let atFirst: { seconds: number; timings: ExecutorTimings } | undefined;
    let features = 0;
    let executorRef: ShardExecutor | undefined;
    const remote = await timedTraining(train, {
      ...options,
      threads: 1,
      external: async (spec) => {
        const executor = await queueExecutor(spec, 2, { redis: redis.url, store: new ArtifactStore(dir) });
        executorRef = executor;
        const trainer = crfGradientTrainer(spec, executor, stats);
        return {
          async step(initial) {
            const r = await trainer.step(() => {
              const w = initial();
              features = w.length;
              return w;
            });
            if (evaluationsAtFirst === 0) {
              evaluationsAtFirst = stats.evaluations;
              if (executor.timings) atFirst = { seconds: stats.seconds, timings: { ...executor.timings } };
            }
            return r;
          },
          saveState: () => trainer.saveState(),
          loadState: (bytes) => trainer.loadState(bytes),
          close: () => trainer.close(),
        };
      },
    });
    const evaluations = stats.evaluations - evaluationsAtFirst;
    const perEvaluation = stats.bytesMoved / stats.evaluations;
    console.log(
      `  2 worker processes x 1 thread (2 shards): ${(remote.perIteration * 1000).toFixed(0)} ms per iteration (${(evaluations / Math.max(1, remote.iterations - 1)).toFixed(2)} evaluations per iteration)`,
    );
    console.log(`  overhead: ${((remote.perIteration / local.perIteration - 1) * 100).toFixed(1)}% per iteration`);
    console.log(
      `  ${features} weights: ${(perEvaluation / 1e6).toFixed(2)} MB moved per evaluation (weights to 2 workers, 2 gradients back), ${((perEvaluation * stats.evaluations) / remote.iterations / 1e6).toFixed(2)} MB per iteration`,
    );
    const end = executorRef?.timings;
    if (end && atFirst && evaluations > 0) {
      const t0 = atFirst.timings;
      const t = {
        putWeights: end.putWeights - t0.putWeights,
        flow: end.flow - t0.flow,
        slowestJob: end.slowestJob - t0.slowestJob,
        readResults: end.readResults - t0.readResults,
      };
      const seconds = stats.seconds - atFirst.seconds;
      const per = (x: number): string => `${((x / evaluations) * 1000).toFixed(0)} ms`;
      console.log(
        `  per evaluation (the ${evaluations} after the first iteration): wall ${per(seconds)}; store the weights ${per(t.putWeights)}; queue flow ${per(t.flow)}, of which the slowest job body ${per(t.slowestJob)} (read weights, gradient, store it) and queue round trip + waiting ${per(t.flow - t.slowestJob)}; read the results ${per(t.readResults)}; add the prior and the gradients ${per(seconds - t.putWeights - t.flow - t.readResults)}`,
      );
    }
    console.log(`  load average after: ${load()}`);
  } finally {
    for (const w of workers) await w.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function mixingAccuracy(): Promise<void> {
  const epochs = Number(process.env.BENCH_MIX_EPOCHS ?? 10);
  const train = read('train.txt');
  const dev = read('dev.txt');
  const test = read('test.txt');
  const options: TaggerTrainOptions = { ...chunker, algo: 'perceptron', templates: 'chunk', epochs, threads: 1 };
  const f1 = async (t: Tagger, set: TokenRows[]): Promise<number> =>
    scoreTags(
      set.map((s) => s.map((r) => r[2])),
      await t.tag(set, { threads: 1 }),
      true,
    ).value;
  console.log(
    `perceptron chunker, conll2000: ${train.length} training sentences, ${epochs} epochs, no early stopping; load average ${load()}`,
  );
  const report = async (name: string, o: TaggerTrainOptions): Promise<void> => {
    const t0 = performance.now();
    const t = await Tagger.train(train, o);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `  ${name}: dev F1 ${(await f1(t, dev)).toFixed(2)}, test F1 ${(await f1(t, test)).toFixed(2)} (${s.toFixed(1)} s)`,
    );
  };
  await report('single machine', options);
  for (const shards of [2, 4, 8]) {
    for (const weighting of ['uniform', 'updates'] as MixWeighting[]) {
      await report(`mixing, ${shards} shards, ${weighting}`, {
        ...options,
        external: async (spec) => mixingTrainer(spec, localExecutor(spec, shards, 1), weighting),
      });
    }
  }
}

export async function rerankMixingAccuracy(): Promise<void> {
  const file = (name: string): string => {
    const f = process.env[name];
    if (f === undefined) throw new Error(`rerank-mixing: set ${name} to an n-best file`);
    return f;
  };
  const epochs = Number(process.env.BENCH_MIX_EPOCHS ?? 10);
  const kernel = (process.env.BENCH_RERANK_KERNEL ?? 'linear') as PerceptronKernel;
  const train = readNbestSync(file('BENCH_RERANK_TRAIN'));
  const dev = readNbestSync(file('BENCH_RERANK_DEV'));
  const test = readNbestSync(file('BENCH_RERANK_TEST'));
  const options: PerceptronTrainOptions = { kernel, epochs, threads: 1, prediction: 'averaged' };
  console.log(
    `perceptron reranker (${kernel} kernel, averaged), ${train.length} training lists, ${epochs} epochs; load average ${load()}`,
  );
  const report = async (name: string, o: PerceptronTrainOptions): Promise<void> => {
    const t0 = process.cpuUsage();
    const r = await PerceptronReranker.train(train, o);
    const cpu = process.cpuUsage(t0);
    const d = await r.evaluate(dev, { threads: 1 });
    const t = await r.evaluate(test, { threads: 1 });
    console.log(
      `  ${name}: dev F1 ${d.f1.toFixed(2)} (base ${d.baselineF1.toFixed(2)}), test F1 ${t.f1.toFixed(2)} (base ${t.baselineF1.toFixed(2)}); training ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU s`,
    );
  };
  await report('single machine', options);
  for (const shards of [2, 4, 8]) {
    for (const weighting of ['uniform', 'updates'] as MixWeighting[]) {
      await report(`mixing, ${shards} shards, ${weighting}`, {
        ...options,
        mixing: rerankerMixing({ shards, weighting, seed: 1, threads: 1 }),
      });
    }
  }
}

/** User + system CPU seconds of a process, from /proc (Linux). */
function processCpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (fields 14, 15) in clock ticks
}

export async function parserCrfBytes(redis: TestRedis): Promise<void> {
  const maxLength = Number(process.env.BENCH_PARSER_MAXLEN ?? 15);
  const iterations = Number(process.env.BENCH_PARSER_ITERS ?? 3);
  const trees = readTreesSync(dataFile('ptb-sample', 'train.mrg')).filter((t) => treeWords(t).length <= maxLength);
  const options: ParserTrainOptions = { crf: true, optimizer: 'lbfgs', threads: 1, epochs: iterations };
  console.log(
    `CRF parser, ptb-sample: ${trees.length} trees <= ${maxLength} words, ${iterations} L-BFGS iterations; load average ${load()}`,
  );
  let cpu = process.cpuUsage();
  const local = await ChartParserModel.train(trees, options);
  cpu = process.cpuUsage(cpu);
  console.log(`  one process, 1 thread: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU s`);
  const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-parser-'));
  const workers = [await startWorkerProcess(redis.url, dir), await startWorkerProcess(redis.url, dir)];
  try {
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    const before = workers.map((w) => processCpuSeconds(w.proc.pid));
    cpu = process.cpuUsage();
    const remote = await ChartParserModel.train(trees, {
      ...options,
      external: async (spec) =>
        parserGradientTrainer(
          spec,
          await queueExecutor(spec, 2, {
            redis: redis.url,
            store: new ArtifactStore(dir),
            gradientKind: 'train.parser-gradient',
          }),
          stats,
        ),
    });
    cpu = process.cpuUsage(cpu);
    const workerCpu = workers.map((w, i) => processCpuSeconds(w.proc.pid) - before[i]);
    const a = (local as unknown as { handle: { crfWeights(): Float64Array } }).handle.crfWeights();
    const b = (remote as unknown as { handle: { crfWeights(): Float64Array } }).handle.crfWeights();
    let worst = 0;
    for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]) / (1 + Math.abs(a[k])));
    const dense = 2 * 8 * a.length + 2 * 8 * (a.length + 1);
    const per = stats.bytesMoved / stats.evaluations;
    console.log(
      `  2 worker processes x 1 thread (2 shards): coordinator ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU s, workers ${workerCpu.map((x) => x.toFixed(1)).join(' + ')} CPU s; ${stats.evaluations} evaluations`,
    );
    console.log(
      `  ${a.length} weights: ${(per / 1e6).toFixed(1)} MB moved per evaluation (dense form: ${(dense / 1e6).toFixed(1)} MB); largest |a - b| / (1 + |a|) = ${worst.toExponential(1)}`,
    );
    console.log(`  load average after: ${load()}`);
  } finally {
    for (const w of workers) await w.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const part = process.argv[2] ?? 'all';
  if (part === 'mixing' || part === 'all') await mixingAccuracy();
  if (part === 'rerank-mixing') await rerankMixingAccuracy();
  if (part === 'parser') {
    const redis = await startRedis();
    try {
      await parserCrfBytes(redis);
    } finally {
      await redis.stop();
    }
  }
  if (part === 'crf' || part === 'all') {
    const redis = await startRedis();
    try {
      await crfTrainingOverhead(redis);
    } finally {
      await redis.stop();
    }
  }
}
