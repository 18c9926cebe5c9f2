/**
 * CRF parser training spread over workers (`train-parser --crf --lbfgs --redis`): full-batch
 * L-BFGS whose objective is summed over sentence shards. It must give local training's model
 * up to floating-point summation order (the tolerance below), and with one shard the local
 * model's bytes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ChartParserModel,
  type ParserExternalTrainer,
  type ParserTrainOptions,
  type ParserTrainingSpec,
} from '../../lib/parser/chart-parser.js';
import { localParserExecutor, parserGradientTrainer } from '../../lib/distributed/parser-gradient.js';
import type { GradientStats } from '../../lib/distributed/gradient.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { treeWords } from '../../lib/parser/input.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import {
  failedJobLines,
  redisWithTwoWorkers,
  skipWithoutRedis,
  startCli,
  startRedis,
  startWorkerProcess,
} from '../../test-support/distributed.js';

const skip = skipWithoutRedis();
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const short = (file: string, max: number, limit: number): Tree[] =>
  readTreesSync(join(repoRoot, 'data', 'gum-open', file))
    .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= max)
    .slice(0, limit);
const trees = short('train.mrg', 8, 24);
const devTrees = short('dev.mrg', 10, 12);
// 2^12 surface weights, not 2^22: L-BFGS keeps 20 vectors of them.
const base: ParserTrainOptions = { crf: true, optimizer: 'lbfgs', threads: 1, surfaceBits: 12 };

/** The CRF weights of a model (a test-only look inside). */
const weightsOf = (m: ChartParserModel): Float64Array =>
  (m as unknown as { handle: { crfWeights(): Float64Array } }).handle.crfWeights();

/**
 * "Equal up to summation order": per weight |a - b| <= 1e-7 (1 + |a|), as for the CRF tagger.
 * The shards' sums differ from one pass's by rounding (relative 1e-16 per addition), which
 * L-BFGS carries through its iterations far below this bound on this objective.
 */
const TOLERANCE = 1e-7;
function maxRelativeDifference(a: Float64Array, b: Float64Array): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]) / (1 + Math.abs(a[k])));
  return worst;
}

async function parses(m: ChartParserModel): Promise<{ trees: string[]; logprobs: number[] }> {
  const r = await m.parseNbest(
    devTrees.map((t) => treeWords(t)),
    3,
    { threads: 1 },
  );
  return {
    trees: r.flatMap((s) => s.candidates.map((c) => formatTree(c.tree))),
    logprobs: r.flatMap((s) => s.candidates.map((c) => c.logprob)),
  };
}

describe('CRF parser, L-BFGS over shard gradients, in process', () => {
  it('3 shards: the local model up to summation order, the same parses', async () => {
    const local = await ChartParserModel.train(trees, { ...base, epochs: 8 });
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    let seen: ParserTrainingSpec | undefined;
    const sharded = await ChartParserModel.train(trees, {
      ...base,
      epochs: 8,
      external: async (spec) => {
        seen = spec;
        return parserGradientTrainer(spec, localParserExecutor(spec, 3, 1), stats);
      },
    });
    expect(seen?.sentences).toBe(trees.length);
    expect(stats.evaluations).toBeGreaterThan(8); // the start, each iteration, line-search trials
    const a = weightsOf(local);
    const b = weightsOf(sharded);
    expect(maxRelativeDifference(a, b)).toBeLessThanOrEqual(TOLERANCE);
    // Training moved the weights: the test compares trained models, not two starting points.
    const standStill: ParserExternalTrainer = {
      step: async (w) => ({ loss: 0, converged: true, weights: w() }),
      saveState: () => new Uint8Array(),
      loadState: () => new Float64Array(),
      close: async () => {},
    };
    const start = weightsOf(
      await ChartParserModel.train(trees, { ...base, epochs: 1, external: async () => standStill }),
    );
    expect(maxRelativeDifference(a, start)).toBeGreaterThan(1e-3);
    const pa = await parses(local);
    const pb = await parses(sharded);
    expect(pb.trees).toEqual(pa.trees);
    pa.logprobs.forEach((x, i) =>
      expect(Math.abs(x - pb.logprobs[i])).toBeLessThanOrEqual(TOLERANCE * (1 + Math.abs(x))),
    );
  }, 120_000);

  it('1 shard and 1 thread: the same sums in the same order, so the same model bytes', async () => {
    const local = await ChartParserModel.train(trees, { ...base, epochs: 4 });
    const one = await ChartParserModel.train(trees, {
      ...base,
      epochs: 4,
      external: async (spec) => parserGradientTrainer(spec, localParserExecutor(spec, 1, 1)),
    });
    expect(Buffer.from(one.toBytes()).equals(Buffer.from(local.toBytes()))).toBe(true);
  }, 120_000);

  it('checkpoints: 3 iterations, checkpoint, resume to 6 = 6 in one go (with and without dev)', async () => {
    const external: ParserTrainOptions['external'] = async (spec) =>
      parserGradientTrainer(spec, localParserExecutor(spec, 3, 1));
    for (const extra of [{}, { dev: devTrees }]) {
      const bytes = async (o: ParserTrainOptions): Promise<Buffer> =>
        Buffer.from((await ChartParserModel.train(trees, { ...base, ...extra, ...o, external })).toBytes());
      const checkpoint = tmp.file(`parser-${Object.keys(extra).length}.ckpt`);
      const whole = await bytes({ epochs: 6 });
      const first = await bytes({ epochs: 3, checkpoint });
      const resumed = await bytes({ epochs: 6, resume: checkpoint });
      if (!('dev' in extra)) expect(first.equals(whole)).toBe(false);
      expect(resumed.equals(whole)).toBe(true);
    }
    // A local run's checkpoint holds no coordinator state: it does not resume distributed.
    const local = tmp.file('parser-local.ckpt');
    await ChartParserModel.train(trees, { ...base, epochs: 2, checkpoint: local });
    await expect(ChartParserModel.train(trees, { ...base, epochs: 4, resume: local, external })).rejects.toThrow(
      /distributed/,
    );
  }, 180_000);

  it('refuses what it cannot distribute', async () => {
    const external: ParserTrainOptions['external'] = async (spec) =>
      parserGradientTrainer(spec, localParserExecutor(spec, 2, 1));
    await expect(
      ChartParserModel.train(trees, { crf: true, threads: 1, surfaceBits: 12, epochs: 1, external }),
    ).rejects.toThrow(/takes L-BFGS/);
    const r = runCli([
      'train-parser',
      '--crf',
      '--train',
      tmp.file('t.mrg', trees.map((t) => formatTree(t)).join('\n') + '\n'),
      '--model',
      join(tmp.dir, 'x.model'),
      '--redis',
      'redis://127.0.0.1:1',
      '--store',
      join(tmp.dir, 's'),
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--redis trains the CRF with full-batch L-BFGS \(--crf --lbfgs/);
  });
});

describe.skipIf(skip)('train-parser --crf --lbfgs --redis (2 worker processes)', () => {
  const store = join(tmp.dir, 'store');
  const cluster = redisWithTwoWorkers(store);
  const trainFile = join(tmp.dir, 'train.mrg');
  writeFileSync(trainFile, trees.map((t) => formatTree(t)).join('\n') + '\n');
  const args = ['train-parser', '--crf', '--lbfgs', '--train', trainFile, '--surface-bits', '12', '--threads', '1'];

  it('3 shards: the local model up to summation order; 1 shard: its bytes', async () => {
    const localFile = join(tmp.dir, 'local.model');
    const remoteFile = join(tmp.dir, 'remote.model');
    const a = runCli([...args, '--epochs', '6', '--model', localFile]);
    expect(a.status, a.stderr).toBe(0);
    const b = runCli([
      ...args,
      '--epochs',
      '6',
      '--model',
      remoteFile,
      '--redis',
      cluster.redis.url,
      '--store',
      store,
      '--gradient-shards',
      '3',
    ]);
    expect(b.status, b.stderr).toBe(0);
    const local = await ChartParserModel.load(localFile);
    const remote = await ChartParserModel.load(remoteFile);
    expect(maxRelativeDifference(weightsOf(local), weightsOf(remote))).toBeLessThanOrEqual(TOLERANCE);
    const pa = await parses(local);
    const pb = await parses(remote);
    expect(pb.trees).toEqual(pa.trees);
    pa.logprobs.forEach((x, i) =>
      expect(Math.abs(x - pb.logprobs[i])).toBeLessThanOrEqual(TOLERANCE * (1 + Math.abs(x))),
    );
    await new Promise((r) => setTimeout(r, 300)); // the workers' logs
    const jobs = cluster.workers.map((w) => (w.output().match(/done train\.parser-gradient/g) ?? []).length);
    expect(jobs[0] + jobs[1]).toBeGreaterThanOrEqual(3 * 7);
    expect(failedJobLines(cluster.workers)).toEqual([]);
    // One shard over the queue: the local model's bytes.
    const oneFile = join(tmp.dir, 'one.model');
    const c = runCli([
      ...args,
      '--epochs',
      '6',
      '--model',
      oneFile,
      '--redis',
      cluster.redis.url,
      '--store',
      store,
      '--gradient-shards',
      '1',
    ]);
    expect(c.status, c.stderr).toBe(0);
    expect(readFileSync(oneFile).equals(readFileSync(localFile))).toBe(true);
  }, 300_000);

  it('a worker killed with SIGKILL during training: the run finishes on the other, the same model', async () => {
    // A Redis of its own and short locks, so a job the victim held goes to the rescuer quickly.
    const own = await startRedis();
    const killStore = join(tmp.dir, 'store-kill');
    try {
      const victim = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      const rescuer = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      const model = join(tmp.dir, 'kill.model');
      const run = startCli([
        ...args,
        '--epochs',
        '6',
        '--model',
        model,
        '--redis',
        own.url,
        '--store',
        killStore,
        '--gradient-shards',
        '4',
      ]);
      await victim.waitFor(/start train\.parser-gradient(?:[\s\S]*start train\.parser-gradient){5}/);
      expect(await victim.kill('SIGKILL')).toBe('SIGKILL');
      expect(await run.exited(), run.output()).toBe(0);
      await rescuer.kill('SIGTERM');
      const local = await ChartParserModel.load(join(tmp.dir, 'local.model'));
      expect(
        maxRelativeDifference(weightsOf(local), weightsOf(await ChartParserModel.load(model))),
      ).toBeLessThanOrEqual(TOLERANCE);
    } finally {
      await own.stop();
    }
  }, 300_000);

  it('--checkpoint, then --resume: the model of one uninterrupted --redis run', () => {
    const remote = [...args, '--redis', cluster.redis.url, '--store', store, '--gradient-shards', '2'];
    const checkpoint = join(tmp.dir, 'parser-redis.ckpt');
    const files = {
      whole: join(tmp.dir, 'p-whole.model'),
      part: join(tmp.dir, 'p-part.model'),
      resumed: join(tmp.dir, 'p-resumed.model'),
    };
    for (const [epochs, model, extra] of [
      ['6', files.whole, []],
      ['3', files.part, ['--checkpoint', checkpoint]],
      ['6', files.resumed, ['--resume', checkpoint]],
    ] as const) {
      const r = runCli([...remote, '--epochs', epochs, '--model', model, ...extra]);
      expect(r.status, r.stderr).toBe(0);
    }
    expect(readFileSync(files.part).equals(readFileSync(files.whole))).toBe(false);
    expect(readFileSync(files.resumed).equals(readFileSync(files.whole))).toBe(true);
  }, 300_000);
});
