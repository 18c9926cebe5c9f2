/**
 * Distributed training: CRF L-BFGS with the gradient summed over sentence shards, and the
 * perceptron by iterative parameter mixing. The CRF must give local training's model up to
 * floating-point summation order (the tolerance below); mixing as queue jobs must give the
 * in-process mixing's model exactly (same shards, same order).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tagger, type ExternalTrainer, type TaggerTrainingSpec, type TokenRows } from '../../lib/tagger/tagger.js';
import {
  crfGradientTrainer,
  localExecutor,
  queueExecutor,
  sentenceRanges,
  type GradientStats,
} from '../../lib/distributed/gradient.js';
import { ArtifactStore } from '../../lib/distributed/store.js';
import { mixingTrainer, mixingWeights } from '../../lib/distributed/mixing.js';
import { tinyNerCorpus } from '../pipeline/pipeline-fakes.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import { formatNbestLine } from '../../lib/io/nbest.js';
import { decodeVector, encodeVector, encodeVectorParts } from '../../lib/distributed/vector-blob.js';
import { randomFeatureNbest } from '../rerank/perceptron-helpers.js';
import {
  expectLostRedisExit,
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

const sentences = (text: string): TokenRows[] =>
  text
    .trim()
    .split(/\n\n/)
    .map((s) => s.split('\n').map((l) => l.split(' ')));
const train = sentences(tinyNerCorpus(150, 11));
const dev = sentences(tinyNerCorpus(40, 12));
const base = { columns: ['word', 'pos', 'ne'], label: 'ne', templates: 'ner' as const, threads: 1 };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The weights the model tags with (a test-only look inside). */
const weightsOf = (t: Tagger): Float64Array =>
  (t as unknown as { handle: { weights(): Float64Array } }).handle.weights();

/**
 * The tolerance of "equal up to summation order": per weight, |a - b| <= 1e-7 (1 + |a|).
 * The shards' gradients differ from one pass's by rounding (relative 1e-16 per addition);
 * L-BFGS can amplify that over its iterations, but on a well-conditioned objective
 * (c2 > 0) it stays many orders of magnitude below this bound.
 */
const TOLERANCE = 1e-7;
function maxRelativeDifference(a: Float64Array, b: Float64Array): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]) / (1 + Math.abs(a[k])));
  return worst;
}

describe('distributed training, in process', () => {
  it('shards cover the sentences in order', () => {
    expect(sentenceRanges(10, 3)).toEqual([
      [0, 3],
      [3, 6],
      [6, 10],
    ]);
    expect(sentenceRanges(2, 5)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(mixingWeights([{ mistakes: 1 }, { mistakes: 3 }], 'updates')).toEqual([0.25, 0.75]);
    expect(mixingWeights([{ mistakes: 0 }, { mistakes: 0 }], 'updates')).toEqual([0.5, 0.5]);
  });

  it('CRF: L-BFGS on gradients summed over 3 shards equals local L-BFGS up to summation order', async () => {
    const local = await Tagger.train(train, { ...base, algo: 'crf', epochs: 15 });
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    let specSeen: TaggerTrainingSpec | undefined;
    const sharded = await Tagger.train(train, {
      ...base,
      algo: 'crf',
      epochs: 15,
      external: async (spec): Promise<ExternalTrainer> => {
        specSeen = spec;
        return crfGradientTrainer(spec, localExecutor(spec, 3, 1), stats);
      },
    });
    expect(specSeen?.sentences).toBe(150);
    expect(stats.evaluations).toBeGreaterThan(15); // one per iteration plus line-search trials and the start
    const a = weightsOf(local);
    const b = weightsOf(sharded);
    expect(a.some((v) => v !== 0)).toBe(true);
    expect(maxRelativeDifference(a, b)).toBeLessThanOrEqual(TOLERANCE);
    expect(sharded.meta.trainedSteps).toBe(local.meta.trainedSteps);
    expect(await sharded.tag(dev)).toEqual(await local.tag(dev));
  });

  it('CRF: with one shard the objective is the local one, so the iterations match closely too', async () => {
    const local = await Tagger.train(train, { ...base, algo: 'crf', epochs: 5, sgdWarmup: 2 });
    const one = await Tagger.train(train, {
      ...base,
      algo: 'crf',
      epochs: 5,
      sgdWarmup: 2,
      external: async (spec) => crfGradientTrainer(spec, localExecutor(spec, 1, 1)),
    });
    expect(maxRelativeDifference(weightsOf(local), weightsOf(one))).toBeLessThanOrEqual(TOLERANCE);
  });

  it('perceptron: parameter mixing learns the task and is deterministic', async () => {
    const mixed = async (): Promise<Tagger> =>
      Tagger.train(train, {
        ...base,
        algo: 'perceptron',
        epochs: 4,
        external: async (spec) => mixingTrainer(spec, localExecutor(spec, 3, 1), 'uniform'),
      });
    const a = await mixed();
    const b = await mixed();
    expect(weightsOf(a)).toEqual(weightsOf(b));
    const gold = dev.map((s) => s.map((r) => r[2]));
    const guess = await a.tag(dev);
    const right = guess.flat().filter((t, i) => t === gold.flat()[i]).length;
    expect(right / gold.flat().length).toBeGreaterThan(0.95);
  });
});

describe('distributed training, checkpoints', () => {
  // The coordinator's optimizer state (L-BFGS memory, mixed and averaged weights) is the
  // checkpoint's `external` section: resumed, the steps are those of one uninterrupted run.
  const cases: [string, Parameters<typeof Tagger.train>[1], (spec: TaggerTrainingSpec) => Promise<ExternalTrainer>][] =
    [
      [
        'CRF L-BFGS over 3 shards',
        { ...base, algo: 'crf' },
        async (spec) => crfGradientTrainer(spec, localExecutor(spec, 3, 1)),
      ],
      [
        'CRF with SGD warm-up, then 2 shards',
        { ...base, algo: 'crf', sgdWarmup: 2, dev, evalEvery: 2 },
        async (spec) => crfGradientTrainer(spec, localExecutor(spec, 2, 1)),
      ],
      [
        'perceptron mixing over 3 shards',
        { ...base, algo: 'perceptron' },
        async (spec) => mixingTrainer(spec, localExecutor(spec, 3, 1), 'updates'),
      ],
    ];
  for (const [name, options, external] of cases) {
    it(`${name}: 3 steps, checkpoint, resume to 6 = 6 in one go`, async () => {
      const bytes = async (o: Partial<Parameters<typeof Tagger.train>[1]>): Promise<Buffer> => {
        const t = await Tagger.train(train, { ...options, ...o, external });
        const file = tmp.file(`${name.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2)}.model`);
        t.save(file);
        return readFileSync(file);
      };
      const checkpoint = tmp.file(`${name.replace(/\W+/g, '-')}.ckpt`);
      const whole = await bytes({ epochs: 6 });
      const first = await bytes({ epochs: 3, checkpoint });
      const resumed = await bytes({ epochs: 6, resume: checkpoint });
      // With dev both may keep the same best step; without, 3 steps are not 6.
      if (options.dev === undefined) expect(first.equals(whole)).toBe(false);
      expect(resumed.equals(whole)).toBe(true);
    }, 60_000);
  }

  it('a local checkpoint does not resume distributed, nor one of other mixing shards', async () => {
    const local = tmp.file('local-crf.ckpt');
    await Tagger.train(train, { ...base, algo: 'crf', epochs: 2, checkpoint: local });
    await expect(
      Tagger.train(train, {
        ...base,
        algo: 'crf',
        epochs: 4,
        resume: local,
        external: async (spec) => crfGradientTrainer(spec, localExecutor(spec, 2, 1)),
      }),
    ).rejects.toThrow(/distributed/);
    const mixed = tmp.file('mixed.ckpt');
    await Tagger.train(train, {
      ...base,
      algo: 'perceptron',
      epochs: 2,
      checkpoint: mixed,
      external: async (spec) => mixingTrainer(spec, localExecutor(spec, 3, 1), 'uniform'),
    });
    await expect(
      Tagger.train(train, {
        ...base,
        algo: 'perceptron',
        epochs: 4,
        resume: mixed,
        external: async (spec) => mixingTrainer(spec, localExecutor(spec, 2, 1), 'uniform'),
      }),
    ).rejects.toThrow(/3 mixing shards/);
  }, 60_000);
});

describe('distributed training without Redis', () => {
  it('an unreachable Redis is one clear line, not a hang', () => {
    const file = tmp.file('down.txt', tinyNerCorpus(20, 3));
    const r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      file,
      '--columns',
      'word,pos,ne',
      '--label',
      'ne',
      '--template',
      'ner',
      '--model',
      join(tmp.dir, 'down.model'),
      '--redis',
      'redis://127.0.0.1:1',
      '--store',
      join(tmp.dir, 'down-store'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/redis:\/\/127\.0\.0\.1:1: cannot reach Redis/);
    const s = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      file,
      '--columns',
      'word,pos,ne',
      '--label',
      'ne',
      '--model',
      join(tmp.dir, 'down.model'),
      '--redis',
      'redis://127.0.0.1:1',
    ]);
    expect(s.stderr).toMatch(/--redis and --store go together/);
  });
});

describe('vector blobs (weights, gradients, epoch weights): dense or sparse, lossless', () => {
  const bytesOf = (v: Float64Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  it('round-trips every value bit for bit, -0 included, and picks the smaller form', () => {
    const sparse = new Float64Array(1000);
    sparse[3] = 1.5;
    sparse[999] = -2e-300;
    sparse[500] = -0;
    const dense = Float64Array.from({ length: 50 }, (_, k) => (k % 3 === 0 ? 0 : Math.sin(k)));
    for (const v of [sparse, dense, new Float64Array(0), new Float64Array(7)]) {
      const blob = encodeVector(v);
      // At an 8-byte aligned offset (a file read whole: the values are used in place) and at
      // an odd one (a pooled Buffer: copied).
      for (const shift of [0, 3]) {
        const at = Buffer.alloc(blob.length + 8);
        blob.copy(at, shift);
        const back = decodeVector(at.subarray(shift, shift + blob.length));
        expect(back.length).toBe(v.length);
        expect(bytesOf(back).equals(bytesOf(v))).toBe(true);
      }
      expect(Buffer.concat(encodeVectorParts(v)).equals(blob)).toBe(true);
      // Pieces encode as the vector they make one after another, dense or sparse alike.
      const cut = Math.floor(v.length / 3);
      expect(encodeVector([v.subarray(0, cut), new Float64Array(0), v.subarray(cut)]).equals(blob)).toBe(true);
    }
    expect(Object.is(decodeVector(encodeVector(sparse))[500], -0)).toBe(true);
    expect(encodeVector(sparse).length).toBe(16 + 16 + 3 * 8); // 3 nonzeros: indices padded to 8 bytes
    expect(encodeVector(dense).length).toBe(16 + 50 * 8);
    const bad = encodeVector(sparse);
    bad.writeUInt32LE(0, 0);
    expect(() => decodeVector(bad)).toThrow(/unknown kind/);
    expect(() => decodeVector(encodeVector(sparse).subarray(0, 40))).toThrow(/wrong size/);
  });

  it('equal vectors of different owners are different blobs that decode the same', () => {
    const v = Float64Array.from([0, 1.5, 0, -2]);
    const a = encodeVector(v, 1);
    const b = encodeVector(v, 0xffffffff);
    expect(a.equals(b)).toBe(false);
    expect(bytesOf(decodeVector(a)).equals(bytesOf(decodeVector(b)))).toBe(true);
    expect(encodeVector(v, 7).equals(encodeVector(v, 7))).toBe(true);
  });
});

describe.skipIf(skip)('Redis lost during distributed training', () => {
  it('the coordinator stops with one clear line within seconds', async () => {
    const doomed = await startRedis();
    const store = join(tmp.dir, 'store-lost');
    const worker = await startWorkerProcess(doomed.url, store);
    const train = tmp.file('lost-train.txt', tinyNerCorpus(150, 11));
    const run = startCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,pos,ne',
      '--label',
      'ne',
      '--template',
      'ner',
      '--threads',
      '1',
      '--epochs',
      '500',
      '--model',
      join(tmp.dir, 'lost.model'),
      '--redis',
      doomed.url,
      '--store',
      store,
      '--gradient-shards',
      '2',
    ]);
    try {
      await worker.waitFor(/done train\.crf-gradient/);
      await doomed.stop();
      await expectLostRedisExit(run, doomed.port);
      expect(existsSync(join(tmp.dir, 'lost.model'))).toBe(false);
    } finally {
      await run.kill('SIGKILL');
      await worker.kill('SIGKILL');
    }
  });
});

describe.skipIf(skip)('distributed training on Redis (2 worker processes)', () => {
  const store = join(tmp.dir, 'store');
  const cluster = redisWithTwoWorkers(store);
  const trainFile = tmp.file('train.txt', tinyNerCorpus(150, 11));
  const devFile = tmp.file('dev.txt', tinyNerCorpus(40, 12));
  const common = [
    '--train',
    trainFile,
    '--columns',
    'word,pos,ne',
    '--label',
    'ne',
    '--template',
    'ner',
    '--threads',
    '1',
  ];

  const nbest = (model: string, name: string): { tags: string; scores: number[] } => {
    const out = join(tmp.dir, `${name}.tags`);
    const jsonl = join(tmp.dir, `${name}.jsonl`);
    const r = runCli([
      'tag',
      '--model',
      model,
      '--input',
      devFile,
      '--out',
      out,
      '--nbest',
      '3',
      '--out-nbest',
      jsonl,
      '--threads',
      '1',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const scores = readFileSync(jsonl, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) =>
        (JSON.parse(l) as { candidates: { logprob?: number; score?: number }[] }).candidates.map(
          (c) => c.logprob ?? c.score ?? NaN,
        ),
      );
    return { tags: readFileSync(out, 'utf8'), scores };
  };

  it('train-tagger --algo crf --redis: the local model up to summation order', async () => {
    const localModel = join(tmp.dir, 'crf-local.model');
    const remoteModel = join(tmp.dir, 'crf-remote.model');
    const local = runCli(['train-tagger', '--algo', 'crf', ...common, '--epochs', '12', '--model', localModel]);
    expect(local.status, local.stderr).toBe(0);
    const remote = runCli([
      'train-tagger',
      '--algo',
      'crf',
      ...common,
      '--epochs',
      '12',
      '--model',
      remoteModel,
      '--redis',
      cluster.redis.url,
      '--store',
      store,
      '--gradient-shards',
      '3',
    ]);
    expect(remote.status, remote.stderr).toBe(0);
    const a = nbest(localModel, 'crf-local');
    const b = nbest(remoteModel, 'crf-remote');
    expect(b.tags).toBe(a.tags);
    expect(b.scores.length).toBe(a.scores.length);
    a.scores.forEach((s, i) => expect(Math.abs(s - b.scores[i])).toBeLessThanOrEqual(TOLERANCE * (1 + Math.abs(s))));
    await sleep(300); // the workers' logs, read while this test waited in spawnSync
    const jobs = cluster.workers.map((w) => (w.output().match(/done train\.crf-gradient/g) ?? []).length);
    expect(jobs[0] + jobs[1]).toBeGreaterThanOrEqual(3 * 13);
  });

  it('an evaluation ends when the queue reports its jobs done, not at the next poll of the store', async () => {
    // Polls 10 minutes apart: the run can only finish in time if the queue's events wake it.
    const local = await Tagger.train(train, { ...base, algo: 'crf', epochs: 4 });
    const stats: GradientStats = { evaluations: 0, seconds: 0, bytesMoved: 0 };
    const remote = await Tagger.train(train, {
      ...base,
      algo: 'crf',
      epochs: 4,
      external: async (spec) =>
        crfGradientTrainer(
          spec,
          await queueExecutor(spec, 2, { redis: cluster.redis.url, store: new ArtifactStore(store), pollMs: 600_000 }),
          stats,
        ),
    });
    expect(stats.evaluations).toBeGreaterThan(4);
    expect(maxRelativeDifference(weightsOf(local), weightsOf(remote))).toBeLessThanOrEqual(TOLERANCE);
  });

  it('train-tagger --algo perceptron --redis --mix-shards 3 equals --mix-shards 3 in process, bit for bit', async () => {
    for (const weighting of ['uniform', 'updates']) {
      const inProcess = join(tmp.dir, `mix-local-${weighting}.model`);
      const queued = join(tmp.dir, `mix-remote-${weighting}.model`);
      const args = [
        'train-tagger',
        '--algo',
        'perceptron',
        ...common,
        '--epochs',
        '3',
        '--mix-shards',
        '3',
        '--mix-weighting',
        weighting,
      ];
      const a = runCli([...args, '--model', inProcess]);
      expect(a.status, a.stderr).toBe(0);
      const b = runCli([...args, '--model', queued, '--redis', cluster.redis.url, '--store', store]);
      expect(b.status, b.stderr).toBe(0);
      expect(readFileSync(queued).equals(readFileSync(inProcess))).toBe(true);
    }
    await sleep(300);
    const jobs = cluster.workers.map((w) => (w.output().match(/done train\.perceptron-epoch/g) ?? []).length);
    expect(jobs[0] + jobs[1]).toBe(2 * 3 * 3);
    // The per-round weights and results are removed once mixed (after their flow finished).
    expect(failedJobLines(cluster.workers)).toEqual([]);
    expect(readdirSync(join(store, 'steps')).filter((f) => f.startsWith('train.'))).toEqual([]);
  });

  it('train-reranker --method perceptron --redis --mix-shards 3 equals --mix-shards 3 in process, bit for bit', async () => {
    const lists = join(repoRoot, 'test', 'fixtures', 'perceptron');
    const linear = tmp.file(
      'linear.nbest.jsonl',
      randomFeatureNbest(60, 4)
        .map((s) => formatNbestLine(s))
        .join('\n') + '\n',
    );
    const before = cluster.workers.map((w) => (w.output().match(/done train\.reranker-epoch/g) ?? []).length);
    let runs = 0;
    for (const [train, extra] of [
      [join(lists, 'tiny-trees.jsonl'), []],
      [join(lists, 'tiny-tags.jsonl'), ['--mix-weighting', 'updates']],
      [linear, ['--kernel', 'linear']],
    ] as const) {
      const inProcess = join(tmp.dir, `rerank-mix-local-${runs}.model`);
      const queued = join(tmp.dir, `rerank-mix-remote-${runs}.model`);
      const args = [
        'train-reranker',
        '--method',
        'perceptron',
        '--train',
        train,
        '--epochs',
        '3',
        '--mix-shards',
        '3',
        '--threads',
        '1',
        ...extra,
      ];
      const a = runCli([...args, '--model', inProcess]);
      expect(a.status, a.stderr).toBe(0);
      const b = runCli([...args, '--model', queued, '--redis', cluster.redis.url, '--store', store]);
      expect(b.status, b.stderr).toBe(0);
      expect(readFileSync(queued).equals(readFileSync(inProcess))).toBe(true);
      runs++;
    }
    await sleep(300);
    const jobs = cluster.workers.map(
      (w, i) => (w.output().match(/done train\.reranker-epoch/g) ?? []).length - before[i],
    );
    expect(jobs[0] + jobs[1]).toBe(runs * 3 * 3);
    expect(failedJobLines(cluster.workers)).toEqual([]);
    expect(readdirSync(join(store, 'steps')).filter((f) => f.startsWith('train.'))).toEqual([]);
  });

  it('a worker killed with SIGKILL during CRF training: the run finishes on the other, same model', async () => {
    // A Redis of its own and short locks, so a job the victim held goes to the rescuer quickly.
    const own = await startRedis();
    const killStore = join(tmp.dir, 'store-kill');
    try {
      const victim = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      const rescuer = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      const model = join(tmp.dir, 'crf-kill.model');
      const run = startCli([
        'train-tagger',
        '--algo',
        'crf',
        ...common,
        '--epochs',
        '12',
        '--model',
        model,
        '--redis',
        own.url,
        '--store',
        killStore,
        '--gradient-shards',
        '4',
      ]);
      await victim.waitFor(/start train\.crf-gradient(?:[\s\S]*start train\.crf-gradient){5}/);
      expect(await victim.kill('SIGKILL')).toBe('SIGKILL');
      expect(await run.exited(), run.output()).toBe(0);
      await rescuer.kill('SIGTERM');
      const a = nbest(join(tmp.dir, 'crf-local.model'), 'crf-local-again');
      const b = nbest(model, 'crf-kill');
      expect(b.tags).toBe(a.tags);
      a.scores.forEach((x, i) => expect(Math.abs(x - b.scores[i])).toBeLessThanOrEqual(TOLERANCE * (1 + Math.abs(x))));
    } finally {
      await own.stop();
    }
  });

  it('train-tagger --algo crf --redis --checkpoint, then --resume: the model of one uninterrupted --redis run', () => {
    const args = [
      'train-tagger',
      '--algo',
      'crf',
      ...common,
      '--redis',
      cluster.redis.url,
      '--store',
      store,
      '--gradient-shards',
      '2',
    ];
    const whole = join(tmp.dir, 'crf-whole.model');
    const part = join(tmp.dir, 'crf-part.model');
    const resumed = join(tmp.dir, 'crf-resumed.model');
    const checkpoint = join(tmp.dir, 'crf-redis.ckpt');
    for (const [epochs, model, extra] of [
      ['8', whole, []],
      ['4', part, ['--checkpoint', checkpoint]],
      ['8', resumed, ['--resume', checkpoint]],
    ] as const) {
      const r = runCli([...args, '--epochs', epochs, '--model', model, ...extra]);
      expect(r.status, r.stderr).toBe(0);
    }
    expect(readFileSync(part).equals(readFileSync(whole))).toBe(false);
    expect(readFileSync(resumed).equals(readFileSync(whole))).toBe(true);
  }, 120_000);

  it('refuses what it cannot distribute, with one line', () => {
    const r = runCli([
      'train-tagger',
      '--algo',
      'maxent',
      ...common,
      '--model',
      join(tmp.dir, 'x.model'),
      '--redis',
      cluster.redis.url,
      '--store',
      store,
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--redis trains --algo crf with --optimizer lbfgs .* or --algo perceptron/);
    const s = runCli([
      'train-tagger',
      '--algo',
      'crf',
      ...common,
      '--model',
      join(tmp.dir, 'x.model'),
      '--mix-shards',
      '2',
    ]);
    expect(s.stderr).toMatch(/--mix-shards is for --algo perceptron/);
  });
});
