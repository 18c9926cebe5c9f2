/**
 * Bad input found by the adversarial sweep of the CLI: every case must end with a non-zero
 * exit, one line on stderr naming the file, no stack trace and no file left half-written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeModel, encodeModel } from '../../lib/io/model-file.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { extractionWorkers } from '../../lib/rerank/extract.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { readClusters, readTemplateConfig } from '../../lib/tagger/templates.js';
import { readPipelineConfig } from '../../lib/pipeline/config.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { repoRoot, runCli, tempDir, type CliResult } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const trees =
  readFileSync(join(repoRoot, 'data', 'gum-open', 'train.mrg'), 'utf8')
    .split('\n')
    .slice(0, 40)
    .join('\n') + '\n';
const conll =
  [
    'He PRP B-NP',
    'runs VBZ B-VP',
    'fast RB B-ADVP',
    '. . O',
    '',
    'The DT B-NP',
    'dog NN I-NP',
    'barks VBZ B-VP',
    '. . O',
    '',
  ].join('\n') + '\n';

/** The CLI's one-line report of bad input: exit 1, the message, nothing else. */
function expectInputError(r: CliResult, pattern: RegExp): void {
  expect(r.stderr).not.toMatch(/internal error|\n\s+at |Node\.js v/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr.trim()).toMatch(pattern);
  expect(r.status).toBe(1);
}

/** Files of `dir` other than the given inputs (outputs and temp files). */
function leftovers(dir: string, inputs: string[]): string[] {
  return readdirSync(dir).filter((f) => !inputs.includes(f));
}

describe('robustness sweep: output files', () => {
  let treebank: string;
  let columns: string;
  let tagger: string;
  let parser: string;
  let nbest: string;
  let reranker: string;
  beforeAll(() => {
    treebank = tmp.file('train.mrg', trees);
    columns = tmp.file('train.conll', conll);
    tagger = tmp.file('tagger.model');
    parser = tmp.file('parser.model');
    nbest = tmp.file('train.nbest.jsonl');
    reranker = tmp.file('boost.model');
    const steps = [
      [
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        columns,
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--epochs',
        '1',
        '--model',
        tagger,
        '--threads',
        '1',
      ],
      ['train-parser', '--train', treebank, '--model', parser, '--threads', '1'],
      [
        'parse',
        '--model',
        parser,
        '--input',
        treebank,
        '--out',
        tmp.file('train.out.mrg'),
        '--nbest',
        '3',
        '--out-nbest',
        nbest,
        '--threads',
        '1',
      ],
      [
        'train-reranker',
        '--method',
        'boost',
        '--train',
        nbest,
        '--model',
        reranker,
        '--rounds',
        '5',
        '--cutoff',
        '1',
        '--threads',
        '1',
      ],
    ];
    for (const args of steps) expect(runCli(args).status, args.join(' ')).toBe(0);
  });

  it('tag: an --out or --out-nbest in a missing folder is an input error, not an unhandled stream error', () => {
    const dir = tempDir();
    try {
      expectInputError(
        runCli(['tag', '--model', tagger, '--input', columns, '--out', join(dir.dir, 'no', 'out.conll')]),
        /no\/out\.conll: cannot write: no folder /,
      );
      const r = runCli([
        'tag',
        '--model',
        tagger,
        '--input',
        columns,
        '--out',
        dir.file('out.conll'),
        '--nbest',
        '2',
        '--out-nbest',
        join(dir.dir, 'no', 'n.jsonl'),
      ]);
      expectInputError(r, /no\/n\.jsonl: cannot write: no folder /);
      expectInputError(
        runCli(['tag', '--model', tagger, '--input', columns, '--out', dir.dir]),
        /cannot write: is a directory$/,
      );
      expect(leftovers(dir.dir, [])).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('tag: bad input leaves neither --out nor --out-nbest behind (they used to be created empty or half-written)', () => {
    const dir = tempDir();
    try {
      const ragged = dir.file('ragged.conll', conll.replace('dog NN I-NP', 'dog NN'));
      const r = runCli([
        'tag',
        '--model',
        tagger,
        '--input',
        ragged,
        '--out',
        dir.file('out.conll'),
        '--nbest',
        '2',
        '--out-nbest',
        dir.file('n.jsonl'),
      ]);
      expectInputError(r, /ragged\.conll:7: expected 3 columns, found 2/);
      expect(leftovers(dir.dir, ['ragged.conll'])).toEqual([]);
      const empty = dir.file('empty.conll', '');
      expectInputError(
        runCli(['tag', '--model', tagger, '--input', empty, '--out', dir.file('out.conll')]),
        /empty\.conll: empty file/,
      );
      expect(leftovers(dir.dir, ['ragged.conll', 'empty.conll'])).toEqual([]);
      // A good run still writes both files.
      expect(
        runCli([
          'tag',
          '--model',
          tagger,
          '--input',
          columns,
          '--out',
          dir.file('out.conll'),
          '--nbest',
          '2',
          '--out-nbest',
          dir.file('n.jsonl'),
        ]).status,
      ).toBe(0);
      expect(readFileSync(dir.file('out.conll'), 'utf8').split('\n')[0]).toMatch(/^He PRP B-NP \S+$/);
      expect(leftovers(dir.dir, ['ragged.conll', 'empty.conll']).sort()).toEqual(['n.jsonl', 'out.conll']);
    } finally {
      dir.cleanup();
    }
  });

  it('trainers refuse a --model they could never write before training (it failed only at the end, after all the work)', () => {
    const dir = tempDir();
    try {
      const missing = join(dir.dir, 'no', 'x.model');
      const cases: string[][] = [
        ['train-parser', '--train', treebank, '--crf', '--epochs', '1'],
        [
          'train-tagger',
          '--algo',
          'perceptron',
          '--train',
          columns,
          '--columns',
          'word,pos,chunk',
          '--label',
          'chunk',
          '--epochs',
          '1',
        ],
        ['train-reranker', '--method', 'boost', '--train', nbest, '--cutoff', '1'],
        ['train-reranker', '--method', 'perceptron', '--train', nbest],
      ];
      for (const args of cases) {
        const r = runCli([...args, '--model', missing, '--threads', '1']);
        expectInputError(r, /no\/x\.model: cannot write: no folder /);
        // Refused up front: no progress line of a training run before the error.
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stdout).toBe('');
        expectInputError(runCli([...args, '--model', dir.dir, '--threads', '1']), /cannot write: is a directory$/);
      }
      expectInputError(
        runCli(['features', '--input', nbest, '--out', missing]),
        /no\/x\.model: cannot write: no folder /,
      );
      expect(leftovers(dir.dir, [])).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('rerank refuses n-best lists of the other kind for a linear reranker (a tree model silently picked the base choice on tag lists)', () => {
    const dir = tempDir();
    try {
      const tagList = dir.file(
        'tags.nbest.jsonl',
        `${JSON.stringify({
          id: 's1',
          tokens: ['He', 'runs'],
          candidates: [
            { tags: ['B-NP', 'B-VP'], logprob: -1 },
            { tags: ['B-NP', 'I-NP'], logprob: -2 },
          ],
          gold: ['B-NP', 'B-VP'],
        })}\n`,
      );
      const out = join(dir.dir, 'best.conll');
      expectInputError(
        runCli(['rerank', '--model', reranker, '--input', tagList, '--out', out, '--threads', '1']),
        /tags\.nbest\.jsonl: the model reranks trees$/,
      );
      expect(existsSync(out)).toBe(false);
      // A dev file of the other kind is refused before training, for linear and perceptron rerankers alike.
      for (const method of ['boost', 'perceptron']) {
        const model = join(dir.dir, `${method}.model`);
        const extra = method === 'boost' ? ['--cutoff', '1', '--rounds', '5'] : [];
        const r = runCli([
          'train-reranker',
          '--method',
          method,
          '--train',
          nbest,
          '--dev',
          tagList,
          '--model',
          model,
          '--threads',
          '1',
          ...extra,
        ]);
        expectInputError(r, /tags\.nbest\.jsonl: holds tag sequences but .*train\.nbest\.jsonl holds trees$/);
        expect(existsSync(model)).toBe(false);
      }
    } finally {
      dir.cleanup();
    }
  });

  it('rerank and train-reranker refuse a reranker model or feature table of a newer version or with malformed metadata (a newer one was read as version 1)', () => {
    const dir = tempDir();
    try {
      const table = dir.file('feats.bin');
      expect(runCli(['features', '--input', nbest, '--out', table, '--cutoff', '1', '--threads', '1']).status).toBe(0);
      const variant = (
        source: string,
        name: string,
        change: (m: ReturnType<typeof decodeModel>) => ReturnType<typeof decodeModel>,
      ): string => dir.file(name, encodeModel(change(decodeModel(readFileSync(source), source))));
      const rerank = (model: string): CliResult =>
        runCli(['rerank', '--model', model, '--input', nbest, '--out', join(dir.dir, 'best.mrg'), '--threads', '1']);
      expectInputError(
        rerank(variant(reranker, 'v2.model', (m) => ({ ...m, kindVersion: 2 }))),
        /v2\.model: reranker model: version 2 is newer than supported \(1\)$/,
      );
      expectInputError(
        rerank(variant(reranker, 'nometa.model', (m) => ({ ...m, meta: {} }))),
        /nometa\.model: reranker model: metadata is malformed$/,
      );
      const train = (features: string): CliResult =>
        runCli([
          'train-reranker',
          '--method',
          'boost',
          '--train',
          features,
          '--model',
          join(dir.dir, 'out.model'),
          '--threads',
          '1',
        ]);
      expectInputError(
        train(variant(table, 'v2.bin', (m) => ({ ...m, kindVersion: 2 }))),
        /v2\.bin: feature table version 2 is newer than supported \(1\)$/,
      );
      expectInputError(
        train(variant(table, 'nometa.bin', (m) => ({ ...m, meta: null }))),
        /nometa\.bin: feature table metadata is malformed$/,
      );
      expect(existsSync(join(dir.dir, 'best.mrg')) || existsSync(join(dir.dir, 'out.model'))).toBe(false);
    } finally {
      dir.cleanup();
    }
  });

  it('parse and rerank: an unwritable --out is an input error naming the file (was "internal error", exit 70)', () => {
    const dir = tempDir();
    try {
      const missing = join(dir.dir, 'no', 'out.mrg');
      expectInputError(
        runCli(['parse', '--model', parser, '--input', treebank, '--out', missing, '--threads', '1']),
        /no\/out\.mrg: cannot write: no folder /,
      );
      expectInputError(
        runCli(['rerank', '--model', reranker, '--input', nbest, '--out', missing, '--threads', '1']),
        /no\/out\.mrg: cannot write: no folder /,
      );
      expectInputError(
        runCli(['rerank', '--model', reranker, '--input', nbest, '--out', dir.dir, '--threads', '1']),
        /cannot write: is a directory$/,
      );
      expect(leftovers(dir.dir, [])).toEqual([]);
      expect(existsSync(missing)).toBe(false);
    } finally {
      dir.cleanup();
    }
  });
});

describe('robustness sweep: deeply nested trees', () => {
  const nested = (depth: number): string => '(ROOT '.repeat(depth - 1) + '(NN x)' + ')'.repeat(depth - 1);

  it('a tree nested thousands of levels deep is refused with file and line (was "Maximum call stack size exceeded")', () => {
    const deep = tmp.file('deep.mrg', `(ROOT (NN a))\n${nested(20000)}\n`);
    expectInputError(
      runCli(['eval', 'parse', '--gold', deep, '--test', deep]),
      /deep\.mrg:2: brackets nested more than 1000 levels deep/,
    );
    expectInputError(
      runCli(['kernel', 'trees', '--lambda', '0.5', deep]),
      /deep\.mrg:2: brackets nested more than 1000 levels deep/,
    );
    const line = (tree: string, id: string): string =>
      JSON.stringify({ id, tokens: ['x'], candidates: [{ tree, logprob: -1 }], gold: tree });
    const nbest = tmp.file('deep.nbest.jsonl', `${line('(ROOT (NN x))', '1')}\n${line(nested(20000), '2')}\n`);
    const model = tmp.file('deep.model');
    expectInputError(
      runCli(['train-reranker', '--method', 'perceptron', '--train', nbest, '--model', model]),
      /deep\.nbest\.jsonl:2: candidates\[0\]\.tree: brackets nested more than 1000 levels deep/,
    );
    expect(existsSync(model)).toBe(false);
  });

  it('trees up to the limit still work', () => {
    const ok = tmp.file('nested.mrg', `${nested(1000)}\n`);
    const r = runCli(['kernel', 'trees', '--lambda', '0.5', ok]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThan(0);
  });
});

describe('robustness sweep: train-parser --dev', () => {
  it('a bad --dev file fails before the model is written (the model used to be saved, then the command failed)', () => {
    const dir = tempDir();
    try {
      const train = dir.file('train.mrg', trees);
      const dev = dir.file('dev.mrg', '(ROOT (S (NP (DT a)\n');
      const model = join(dir.dir, 'parser.model');
      expectInputError(
        runCli(['train-parser', '--train', train, '--dev', dev, '--model', model, '--threads', '1']),
        /dev\.mrg:1: unbalanced brackets/,
      );
      expect(leftovers(dir.dir, ['train.mrg', 'dev.mrg'])).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });
});

describe('robustness sweep: negative option values', () => {
  it('a negative number is checked like any other value (was a three-line "argument is ambiguous" message)', () => {
    tmp.file('x.mrg', trees);
    const cases: Array<[string[], RegExp]> = [
      [
        ['train-parser', '--train', 'x.mrg', '--model', 'x.model', '--crf', '--epochs', '-1'],
        /^structrank: train-parser: invalid value for --epochs: '-1' \(integer >= 1\)$/,
      ],
      [
        ['kernel', 'trees', '--lambda', '-0.5', 'x.mrg'],
        /^structrank: kernel trees: invalid value for --lambda: '-0\.5' \(number > 0 and <= 1\)$/,
      ],
      [
        [
          'parse',
          '--model',
          'x.model',
          '--input',
          'x.mrg',
          '--out',
          'x.out',
          '--nbest',
          '-3',
          '--out-nbest',
          'x.jsonl',
        ],
        /^structrank: parse: invalid value for --nbest: '-3' \(integer >= 1\)$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args, { cwd: tmp.dir });
      const lines = r.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(2);
      expect(lines[0]).toMatch(message);
      expect(lines[1]).toMatch(/^usage: structrank /);
      expect(r.status).toBe(2);
    }
  });

  it("a blank value is refused, not read as 0 (--cutoff '' scored with cutoff 0, --eps 0.1, trained with eps 0 too)", () => {
    const gold = tmp.file('blank-gold.mrg', trees);
    const tree = '(ROOT (S (NP (PRP He)) (VP (VBZ runs))))';
    const list = tmp.file(
      'blank.nbest.jsonl',
      `${JSON.stringify({
        id: '1',
        tokens: ['He', 'runs'],
        candidates: [
          { tree, logprob: -1 },
          { tree: '(ROOT (NP (NN He) (NN runs)))', logprob: -2 },
        ],
        gold: tree,
      })}\n`,
    );
    const cases: Array<[string[], RegExp]> = [
      [
        ['eval', 'parse', '--gold', gold, '--test', gold, '--cutoff', ''],
        /^structrank: eval parse: invalid value for --cutoff: '' \(integer >= 0\)$/,
      ],
      [
        ['eval', 'parse', '--gold', gold, '--test', gold, '--cutoff', ' '],
        /^structrank: eval parse: invalid value for --cutoff: ' ' \(integer >= 0\)$/,
      ],
      [
        [
          'train-reranker',
          '--method',
          'boost',
          '--train',
          list,
          '--model',
          'x.model',
          '--cutoff',
          '1',
          '--eps',
          '0.1,',
        ],
        /^structrank: train-reranker: invalid value for --eps: '0\.1,' \(a list, each number >= 0\)$/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args, { cwd: tmp.dir });
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(message);
      expect(r.status).toBe(2);
    }
  });

  it('a flag where a value belongs is still refused, on one line', () => {
    const r = runCli(['parse', '--model', '--input', 'x.mrg', '--out', 'x.out'], { cwd: tmp.dir });
    expect(r.stderr.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(
      /^structrank: parse: Option '--model' argument is ambiguous\. .*'--model=-XYZ'\.\nusage: /,
    );
    expect(r.status).toBe(2);
  });
});

describe('robustness sweep: API training options', () => {
  const treebank = trees
    .trim()
    .split('\n')
    .slice(0, 5)
    .map((t) => parseTree(t));

  it('ChartParserModel.train refuses NaN or non-positive CRF options (they trained a model whose parses score NaN)', async () => {
    for (const bad of [
      { eta0: Number.NaN },
      { eta0: 0 },
      { sigma2: Number.NaN },
      { sigma2: -1 },
      { margin: -0.5 },
      { margin: Number.NaN },
      { beam: Number.NaN },
      { epochs: -1 },
      { epochs: 1.5 },
    ]) {
      await expect(
        ChartParserModel.train(treebank, { crf: true, epochs: 1, threads: 1, ...bad }),
        JSON.stringify(bad),
      ).rejects.toThrow(/^<options>: \w+ must be/);
    }
    const model = await ChartParserModel.train(treebank, { crf: true, epochs: 1, threads: 1 });
    const [parsed] = await model.parse([['the', 'dog', 'barks']]);
    expect(Number.isFinite(parsed.logprob)).toBe(true);
  });

  it('Tagger.train refuses a negative or NaN epoch count (it returned an untrained model)', async () => {
    const train = [
      [
        ['a', 'DT', 'B-NP'],
        ['dog', 'NN', 'I-NP'],
      ],
    ];
    for (const epochs of [-5, 0, Number.NaN]) {
      await expect(
        Tagger.train(train, { algo: 'perceptron', columns: ['word', 'pos', 'chunk'], label: 'chunk', epochs }),
        String(epochs),
      ).rejects.toThrow('<options>: epochs must be a positive integer');
    }
  });
});

describe('robustness sweep: train-tagger inputs', () => {
  const args = (extra: string[]): string[] => [
    'train-tagger',
    '--algo',
    'perceptron',
    '--columns',
    'word,pos,chunk',
    '--label',
    'chunk',
    '--epochs',
    '1',
    '--threads',
    '1',
    ...extra,
  ];

  it('a template config whose "templates" or "add" is not a list is refused with the file (was "internal error: ... is not iterable")', () => {
    const train = tmp.file('tpl-train.conll', conll);
    for (const [name, body, key] of [
      ['tpl-num.json', '{"templates": 5}', 'templates'],
      ['tpl-add.json', '{"base": "chunk", "add": {"w": 1}}', 'add'],
    ]) {
      const model = join(tmp.dir, `${name}.model`);
      expectInputError(
        runCli(args(['--train', train, '--template', tmp.file(name, body), '--model', model])),
        new RegExp(`${name}: "${key}" must be a list of templates$`),
      );
      expect(existsSync(model)).toBe(false);
    }
  });

  it('a training or dev file of blank lines is refused naming that file (was "<train>: no training sentences")', () => {
    const blank = tmp.file('blank.conll', '\n\n\n');
    const train = tmp.file('blank-train.conll', conll);
    expectInputError(
      runCli(args(['--train', blank, '--model', join(tmp.dir, 'b1.model')])),
      /blank\.conll: no sentences in file$/,
    );
    expectInputError(
      runCli(args(['--train', train, '--dev', blank, '--model', join(tmp.dir, 'b2.model')])),
      /blank\.conll: no sentences in file$/,
    );
    expect(existsSync(join(tmp.dir, 'b2.model'))).toBe(false);
  });
});

describe('robustness sweep: a second Ctrl-C', () => {
  it('ends the process at once and removes its temp files, even while native work runs (process.exit waited for it)', async () => {
    const dir = tempDir();
    try {
      const train = dir.file('train.conll', conll);
      const model = dir.file('tagger.model');
      expect(
        runCli([
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
          '1',
          '--model',
          model,
          '--threads',
          '1',
        ]).status,
      ).toBe(0);
      // Many long sentences and the largest k: one native k-best call that runs for seconds.
      const long =
        Array.from({ length: 400 }, () => Array.from({ length: 12 }, () => conll.split('\n\n')[0]).join('\n')).join(
          '\n\n',
        ) + '\n';
      const input = dir.file('input.conll', long);
      const child = spawn(
        process.execPath,
        [
          join(repoRoot, 'dist', 'cli.js'),
          'tag',
          '--model',
          model,
          '--input',
          input,
          '--out',
          dir.file('out.conll'),
          '--nbest',
          '1000',
          '--out-nbest',
          dir.file('n.jsonl'),
          '--threads',
          '1',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
      // The tagged text reaches the --out temp file just before the k-best call starts.
      const tagged = (): boolean =>
        readdirSync(dir.dir).some((f) => f.startsWith('out.conll.tmp-') && statSync(join(dir.dir, f)).size > 0);
      while (!tagged()) await sleep(50);
      await sleep(300);
      child.kill('SIGINT');
      while (!stderr.includes('stopping')) await sleep(50);
      child.kill('SIGINT');
      // The second Ctrl-C kills it at once, unless the first already stopped the job (the
      // k-best call checks the cancel flag between sentences): then it exits 130.
      const { code, signal } = await exited;
      expect(signal === 'SIGINT' || code === 130, `${code} ${signal}`).toBe(true);
      expect(leftovers(dir.dir, ['train.conll', 'tagger.model', 'input.conll'])).toEqual([]);
    } finally {
      dir.cleanup();
    }
  }, 120_000);
});

describe('robustness sweep: Ctrl-C during parse', () => {
  it('stops the parser at its next sentence, exits 130 and writes no output (the signal killed it outright)', async () => {
    const dir = tempDir();
    try {
      const model = dir.file('pcfg.model');
      expect(
        runCli([
          'train-parser',
          '--train',
          join(repoRoot, 'data', 'gum-open', 'train.mrg'),
          '--model',
          model,
          '--threads',
          '1',
        ]).status,
      ).toBe(0);
      // Enough sentences for a minute of parsing on one thread.
      const test = readFileSync(join(repoRoot, 'data', 'gum-open', 'test.mrg'), 'utf8');
      const input = dir.file('input.mrg', test.repeat(20));
      const child = spawn(
        process.execPath,
        [
          join(repoRoot, 'dist', 'cli.js'),
          'parse',
          '--model',
          model,
          '--input',
          input,
          '--out',
          dir.file('out.mrg'),
          '--threads',
          '1',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      // Signal only once parsing has started (its first progress line): on a loaded machine a
      // fixed delay could land before the handler is installed, and the signal kills node.
      await new Promise<void>((resolve) => {
        const ready = (): void => {
          if (/\d+\/\d+/.test(stderr)) {
            child.stderr.off('data', ready);
            resolve();
          }
        };
        child.stderr.on('data', ready);
        child.on('exit', () => resolve());
      });
      child.kill('SIGINT');
      const { code, signal } = await exited;
      expect(signal).toBeNull();
      expect(code).toBe(130);
      expect(stderr).toMatch(/stopping/);
      expect(leftovers(dir.dir, ['pcfg.model', 'input.mrg'])).toEqual([]);
    } finally {
      dir.cleanup();
    }
  }, 120_000);
});

describe('robustness sweep: pipeline output folder', () => {
  it('an --output that is a file is an input error naming it (was "internal error: EEXIST", exit 70)', () => {
    const dir = tempDir();
    try {
      const lines = trees.trim().split('\n');
      const config = dir.file(
        'pipeline.json',
        JSON.stringify({
          task: 'parse',
          data: {
            train: dir.file('train.mrg', lines.slice(0, 6).join('\n') + '\n'),
            dev: dir.file('dev.mrg', lines[6] + '\n'),
            test: dir.file('test.mrg', lines[7] + '\n'),
          },
          folds: 2,
          nbest: 2,
          rerankers: [{ type: 'boost', rounds: 5, cutoff: 1 }],
          threads: 1,
        }),
      );
      const notAFolder = dir.file('results', 'a file');
      const r = runCli(['pipeline', '--config', config, '--output', notAFolder]);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.stderr.trim().split('\n').pop()).toMatch(/results: cannot create the folder: EEXIST/);
      expect(r.status).toBe(1);
      expect(readFileSync(notAFolder, 'utf8')).toBe('a file');
    } finally {
      dir.cleanup();
    }
  });
});

describe('robustness sweep: kernel tags', () => {
  it('a file of only blank lines is refused like kernel trees does (it printed an empty matrix)', () => {
    const blank = tmp.file('blank-kernel.conll', '\n\n\n');
    expectInputError(
      runCli(['kernel', 'tags', '--lambda', '0.5', blank]),
      /blank-kernel\.conll: no sentences in file$/,
    );
    const ok = tmp.file('ok-kernel.conll', conll);
    expectInputError(
      runCli(['kernel', 'tags', '--lambda', '0.5', ok, blank]),
      /blank-kernel\.conll: no sentences in file$/,
    );
    const r = runCli(['kernel', 'tags', '--lambda', '0.5', ok]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
  });
});

describe('robustness sweep: feature extraction workers', () => {
  it('features --threads 100000 starts at most one worker per core (it started one per batch of 100 sentences)', async () => {
    const { availableParallelism } = await import('node:os');
    expect(extractionWorkers(100000, 360)).toBe(Math.min(360, availableParallelism()));
    expect(extractionWorkers(2, 360)).toBe(Math.min(2, availableParallelism()));
    expect(extractionWorkers(8, 1)).toBe(1);
  });
});

describe('robustness sweep: byte-order marks in small files', () => {
  const BOM = '\ufeff';

  it('JSON configs and tagger cluster files with a UTF-8 BOM are read as without it (JSON: "Unexpected token", clusters: the first word kept the BOM)', () => {
    const dir = tempDir();
    try {
      expect(readTemplateConfig(dir.file('t.json', `${BOM}{"base": "chunk"}\r\n`)).isDefault).toBe(true);
      const data = {
        train: dir.file('a.mrg', '(S (NN a))\n'),
        dev: dir.file('b.mrg', '(S (NN b))\n'),
        test: dir.file('c.mrg', '(S (NN c))\n'),
      };
      expect(
        readPipelineConfig(dir.file('p.json', `${BOM}${JSON.stringify({ task: 'parse', data, folds: 2 })}`)).folds,
      ).toBe(2);
      expect(readClusters(dir.file('clusters.txt', `${BOM}the\t0101\ndog\t0110\n`))).toBe('the\t0101\ndog\t0110');
      // A UTF-16 file (as "Unicode" in Windows editors) is refused as such, not echoed as garbage JSON.
      const utf16 = dir.file('u16.json', Buffer.from(`${BOM}{"base": "chunk"}`, 'utf16le'));
      expect(() => readTemplateConfig(utf16)).toThrow(
        /u16\.json:1: invalid UTF-8: the file looks like UTF-16; structrank reads UTF-8 \(convert with 'iconv -f UTF-16 -t UTF-8'\)$/,
      );
      const r = runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        dir.file('train.conll', conll),
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--epochs',
        '1',
        '--template',
        dir.file('t2.json', `${BOM}{"base": "chunk"}`),
        '--model',
        join(dir.dir, 'm.model'),
        '--threads',
        '1',
      ]);
      expect(r.stderr).not.toMatch(/structrank:/);
      expect(r.status).toBe(0);
    } finally {
      dir.cleanup();
    }
  });
});

describe('robustness sweep: devices and pipes as outputs', () => {
  it('parse --out and train-parser --model write a named pipe in place (a temp file was renamed over it; as root, --out /dev/null replaced /dev/null)', async () => {
    const dir = tempDir();
    try {
      const train = dir.file('train.mrg', trees);
      const read = (fifo: string): { text: () => string; done: Promise<void>; kill: () => void } => {
        execFileSync('mkfifo', [fifo]);
        const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
        let text = '';
        reader.stdout.on('data', (d: Buffer) => (text += d.toString('latin1')));
        return {
          text: () => text,
          done: new Promise((resolve) => reader.on('close', () => resolve())),
          kill: () => reader.kill(),
        };
      };
      const out = read(join(dir.dir, 'out.fifo'));
      const parsed = runCli([
        'parse',
        '--model',
        trainPcfg(train, dir),
        '--input',
        train,
        '--out',
        join(dir.dir, 'out.fifo'),
        '--threads',
        '1',
      ]);
      const model = read(join(dir.dir, 'model.fifo'));
      const trained = runCli([
        'train-parser',
        '--train',
        train,
        '--model',
        join(dir.dir, 'model.fifo'),
        '--threads',
        '1',
      ]);
      const pipes = ['out.fifo', 'model.fifo'].map((f) => statSync(join(dir.dir, f)).isFIFO());
      if (!pipes.every(Boolean)) [out, model].forEach((r) => r.kill()); // the readers would wait forever
      await Promise.all([out.done, model.done]);
      expect(pipes).toEqual([true, true]);
      expect(parsed.status).toBe(0);
      expect(trained.status).toBe(0);
      expect(out.text().trim().split('\n')).toHaveLength(trees.trim().split('\n').length);
      expect(model.text().startsWith('SRNKMDL')).toBe(true);
      expect(readdirSync(dir.dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });
});

/** A PCFG trained on `train` in `dir` (for tests that only need some parser model). */
function trainPcfg(train: string, dir: ReturnType<typeof tempDir>): string {
  const model = dir.file('pcfg.model');
  expect(runCli(['train-parser', '--train', train, '--model', model, '--threads', '1']).status).toBe(0);
  return model;
}
