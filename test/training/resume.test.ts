/**
 * Checkpoints and continued training: for every trainer, N + M steps in one go and N steps,
 * a checkpoint, and a resumed run to N + M give identical model bytes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Tagger, type TaggerTrainOptions } from '../../lib/tagger/tagger.js';
import { loadCheckpoint } from '../../lib/io/checkpoint.js';
import { ModelFileError } from '../../lib/errors.js';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import { perturbedNbest } from '../rerank/boost-fixture.js';
import { taggingData } from './tagging-data.js';
import { taggerBase } from '../../lib/pipeline/adapters/tagger.js';
import type { StepContext } from '../../lib/pipeline/components.js';
import { ChartParserModel, type ParserTrainOptions } from '../../lib/parser/chart-parser.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { treeWords } from '../../lib/parser/input.js';
import type { Tree } from '../../lib/trees/tree.js';
import { chartParserBase } from '../../lib/pipeline/adapters/parser.js';
import { boostReranker, loglinearReranker } from '../../lib/pipeline/adapters/linear.js';
import { rerankerSchema, type BoostConfig, type LoglinearConfig } from '../../lib/pipeline/config.js';
import { scoreSet } from '../../lib/pipeline/evaluate.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { formatTree } from '../../lib/trees/tree.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const train = taggingData(120, 7);
const dev = taggingData(40, 99, 4);
const columns = ['word', 'pos', 'chunk'];

async function taggerBytes(options: Omit<TaggerTrainOptions, 'columns' | 'label'>, name: string): Promise<Buffer> {
  const t = await Tagger.train(train, { columns, label: 'chunk', threads: 1, ...options });
  const file = tmp.file(`${name}.model`);
  t.save(file);
  return readFileSync(file);
}

/** N + M in one go against N, checkpoint, resume to N + M. */
async function expectResumeEqual(
  options: Omit<TaggerTrainOptions, 'columns' | 'label' | 'epochs'>,
  n: number,
  m: number,
  name: string,
): Promise<void> {
  const whole = await taggerBytes({ ...options, epochs: n + m }, `${name}-whole`);
  const checkpoint = tmp.file(`${name}.ckpt`);
  const first = await taggerBytes({ ...options, epochs: n, checkpoint }, `${name}-first`);
  const resumed = await taggerBytes({ ...options, epochs: n + m, resume: checkpoint, checkpoint }, `${name}-resumed`);
  expect(resumed.equals(whole)).toBe(true);
  // The check can fail: the first part alone is a different model.
  expect(first.equals(whole)).toBe(false);
  // A finished checkpoint resumed to the same length gives that length's model again.
  const again = await taggerBytes({ ...options, epochs: n + m, resume: checkpoint }, `${name}-again`);
  expect(again.equals(whole)).toBe(true);
}

describe('tagger: continued training equals one long run', () => {
  it('averaged perceptron (sums, counter and shuffled order are in the checkpoint)', async () => {
    await expectResumeEqual({ algo: 'perceptron' }, 2, 3, 'perceptron');
  });
  it('CRF by SGD (gain schedule, weight scale)', async () => {
    await expectResumeEqual({ algo: 'crf', optimizer: 'sgd' }, 2, 2, 'crf-sgd');
  });
  it('CRF by L-BFGS (history of correction pairs), with SGD warm-up crossing the checkpoint', async () => {
    await expectResumeEqual({ algo: 'crf' }, 4, 5, 'crf-lbfgs');
    await expectResumeEqual({ algo: 'crf', sgdWarmup: 3 }, 2, 4, 'crf-warmup');
  });
  it('second-order maxent by L-BFGS', async () => {
    await expectResumeEqual({ algo: 'maxent', order: 2 }, 3, 4, 'maxent');
  });
  it('with dev scoring: the best-so-far model, patience and the evaluation schedule resume too', async () => {
    // evalEvery 2 and a checkpoint at an odd step: the first run scores dev after its last
    // step, which the long run does not do; that score must not leak into the resumed run.
    await expectResumeEqual({ algo: 'perceptron', dev, evalEvery: 2, patience: 5 }, 3, 4, 'perceptron-dev');
    await expectResumeEqual({ algo: 'crf', dev, evalEvery: 2, patience: 5 }, 3, 4, 'crf-dev');
  });
  it('refuses a checkpoint of other options or other data, naming the difference', async () => {
    const checkpoint = tmp.file('refuse.ckpt');
    await taggerBytes({ algo: 'perceptron', epochs: 1, checkpoint }, 'refuse');
    await expect(
      Tagger.train(train, { algo: 'perceptron', columns, label: 'chunk', epochs: 2, seed: 5, resume: checkpoint }),
    ).rejects.toThrow(/seed 1 \(now 5\)/);
    await expect(
      Tagger.train(train.slice(1), { algo: 'perceptron', columns, label: 'chunk', epochs: 2, resume: checkpoint }),
    ).rejects.toThrow(ModelFileError);
    expect(() => loadCheckpoint(checkpoint, 'boost-reranker', { fingerprint: '', options: {} })).toThrow(
      /checkpoint of the tagger trainer/,
    );
  });
});

describe('train-tagger --checkpoint / --resume', () => {
  it('resumes on the command line to the model of one run', () => {
    const lines = train.map((s) => s.map((r) => r.join(' ')).join('\n')).join('\n\n') + '\n';
    const data = tmp.file('cli-train.conll', lines);
    const args = (epochs: number, model: string, extra: string[]): string[] => [
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      data,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--threads',
      '1',
      '--quiet',
      '--epochs',
      String(epochs),
      '--model',
      model,
      ...extra,
    ];
    const whole = tmp.file('cli-whole.model');
    const part = tmp.file('cli-part.model');
    const resumed = tmp.file('cli-resumed.model');
    const checkpoint = tmp.file('cli.ckpt');
    expect(runCli(args(4, whole, [])).status).toBe(0);
    expect(runCli(args(2, part, ['--checkpoint', checkpoint])).status).toBe(0);
    const r = runCli(args(4, resumed, ['--resume', checkpoint]));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(resumed).equals(readFileSync(whole))).toBe(true);
    const bad = runCli(args(4, resumed, ['--resume', part]));
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/checkpoint/);
  });
});

describe('train-reranker --checkpoint / --resume (boost, loglinear, kernel perceptron)', () => {
  const train = tmp.file('rr-train.jsonl');
  const dev = tmp.file('rr-dev.jsonl');
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'train.mrg'), train, 1, 80);
  perturbedNbest(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), dev, 2, 30);
  const trainModel = (method: string, rounds: number, model: string, extra: string[]): void => {
    const count = method === 'perceptron' ? '--epochs' : '--rounds';
    const r = runCli([
      'train-reranker',
      '--method',
      method,
      '--train',
      train,
      '--dev',
      dev,
      count,
      String(rounds),
      '--model',
      model,
      '--threads',
      '1',
      '--quiet',
      ...extra,
    ]);
    expect(r.status, r.stderr).toBe(0);
  };
  const cases: [string, number, number, string[]][] = [
    // Two eps values: each one's rounds are in the checkpoint and continue.
    ['boost', 60, 140, ['--eps', '0.001,0.0025']],
    ['logloss', 2, 5, []],
    // Two priors C: each one's L-BFGS state is in the checkpoint and continues.
    ['loglinear', 6, 15, ['--l2', '0.5,2']],
    // The kernel perceptron: shuffles and updates replayed (tree kernel over the DAG of
    // support trees; kernel sums with two chunks; the linear kernel's primal weights).
    ['perceptron', 1, 3, ['--kernel', 'tree']],
    ['perceptron', 1, 2, ['--kernel', 'tree', '--no-compress', '--chunks', '2']],
    ['perceptron', 2, 4, ['--kernel', 'linear']],
  ];
  for (const [method, n, total, extra] of cases) {
    it(`${method} ${extra.join(' ')}: ${n}, checkpoint, resume to ${total} = ${total} in one go`, () => {
      const name = `${method}${extra.join('')}`;
      const whole = tmp.file(`${name}-whole.model`);
      const first = tmp.file(`${name}-first.model`);
      const resumed = tmp.file(`${name}-resumed.model`);
      const checkpoint = tmp.file(`${name}.ckpt`);
      trainModel(method, total, whole, extra);
      trainModel(method, n, first, [...extra, '--checkpoint', checkpoint]);
      trainModel(method, total, resumed, [...extra, '--resume', checkpoint, '--checkpoint', checkpoint]);
      expect(readFileSync(resumed).equals(readFileSync(whole))).toBe(true);
      expect(readFileSync(first).equals(readFileSync(whole))).toBe(false);
      const otherData = method === 'perceptron' ? ['--seed', '3'] : ['--cutoff', '2'];
      const other = runCli([
        'train-reranker',
        '--method',
        method,
        '--train',
        train,
        '--dev',
        dev,
        '--model',
        tmp.file('x.model'),
        '--quiet',
        ...otherData,
        ...extra,
        '--resume',
        checkpoint,
      ]);
      expect(other.status).not.toBe(0);
      expect(other.stderr).toMatch(
        method === 'perceptron'
          ? /checkpoint was written with other options: settings|seed 1 \(now 3\)/
          : /checkpoint was written for other training/,
      );
    }, 120_000);
  }
});

describe("pipeline steps keep their trainers' checkpoints where a retried job finds them", () => {
  it('a tagger base model resumed from a step checkpoint gives the n-best lists of an uninterrupted one', async () => {
    const sentences = train.map((rows, i) => ({
      id: String(i),
      tokens: rows.map((r) => r[0]),
      gold: rows.map((r) => r[2]),
      rows,
    }));
    const test = dev.map((rows, i) => ({
      id: `d${i}`,
      tokens: rows.map((r) => r[0]),
      gold: rows.map((r) => r[2]),
      rows,
    }));
    const base = (epochs: number) =>
      taggerBase({ algo: 'crf', order: 1, epochs, optimizer: 'lbfgs', c2: 1, templates: 'chunk' }, columns, 'chunk');
    const file = tmp.file('step.ckpt');
    const labels: string[] = [];
    const ctx = (resume: boolean): StepContext => ({
      threads: 1,
      seed: 1,
      checkpoints: (label) => {
        labels.push(label);
        return resume ? { checkpoint: file, resume: file } : { checkpoint: file };
      },
    });
    const lists = async (epochs: number, c: StepContext) =>
      JSON.stringify(await (await base(epochs).train(sentences, c)).nbest(test, 3, c));
    const whole = await lists(6, { threads: 1, seed: 1 });
    // A "killed" job: its trainer got through 3 of 6 iterations; the retry resumes.
    await lists(3, ctx(false));
    expect(await lists(6, ctx(true))).toBe(whole);
    expect(labels).toEqual(['train CRF tagger', 'train CRF tagger']);
  });

  /** A step context whose trainer labelled `label` checkpoints to `file` (resuming when asked). */
  const stepCtx = (file: string, resume: boolean, labels: string[]): StepContext => ({
    threads: 1,
    seed: 1,
    checkpoints: (label) => {
      labels.push(label);
      return resume ? { checkpoint: file, resume: file } : { checkpoint: file };
    },
  });

  it('a CRF parser base model resumed from a step checkpoint gives the n-best lists of an uninterrupted one', async () => {
    const trees = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg'))
      .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= 8)
      .slice(0, 30);
    const sentences = trees.map((t, i) => ({ id: String(i), tokens: treeWords(t), gold: formatTree(t) }));
    const test = sentences.slice(0, 6).map((s) => ({ ...s, id: `t${s.id}` }));
    const base = (epochs: number) => chartParserBase({ crf: true, epochs } as Parameters<typeof chartParserBase>[0]);
    const lists = async (epochs: number, c: StepContext) =>
      JSON.stringify(await (await base(epochs).train(sentences, c)).nbest(test, 3, c));
    const whole = await lists(2, { threads: 1, seed: 1 });
    const labels: string[] = [];
    const file = tmp.file('parser-step.ckpt');
    await lists(1, stepCtx(file, false, labels));
    expect(await lists(2, stepCtx(file, true, labels))).toBe(whole);
    expect(labels).toEqual(['train CRF-CFG chart parser', 'train CRF-CFG chart parser']);
  }, 120_000);

  it('boosting and log-linear rerankers resumed from step checkpoints choose as uninterrupted ones', async () => {
    const trainFile = tmp.file('step-rr-train.jsonl');
    const devFile = tmp.file('step-rr-dev.jsonl');
    perturbedNbest(join(repoRoot, 'data', 'gum-open', 'train.mrg'), trainFile, 1, 80);
    perturbedNbest(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), devFile, 2, 30);
    const trainSet = scoreSet(readNbestSync(trainFile));
    const devSet = scoreSet(readNbestSync(devFile));
    const cases = [
      // Checkpoints after every 500 rounds: the "killed" job got through one chunk of each eps.
      [{ type: 'boost', name: 'boosting', eps: [0.0025, 0.01], cutoff: 2 }, 'rounds', 600, 1200],
      [{ type: 'loglinear', name: 'log-linear', l2: [1, 10], cutoff: 2 }, 'iterations', 4, 12],
    ] as const;
    for (const [config, field, killedAt, total] of cases) {
      const make = (n: number) => {
        const rc = { ...rerankerSchema.parse({ ...config, [field]: n }), name: config.name };
        return rc.type === 'boost'
          ? boostReranker(rc as BoostConfig & { name: string })
          : loglinearReranker(rc as LoglinearConfig & { name: string });
      };
      const outcome = async (n: number, c: StepContext): Promise<string> => {
        const r = await make(n).train(trainSet, devSet, c);
        return JSON.stringify({ selected: r.selected, curves: r.curves, chosen: await r.choose(devSet, c) });
      };
      const whole = await outcome(total, { threads: 1, seed: 1 });
      const labels: string[] = [];
      const file = tmp.file(`${config.type}-step.ckpt`);
      const killed = await outcome(killedAt, stepCtx(file, false, labels));
      expect(killed).not.toBe(whole);
      expect(await outcome(total, stepCtx(file, true, labels))).toBe(whole);
      expect(labels).toEqual([config.name, config.name]);
    }
  }, 180_000);
});

describe('CRF parser: continued training equals one long run', () => {
  const short = (file: string, max: number, limit: number): Tree[] =>
    readTreesSync(join(repoRoot, 'data', 'gum-open', file))
      .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= max)
      .slice(0, limit);
  const trees = short('train.mrg', 8, 40);
  const devTrees = short('dev.mrg', 8, 8);
  const parserBytes = async (options: ParserTrainOptions, name: string): Promise<Buffer> => {
    // L-BFGS evaluates the whole training set several times per iteration: fewer trees.
    // 2^12 surface weights, not the default 2^22: a checkpoint holds every weight (L-BFGS: 22 vectors of them).
    const m = await ChartParserModel.train(options.optimizer === 'lbfgs' ? trees.slice(0, 15) : trees, {
      crf: true,
      threads: 1,
      batch: 10,
      surfaceBits: 12,
      ...options,
    });
    const file = tmp.file(`${name}.model`);
    m.save(file);
    return readFileSync(file);
  };
  const cases: [string, ParserTrainOptions, number, number][] = [
    // AdaGrad sums and the batch sampler's random engine are in the checkpoint.
    ['adagrad', {}, 1, 2],
    ['sgd', { optimizer: 'sgd' }, 1, 2],
    ['lbfgs', { optimizer: 'lbfgs' }, 1, 2],
    // The best pass on dev so far, and its weights, resume too.
    ['adagrad-dev', { dev: devTrees }, 1, 2],
  ];
  for (const [name, options, n, total] of cases) {
    it(`${name}: ${n} passes, checkpoint, resume to ${total} = ${total} in one go`, async () => {
      const whole = await parserBytes({ ...options, epochs: total }, `${name}-whole`);
      const checkpoint = tmp.file(`${name}-parser.ckpt`);
      const first = await parserBytes({ ...options, epochs: n, checkpoint }, `${name}-first`);
      const resumed = await parserBytes({ ...options, epochs: total, resume: checkpoint }, `${name}-resumed`);
      expect(resumed.equals(whole)).toBe(true);
      // With dev both keep pass 1 here; a resume that forgot the best pass would keep pass 2.
      if (options.dev === undefined) expect(first.equals(whole)).toBe(false);
    }, 120_000);
  }

  it('a checkpoint names the tag-set choice even when defaulted, and resuming with the other is refused', async () => {
    const checkpoint = tmp.file('tag-sets-parser.ckpt');
    await parserBytes({ epochs: 1, checkpoint }, 'tag-sets-first');
    await expect(parserBytes({ epochs: 2, resume: checkpoint, tagSets: false }, 'tag-sets-off')).rejects.toThrow(
      /tagSets/,
    );
    const resumed = await parserBytes({ epochs: 2, resume: checkpoint, tagSets: true }, 'tag-sets-on');
    expect(resumed.equals(await parserBytes({ epochs: 2 }, 'tag-sets-whole'))).toBe(true);
  }, 120_000);
  it('refuses checkpoints for the PCFG, which trains in one pass', async () => {
    await expect(ChartParserModel.train(trees, { checkpoint: tmp.file('pcfg.ckpt') })).rejects.toThrow(
      /PCFG is counted/,
    );
  });
});
