/**
 * The CLI's surface: --help of every command (snapshots), typo suggestions, validation
 * errors from the option declarations, the generated reference pages, and progress bars
 * drawn only on a terminal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { main, commandHelp, type CliOutput } from '../../lib/cli/program.js';
import { parseOptions, optionRows } from '../../lib/commands/options.js';
import { acceptedValues, checkOptions, option } from '../../lib/options/field.js';
import { taggerFields } from '../../lib/options/tagger.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { commands } from '../../lib/commands/index.js';
import { fillBlocks, generatedBlocks } from '../../lib/cli/reference.js';
import { pipelineJsonSchema } from '../../lib/pipeline/config.js';
import { Progress, setQuiet } from '../../lib/progress.js';
import { repoRoot } from '../helpers.js';

/** Runs the CLI in-process and collects what it prints. */
async function cli(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out: CliOutput = { write: (s) => (stdout += s), error: (s) => (stderr += s) };
  const status = await main(argv, out);
  return { status, stdout, stderr };
}

describe('--help', () => {
  for (const name of Object.keys(commands)) {
    it(`structrank ${name} --help`, async () => {
      const text = await commandHelp(name);
      expect(text).toMatch(new RegExp(`^Usage: structrank ${name} `));
      expect(text).toMatch(/\nExamples:\n {2}\$ structrank /);
      expect(text).toMatchSnapshot();
    });
  }

  it('structrank --help lists every command; no arguments prints it and exits 2', async () => {
    const help = await cli('--help');
    expect(help.status).toBe(0);
    for (const name of Object.keys(commands)) expect(help.stdout).toContain(name.split(' ')[0]);
    expect(help.stdout).toMatchSnapshot();
    const none = await cli();
    expect(none.status).toBe(2);
    expect(none.stdout).toBe(help.stdout);
    expect((await cli('help', 'eval', 'parse')).stdout).toBe(await commandHelp('eval parse'));
  });

  it('lists every option with its default, and marks the required ones', async () => {
    const text = await commandHelp('train-parser');
    expect(text).toMatch(
      /--epochs <E> +CRF passes over the data \(or L-BFGS iterations\); the best pass on --dev\s+is kept \(default 10\)/,
    );
    expect(text).toMatch(/--train <F> +training treebank \(bracketed trees\) \(required\)/);
    expect(text).toMatch(/--verb-features/);
  });
});

describe('typo suggestions', () => {
  it('suggests the command meant', async () => {
    const r = await cli('train-taggr', '--algo', 'crf');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "structrank: unknown command 'train-taggr' (did you mean train-tagger?)\nrun 'structrank --help' for the list of commands\n",
    );
    expect((await cli('eval', 'prase')).stderr).toMatch(
      /^structrank: unknown command 'eval prase' \(did you mean 'eval parse'\?\)/,
    );
    expect((await cli('evl', 'parse')).stderr).toMatch(/did you mean eval\?/);
  });

  it('suggests the option meant, on one line with the usage line after it', async () => {
    const r = await cli('train-parser', '--train', 'x.mrg', '--model', 'x.model', '--epoch', '3');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "structrank: train-parser: unknown option '--epoch' (did you mean --epochs?)\nusage: structrank train-parser --train F --model M [options]\n",
    );
    expect((await cli('tag', '--modle', 'm')).stderr).toMatch(/unknown option '--modle' \(did you mean --model\?\)/);
  });

  it("'eval' alone names its subcommands", async () => {
    const r = await cli('eval');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("structrank: 'eval' needs one of: parse, chunks, tags\n");
  });
});

describe('validation from the option declarations', () => {
  it('names the flag and the bad value; enums list their values', async () => {
    const epochs = await cli('train-parser', '--train', 'x.mrg', '--model', 'x.model', '--epochs', '0');
    expect(epochs.status).toBe(2);
    expect(epochs.stderr.split('\n')[0]).toBe(
      "structrank: train-parser: invalid value for --epochs: '0' (integer >= 1)",
    );
    const algo = await cli(
      'train-tagger',
      '--algo',
      'svm',
      '--train',
      't',
      '--columns',
      'a,b',
      '--label',
      'b',
      '--model',
      'm',
    );
    expect(algo.stderr.split('\n')[0]).toBe(
      "structrank: train-tagger: invalid value for --algo: 'svm' (maxent, perceptron or crf)",
    );
    const missing = await cli('tag', '--input', 'x');
    expect(missing.stderr.split('\n')[0]).toBe('structrank: tag: missing required option --model');
    const list = await cli('train-reranker', '--method', 'boost', '--train', 't', '--model', 'm', '--eps', '0.1,-1');
    expect(list.stderr.split('\n')[0]).toBe(
      "structrank: train-reranker: invalid value for --eps: '0.1,-1' (a list, each number >= 0)",
    );
    const other = await cli('train-reranker', '--method', 'perceptron', '--train', 't', '--model', 'm', '--eps', '0.1');
    expect(other.stderr.split('\n')[0]).toBe('structrank: train-reranker: --eps does not apply to --method perceptron');
  });

  it('the ported flags of main: sharded parse/tag, --cluster-text, --head-rules', async () => {
    const shard = await cli('tag', '--model', 'm', '--input', 'x', '--shard-size', '5');
    expect(shard.status).toBe(2);
    expect(shard.stderr.split('\n')[0]).toBe('structrank: tag: --shard-size needs --redis and --store');
    const half = await cli('parse', '--model', 'm', '--input', 'x', '--out', 'y', '--redis', 'redis://127.0.0.1:1');
    expect(half.stderr.split('\n')[0]).toBe('structrank: parse: --redis and --store go together');
    // A sharded run makes the local run's checks before it queues a job.
    const queue = ['--redis', 'redis://127.0.0.1:1', '--store', 'store'];
    const many = await cli(
      'tag',
      '--model',
      'm',
      '--input',
      'x',
      '--nbest',
      '2000',
      '--out-nbest',
      'n.jsonl',
      ...queue,
    );
    expect(many.status).toBe(2);
    expect(many.stderr.split('\n')[0]).toBe('structrank: tag: --nbest is at most 1000, not 2000');
    const classes = await cli(
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      't',
      '--columns',
      'a,b',
      '--label',
      'b',
      '--model',
      'm',
      '--cluster-text',
      'train',
      '--cluster-classes',
      '1',
    );
    expect(classes.stderr.split('\n')[0]).toBe(
      "structrank: train-tagger: invalid value for --cluster-classes: '1' (integer >= 2)",
    );
    const heads = await cli(
      'train-reranker',
      '--method',
      'perceptron',
      '--train',
      't',
      '--model',
      'm',
      '--head-rules',
      'collins',
    );
    expect(heads.stderr.split('\n')[0]).toBe(
      'structrank: train-reranker: --head-rules applies to --method perceptron only with --feature-weight',
    );
  });

  it('parseOptions fills defaults, reads numbers, lists and negated flags, and refuses out-of-range values', () => {
    const fields = {
      epochs: option(z.number().int().min(1).default(10), 'passes'),
      eps: option(z.array(z.number().min(0)).min(1).default([0.5]), 'grid'),
      verbFeatures: option(z.boolean().default(true), 'no verb features'),
      model: option(z.string(), 'model file'),
    };
    expect(parseOptions('x', fields, { model: 'm', verbFeatures: true })).toEqual({
      epochs: 10,
      eps: [0.5],
      verbFeatures: true,
      model: 'm',
    });
    expect(parseOptions('x', fields, { model: 'm', epochs: '3', eps: '0.1,0.2', verbFeatures: false })).toEqual({
      epochs: 3,
      eps: [0.1, 0.2],
      verbFeatures: false,
      model: 'm',
    });
    expect(() => parseOptions('x', fields, { model: 'm', epochs: '1.5' })).toThrow(
      "x: invalid value for --epochs: '1.5' (integer >= 1)",
    );
    expect(() => parseOptions('x', fields, { model: 'm', epochs: ' ' })).toThrow(
      "x: invalid value for --epochs: ' ' (integer >= 1)",
    );
    expect(() => parseOptions('x', fields, {})).toThrow('x: missing required option --model');
    expect(optionRows(fields).map((r) => r.flag)).toEqual(['--epochs', '--eps', '--no-verb-features', '--model']);
    expect(optionRows(fields)[0]).toMatchObject({ type: 'integer >= 1', default: '10', required: false });
  });

  it('API options are checked against the same fields, the bad one named in words from the schema', async () => {
    expect(acceptedValues(taggerFields.epochs)).toBe('a positive integer');
    expect(acceptedValues(taggerFields.order)).toBe('1 or 2');
    expect(acceptedValues(taggerFields.c2)).toBe('a non-negative number');
    expect(acceptedValues(taggerFields.eta0)).toBe('a positive number');
    expect(acceptedValues(taggerFields.optimizer)).toBe("'lbfgs' or 'sgd'");
    expect(acceptedValues(z.number().gt(0).lte(1))).toBe('a number in (0, 1]');
    const fail = (message: string): Error => new Error(message);
    expect(() => checkOptions(taggerFields, { beam: 0 }, fail)).toThrow('beam must be a positive integer');
    expect(() => checkOptions(taggerFields, { beam: 4, epochs: undefined }, fail)).not.toThrow();
    const train = [
      [
        ['a', 'DT', 'B-NP'],
        ['dog', 'NN', 'I-NP'],
      ],
    ];
    await expect(
      Tagger.train(train, { algo: 'crf', columns: ['word', 'pos', 'chunk'], label: 'chunk', c2: -1 }),
    ).rejects.toThrow('<options>: c2 must be a non-negative number');
    await expect(
      Tagger.train(train, {
        algo: 'crf',
        columns: ['word', 'pos', 'chunk'],
        label: 'chunk',
        optimizer: 'adam' as 'sgd',
      }),
    ).rejects.toThrow("<options>: optimizer must be 'lbfgs' or 'sgd'");
  });

  it('the pipeline JSON Schema carries the descriptions and defaults of the declarations', () => {
    const schema = pipelineJsonSchema() as { properties: Record<string, { description?: string; default?: unknown }> };
    for (const [key, value] of Object.entries(schema.properties)) expect(value.description, key).toMatch(/\w/);
    expect(schema.properties.folds.default).toBe(5);
    expect(JSON.stringify(schema)).toContain('"default":[0.0025]');
  });
});

describe('generated reference pages', () => {
  it('docs/cli.md and docs/pipeline.md hold the current generated tables (node scripts/cli-docs.mjs)', async () => {
    const blocks = await generatedBlocks();
    for (const page of ['docs/cli.md', 'docs/pipeline.md']) {
      const text = readFileSync(join(repoRoot, page), 'utf8');
      expect(fillBlocks(text, blocks), `${page} is stale: run 'npm run build:ts && node scripts/cli-docs.mjs'`).toBe(
        text,
      );
    }
    expect(blocks.options).toContain('| `--eps X[,X...]` | list of number >= 0 | `0.0025` |');
    expect(blocks.options).toContain('| `--epochs E` | integer >= 1 | `10` |');
  });
});

describe('progress', () => {
  afterEach(() => setQuiet(false));

  const terminal = (): { stream: NodeJS.WriteStream; text: () => string } => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    Object.assign(stream, { isTTY: true, columns: 120 });
    return { stream, text: () => text };
  };

  it('draws a bar with count, rate and ETA on a terminal, and plain lines off a terminal', async () => {
    const tty = terminal();
    const p = new Progress({ label: 'train', total: 4, unit: 'epochs', stream: tty.stream });
    await new Promise((resolve) => setTimeout(resolve, 30));
    p.update(1, 'loss 2.5');
    p.finish();
    await new Promise((resolve) => setImmediate(resolve));
    for (const part of [/train {2}\[#+-*\] 1\/4 /, /ETA \d+s/, /[\d.]+ epochs\/s/, /loss 2\.5/])
      expect(tty.text()).toMatch(part);
    const pipe = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    let piped = '';
    pipe.on('data', (chunk: Buffer) => (piped += chunk.toString()));
    const q = new Progress({ label: 'train', total: 4, stream: pipe, logAfter: 0 });
    q.update(2);
    q.finish();
    expect(piped).not.toContain('\x1b');
    expect(piped.trim().split('\n')).toHaveLength(1);
    expect(piped).toMatch(/^train {2}\[#+-*\] 2\/4 /);
  });

  it('--quiet draws nothing even on a terminal', () => {
    setQuiet(true);
    const tty = terminal();
    const p = new Progress({ label: 'train', total: 4, stream: tty.stream, log: true, logEvery: 0 });
    p.update(2);
    p.finish();
    expect(tty.text()).toBe('');
  });
});

describe('--json', () => {
  it('train-tagger --json prints one JSON object describing the model; --quiet drops its progress lines', async () => {
    const { runCli, tempDir } = await import('../helpers.js');
    const tmp = tempDir();
    try {
      const train = tmp.file('train.conll', 'He PRP B-NP\nruns VBZ B-VP\n\nShe PRP B-NP\nsleeps VBZ B-VP\n\n');
      const model = tmp.file('t.model');
      const r = runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        train,
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--epochs',
        '2',
        '--model',
        model,
        '--json',
        '--threads',
        '1',
      ]);
      expect(r.status, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { model: string; algo: string; labels: number; trainedSteps: number };
      expect(summary).toMatchObject({ model, algo: 'perceptron', labels: 2 });
      // train-tagger logs a line per epoch even off a terminal; --quiet drops them.
      expect(r.stderr).toMatch(/train-tagger perceptron .* 2\/2/);
      const quiet = runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        train,
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--epochs',
        '2',
        '--model',
        model,
        '--quiet',
        '--threads',
        '1',
      ]);
      expect(quiet.status, quiet.stderr).toBe(0);
      expect(quiet.stderr).toBe('');
    } finally {
      tmp.cleanup();
    }
  });

  it('train-reranker --method perceptron and rerank print their scores as JSON', async () => {
    const { runCli, tempDir } = await import('../helpers.js');
    const tmp = tempDir();
    try {
      const trees = join(repoRoot, 'test', 'fixtures', 'perceptron', 'tiny-trees.jsonl');
      const model = tmp.file('p.model');
      const t = runCli([
        'train-reranker',
        '--method',
        'perceptron',
        '--kernel',
        'tree',
        '--epochs',
        '3',
        '--train',
        trees,
        '--dev',
        trees,
        '--model',
        model,
        '--json',
        '--threads',
        '1',
      ]);
      expect(t.status, t.stderr).toBe(0);
      expect(JSON.parse(t.stdout)).toMatchObject({
        method: 'perceptron',
        kernel: 'tree',
        sentences: 8,
        dev: { metric: 'F1', sentences: 8 },
      });
      const r = runCli(['rerank', '--model', model, '--input', trees, '--out', tmp.file('best.mrg'), '--json']);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        sentences: 8,
        candidates: 24,
        method: 'perceptron',
        score: { metric: 'F1' },
      });
    } finally {
      tmp.cleanup();
    }
  });
});
