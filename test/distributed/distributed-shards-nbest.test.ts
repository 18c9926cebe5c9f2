/**
 * `rerank`, `features` and `kernel trees|tags` in shards on a Redis queue with two worker
 * processes: every output (chosen candidates, the binary feature table, the printed Gram
 * matrix) must be byte-identical to a local run's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergeShardTables, splitNbestInput } from '../../lib/distributed/nbest-shards.js';
import {
  buildFeatureTable,
  loadFeatureTable,
  selectFeatures,
  type SentenceFeatureNames,
} from '../../lib/rerank/feature-table.js';
import { perturbedNbest } from '../rerank/boost-fixture.js';
import { asConllu, tinyNerCorpus } from '../pipeline/pipeline-fakes.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import { Queue } from 'bullmq';
import { QUEUE_NAME } from '../../lib/distributed/connection.js';
import type { QueueStatus } from '../../lib/distributed/status.js';
import {
  redisWithTwoWorkers,
  skipWithoutRedis,
  startCli,
  startRedis,
  startWorkerProcess,
  type CliProcess,
} from '../../test-support/distributed.js';

const skip = skipWithoutRedis();
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gum = join(repoRoot, 'data', 'gum-open');
const tagsFile = join(repoRoot, 'test', 'fixtures', 'perceptron', 'tiny-tags.jsonl');

describe('n-best shards', () => {
  it('cut after whole lines, keep every line and count the sentences before each shard', () => {
    const file = tmp.file('cut.jsonl', '{"a":1}\n\n{"b":2}\n{"c":3}\n\n');
    const shards = splitNbestInput(file, 2);
    expect(shards.map((s) => s.text).join('')).toBe(readFileSync(file, 'utf8'));
    expect(shards.map((s) => s.idOffset)).toEqual([0, 2]);
    expect(shards[1].lines).toEqual([4, 5]);
  });

  it('merged shard tables equal the table built from all sentences at once (random names, cuts and cutoffs)', () => {
    let seed = 7;
    const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let trial = 0; trial < 20; trial++) {
      const sentences: SentenceFeatureNames[] = Array.from({ length: 1 + rnd(30) }, (_, i) => ({
        id: `s${i}`,
        candidates: Array.from({ length: 1 + rnd(5) }, () => ({
          names: Array.from({ length: rnd(8) }, () => `f${rnd(40)}`),
          logprob: -rnd(100) / 7,
          score: rnd(4) === 0 ? Number.NaN : rnd(50),
        })),
      }));
      const cuts = [
        0,
        ...Array.from({ length: rnd(5) }, () => rnd(sentences.length)).sort((a, b) => a - b),
        sentences.length,
      ];
      const shards = cuts.slice(1).map((to, k) => sentences.slice(cuts[k], to));
      const tables = shards.map((part) => buildFeatureTable(part, selectFeatures(part, 1), 1));
      const cutoff = 1 + rnd(4);
      expect(mergeShardTables(tables.length, (k) => tables[k], cutoff)).toEqual(
        buildFeatureTable(sentences, selectFeatures(sentences, cutoff), cutoff),
      );
    }
  });
});

describe.skipIf(skip)('rerank, features and kernel in shards on Redis (2 worker processes)', () => {
  const store = join(tmp.dir, 'store');
  const cluster = redisWithTwoWorkers(store);
  const train = join(tmp.dir, 'train.jsonl');
  const dev = join(tmp.dir, 'dev.jsonl');

  beforeAll(() => {
    perturbedNbest(join(gum, 'train.mrg'), train, 1, 120);
    perturbedNbest(join(gum, 'dev.mrg'), dev, 2, 45);
  });

  const queue = (size: number): string[] => [
    '--redis',
    cluster.redis.url,
    '--store',
    store,
    '--shard-size',
    String(size),
  ];
  const same = (a: string, b: string): void =>
    expect(readFileSync(join(tmp.dir, b)).equals(readFileSync(join(tmp.dir, a))), `${a} vs ${b}`).toBe(true);

  it('features: trees and tags, the table byte-identical to a local run', () => {
    for (const [name, input, size] of [
      ['trees', train, 13],
      ['tags', tagsFile, 1],
    ] as const) {
      const local = runCli([
        'features',
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.local.feats`),
        '--cutoff',
        '2',
        '--threads',
        '1',
      ]);
      expect(local.status, local.stderr).toBe(0);
      const remote = runCli([
        'features',
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.remote.feats`),
        '--cutoff',
        '2',
        ...queue(size),
      ]);
      expect(remote.status, remote.stderr).toBe(0);
      expect(remote.stderr).toMatch(/features: \d+ shard\(s\)/);
      expect(remote.stdout).toBe(local.stdout.replace(`${name}.local.feats`, `${name}.remote.feats`));
      same(`${name}.local.feats`, `${name}.remote.feats`);
      // Trees: the head rules and word classes learned once from every gold tree, in the table.
      expect(loadFeatureTable(join(tmp.dir, `${name}.remote.feats`)).settings === undefined).toBe(name === 'tags');
    }
  });

  it('rerank: a boosting model on trees and a perceptron on tags, outputs byte-identical', () => {
    const model = join(tmp.dir, 'boost.model');
    const t = runCli([
      'train-reranker',
      '--method',
      'boost',
      '--train',
      train,
      '--rounds',
      '40',
      '--model',
      model,
      '--threads',
      '1',
    ]);
    expect(t.status, t.stderr).toBe(0);
    const perceptron = join(tmp.dir, 'perceptron.model');
    const p = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'linear',
      '--epochs',
      '3',
      '--train',
      tagsFile,
      '--model',
      perceptron,
    ]);
    expect(p.status, p.stderr).toBe(0);
    for (const [name, m, input, out, size, extra] of [
      ['boost', model, dev, 'mrg', 7, []],
      ['perceptron', perceptron, tagsFile, 'conll', 2, ['--voted']],
    ] as const) {
      const local = runCli([
        'rerank',
        '--model',
        m,
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.local.${out}`),
        ...extra,
        '--threads',
        '1',
      ]);
      expect(local.status, local.stderr).toBe(0);
      const remote = runCli([
        'rerank',
        '--model',
        m,
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.remote.${out}`),
        ...extra,
        ...queue(size),
      ]);
      expect(remote.status, remote.stderr).toBe(0);
      same(`${name}.local.${out}`, `${name}.remote.${out}`);
    }
    // The local run's checks hold for a sharded run, before any job is queued.
    const refused = (m: string, flags: string[], message: RegExp): void => {
      const out = join(tmp.dir, 'refused.mrg');
      const r = runCli(['rerank', '--model', m, '--input', dev, '--out', out, ...flags, ...queue(7)]);
      expect(r.status, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(out)).toBe(false);
    };
    refused(model, ['--voted'], /rerank: --voted applies to perceptron models/);
    refused(perceptron, ['--rounds', '3'], /rerank: --rounds applies to boosting and LogLoss models/);
    refused(model, ['--json'], /rerank: --json needs a local run/);
  });

  it('rerank: a bad line in a later shard names the input file and its line, as locally', () => {
    const lines = readFileSync(dev, 'utf8').split('\n');
    lines[20] = '{"id": "broken"';
    const bad = tmp.file('bad.jsonl', lines.join('\n'));
    const model = join(tmp.dir, 'boost.model');
    const local = runCli(['rerank', '--model', model, '--input', bad, '--out', join(tmp.dir, 'bad.local.mrg')]);
    const remote = runCli([
      'rerank',
      '--model',
      model,
      '--input',
      bad,
      '--out',
      join(tmp.dir, 'bad.remote.mrg'),
      ...queue(5),
    ]);
    expect(local.status).toBe(1);
    expect(remote.status).toBe(1);
    expect(remote.stderr.trim().split('\n').pop()).toBe(local.stderr.trim());
  });

  it('kernel trees and kernel tags: A against A (normalized) and A against B, output byte-identical', () => {
    const a = tmp.file(
      'a.mrg',
      readFileSync(join(gum, 'dev.mrg'), 'utf8').split('\n').filter(Boolean).slice(0, 23).join('\n') + '\n',
    );
    const b = tmp.file(
      'b.mrg',
      readFileSync(join(gum, 'test.mrg'), 'utf8').split('\n').filter(Boolean).slice(0, 9).join('\n') + '\n',
    );
    const ca = tmp.file('a.conll', tinyNerCorpus(17, 3));
    const cb = tmp.file('b.conll', tinyNerCorpus(6, 4));
    // The same kind of sentences as CoNLL-U: the words' POS in XPOS.
    const ua = tmp.file('a.conllu', asConllu(tinyNerCorpus(17, 5)));
    const runs: string[][] = [
      ['kernel', 'trees', '--lambda', '0.4', '--normalize', a],
      ['kernel', 'trees', '--lambda', '0.4', '--depth', '2', '--json', a, b],
      ['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,pos,tag', '--sim2', 'caps', '--normalize', ca],
      ['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,pos,tag', ca, cb],
      ['kernel', 'tags', '--lambda', '0.5', '--tag', 'xpos', '--sim2', 'shape', '--normalize', ua],
    ];
    for (const args of runs) {
      const local = runCli([...args, '--threads', '1']);
      expect(local.status, local.stderr).toBe(0);
      const remote = runCli([...args, ...queue(4)]);
      expect(remote.status, remote.stderr).toBe(0);
      expect(remote.stderr).toMatch(/block\(s\) of up to 4 rows/);
      expect(remote.stdout.length).toBeGreaterThan(50);
      expect(remote.stdout, args.join(' ')).toBe(local.stdout);
    }
  });
});

describe.skipIf(skip)("queue status and the coordinator's progress bar", () => {
  it('counts waiting, active, done and failed per job kind and the workers alive; one bar over all jobs', async () => {
    const own = await startRedis();
    const store = join(tmp.dir, 'store-status');
    const status = (): QueueStatus => {
      const r = runCli(['queue', 'status', '--redis', own.url, '--json']);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as QueueStatus;
    };
    let worker: CliProcess | undefined;
    try {
      const a = tmp.file(
        'status.mrg',
        readFileSync(join(gum, 'dev.mrg'), 'utf8').split('\n').filter(Boolean).slice(0, 10).join('\n') + '\n',
      );
      // No worker yet: the coordinator's 5 jobs wait.
      const run = startCli([
        'kernel',
        'trees',
        '--lambda',
        '0.4',
        a,
        '--redis',
        own.url,
        '--store',
        store,
        '--shard-size',
        '2',
      ]);
      await run.waitFor(/queued 5 kernel-trees-shards job\(s\)/);
      const before = status();
      expect(before.steps['kernel-strip']).toEqual({ waiting: 5, active: 0, done: 0, failed: 0 });
      expect(before.workers).toEqual([]);
      // A job that fails for good: a payload naming a path.
      const queue = new Queue(QUEUE_NAME, { connection: { host: '127.0.0.1', port: own.port } });
      await queue.add(
        'kernel-strip',
        {
          step: 'bad',
          kind: 'trees',
          a: '../../etc/passwd',
          from: 0,
          to: 1,
          options: { lambda: 0.5, normalize: false, plain: false },
        },
        { jobId: 'bad' },
      );
      await queue.close();
      // The bar prints lines off a terminal once the run has lasted a second, and asks for the
      // worker count from its third second: wait that long, or a fast machine finishes silently.
      await new Promise((r) => setTimeout(r, 2500));
      worker = await startWorkerProcess(own.url, store);
      expect(await run.exited(), run.output()).toBe(0);
      await worker.waitFor(/failed kernel-strip bad/);
      const after = status();
      expect(after.steps['kernel-strip']).toEqual({ waiting: 0, active: 0, done: 5, failed: 1 });
      expect(after.steps.collect.done).toBe(1);
      expect(after.total.done).toBe(6);
      expect(after.workers).toHaveLength(1);
      expect(after.workers[0].name).toMatch(new RegExp(`:${worker.proc.pid}$`));
      // Off a terminal the bar is a line per job done once the run has lasted a second: the last one is 5/5.
      expect(run.output()).toMatch(/jobs {2}\[#{20}\] 5\/5 {2}elapsed .*jobs\/s.*worker\(s\) on the queue/);
      const text = runCli(['queue', 'status', '--redis', own.url]);
      expect(text.stdout).toMatch(/kernel-strip\s+0\s+0\s+5\s+1/);
      expect(text.stdout).toMatch(/workers alive: 1/);
    } finally {
      await worker?.kill('SIGKILL');
      await own.stop();
    }
  });
});
