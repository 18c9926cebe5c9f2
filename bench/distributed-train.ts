/**
 * Distributed training benchmarks (the `dist` part of bench/distributed.ts; also runnable
 * alone: npx tsx bench/distributed-train.ts [crf|mixing|all], default all; needs
 * redis-server for crf and the shared conll2000 data).
 *
 * crf: per-iteration overhead of CRF chunker training on conll2000 (L-BFGS, c2 = 1): one
 *   process with 2 threads against the coordinator in this process and 2 worker processes
 *   with 1 thread each (2 gradient shards). Both runs take the same iterations (the same
 *   trajectory up to summation order); the time per iteration is measured from the end of
 *   the first iteration (which includes building the corpus) to the last. Also the bytes
 *   moved per objective evaluation (the weights to each worker, a gradient back from each).
 *   BENCH_CRF_ITERS (default 10), BENCH_CRF_TRAIN (sentences, default all).
 * mixing: accuracy of the perceptron chunker on conll2000 trained by iterative parameter
 *   mixing (in process; as jobs it gives the same model, see test/distributed-train.test.ts)
 *   against the single-machine perceptron, at the same epochs (BENCH_MIX_EPOCHS, default 10),
 *   no early stopping: chunk F1 on dev and test.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readConllSync } from '../lib/io/conll.js';
import { Tagger, type TaggerTrainOptions, type TokenRows } from '../lib/tagger/tagger.js';
import { scoreTags } from '../lib/tagger/dev-score.js';
import { crfGradientTrainer, localExecutor, queueExecutor, type GradientStats, type ShardExecutor } from '../lib/distributed/gradient.js';
import { mixingTrainer, type MixWeighting } from '../lib/distributed/mixing.js';
import { ArtifactStore } from '../lib/distributed/store.js';
import { dataFile } from '../test/helpers.js';
import { startRedis, startWorkerProcess, type TestRedis } from '../test/distributed-helpers.js';

const read = (name: string): TokenRows[] => readConllSync(dataFile('conll2000', name), { columns: 3 }).map((s) => s.rows);
const chunker = { columns: ['word', 'pos', 'chunk'], label: 'chunk' };
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

/** Seconds per iteration after the first, from the progress events. */
async function timedTraining(train: TokenRows[], options: TaggerTrainOptions): Promise<{ perIteration: number; iterations: number; tagger: Tagger }> {
  const marks: number[] = [];
  const tagger = await Tagger.train(train, { ...options, onProgress: () => marks.push(performance.now()) });
  const n = marks.length;
  return { perIteration: n > 1 ? (marks[n - 1] - marks[0]) / 1000 / (n - 1) : NaN, iterations: n, tagger };
}

export async function crfTrainingOverhead(redis: TestRedis): Promise<void> {
  const iterations = Number(process.env.BENCH_CRF_ITERS ?? 10);
  const all = read('train.txt');
  const train = all.slice(0, Number(process.env.BENCH_CRF_TRAIN ?? all.length));
  const options: TaggerTrainOptions = { ...chunker, algo: 'crf', templates: 'chunk', epochs: iterations, patience: 0 };
  console.log(`CRF chunker, conll2000: ${train.length} sentences, ${iterations} L-BFGS iterations; load average ${load()}`);
  const local = await timedTraining(train, { ...options, threads: 2 });
  console.log(`  one process, 2 threads: ${(local.perIteration * 1000).toFixed(0)} ms per iteration`);

  const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-crf-'));
  const workers = [await startWorkerProcess(redis.url, dir), await startWorkerProcess(redis.url, dir)];
  try {
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    let evaluationsAtFirst = 0;
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
            features = initial.length;
            const r = await trainer.step(initial);
            if (evaluationsAtFirst === 0) evaluationsAtFirst = stats.evaluations;
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
    console.log(`  2 worker processes x 1 thread (2 shards): ${(remote.perIteration * 1000).toFixed(0)} ms per iteration (${(evaluations / Math.max(1, remote.iterations - 1)).toFixed(2)} evaluations per iteration)`);
    console.log(`  overhead: ${((remote.perIteration / local.perIteration - 1) * 100).toFixed(1)}% per iteration`);
    console.log(`  ${features} weights: ${(perEvaluation / 1e6).toFixed(2)} MB moved per evaluation (weights to 2 workers, 2 gradients back), ${((perEvaluation * stats.evaluations) / remote.iterations / 1e6).toFixed(2)} MB per iteration`);
    const t = executorRef?.timings;
    if (t) {
      const per = (x: number): string => `${((x / stats.evaluations) * 1000).toFixed(0)} ms`;
      console.log(`  per evaluation (all ${stats.evaluations}, the first included): wall ${per(stats.seconds)}; store the weights ${per(t.putWeights)}; queue flow ${per(t.flow)}, of which the slowest job body ${per(t.slowestJob)} (read weights, gradient, store it) and queue round trip + waiting ${per(t.flow - t.slowestJob)}; read the results ${per(t.readResults)}; add the prior and the gradients ${per(stats.seconds - t.putWeights - t.flow - t.readResults)}`);
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
  const f1 = async (t: Tagger, set: TokenRows[]): Promise<number> => scoreTags(set.map((s) => s.map((r) => r[2])), await t.tag(set, { threads: 1 }), true).value;
  console.log(`perceptron chunker, conll2000: ${train.length} training sentences, ${epochs} epochs, no early stopping; load average ${load()}`);
  const report = async (name: string, o: TaggerTrainOptions): Promise<void> => {
    const t0 = performance.now();
    const t = await Tagger.train(train, o);
    const s = (performance.now() - t0) / 1000;
    console.log(`  ${name}: dev F1 ${(await f1(t, dev)).toFixed(2)}, test F1 ${(await f1(t, test)).toFixed(2)} (${s.toFixed(1)} s)`);
  };
  await report('single machine', options);
  for (const shards of [2, 4, 8]) {
    for (const weighting of ['uniform', 'updates'] as MixWeighting[]) {
      await report(`mixing, ${shards} shards, ${weighting}`, { ...options, external: async (spec) => mixingTrainer(spec, localExecutor(spec, shards, 1), weighting) });
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const part = process.argv[2] ?? 'all';
  if (part === 'mixing' || part === 'all') await mixingAccuracy();
  if (part === 'crf' || part === 'all') {
    const redis = await startRedis();
    try {
      await crfTrainingOverhead(redis);
    } finally {
      await redis.stop();
    }
  }
}
