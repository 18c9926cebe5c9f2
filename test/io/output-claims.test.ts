/**
 * No command writes over one of its own inputs (the same file by device and inode, also
 * through links), and two processes never write the same output file at once: the second
 * fails at its start naming the first (lib/io/outputs.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import { processAlive } from '../../lib/io/folder-lock.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const conll = ['The DT', 'cat NN', 'sat VBD', '. .', '', 'A DT', 'dog NN', 'ran VBD', '. .', ''].join('\n');
const trees =
  '(ROOT (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))\n(ROOT (S (NP (DT A) (NN dog)) (VP (VBD ran)) (. .)))\n';
const nbest = '{"id":"s1","tokens":["a"],"candidates":[{"tree":"(S (X a))","logprob":-1}],"gold":"(S (X a))"}\n';

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Writes `text` to a fresh file in its own folder: the folder's listing shows anything written beside it. */
function fixture(name: string, text: string): { dir: string; file: string } {
  const dir = tmp.file(`${name}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const file = join(dir, name);
  writeFileSync(file, text);
  return { dir, file };
}

/** Each command's arguments with one input `F` and an output that must not be it. */
const cases: { name: string; text: string; args: (input: string, out: string) => string[]; flag: string }[] = [
  {
    name: 'train.conll',
    text: conll,
    flag: '--model',
    args: (i, o) => [
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      i,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--model',
      o,
    ],
  },
  {
    name: 'dev.conll',
    text: conll,
    flag: '--checkpoint',
    args: (i, o) => [
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      i,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--model',
      join(tmp.dir, 'unused.model'),
      '--checkpoint',
      o,
    ],
  },
  { name: 'train.mrg', text: trees, flag: '--model', args: (i, o) => ['train-parser', '--train', i, '--model', o] },
  {
    name: 'test.mrg',
    text: trees,
    flag: '--out',
    args: (i, o) => ['parse', '--model', i + '.none', '--input', i, '--out', o],
  },
  {
    name: 'test2.mrg',
    text: trees,
    flag: '--out-nbest',
    args: (i, o) => ['parse', '--model', i + '.none', '--input', i, '--out', '-', '--nbest', '2', '--out-nbest', o],
  },
  {
    name: 'test.conll',
    text: conll,
    flag: '--out',
    args: (i, o) => ['tag', '--model', i + '.none', '--input', i, '--out', o],
  },
  {
    name: 'test2.conll',
    text: conll,
    flag: '--out',
    args: (i, o) => [
      'tag',
      '--model',
      i + '.none',
      '--input',
      i,
      '--out',
      o,
      '--separator',
      'tab',
      '--nbest',
      '2',
      '--out-nbest',
      join(tmp.dir, 'x.jsonl'),
    ],
  },
  {
    name: 'model.bin',
    text: conll,
    flag: '--out',
    args: (i, o) => ['tag', '--model', i, '--input', i + '.none', '--out', o],
  },
  { name: 'n.jsonl', text: nbest, flag: '--out', args: (i, o) => ['features', '--input', i, '--out', o] },
  {
    name: 'n2.jsonl',
    text: nbest,
    flag: '--model',
    args: (i, o) => ['train-reranker', '--method', 'boost', '--train', i, '--model', o],
  },
  {
    name: 'n3.jsonl',
    text: nbest,
    flag: '--model',
    args: (i, o) => ['train-reranker', '--method', 'perceptron', '--train', i, '--model', o],
  },
  {
    name: 'n4.jsonl',
    text: nbest,
    flag: '--out',
    args: (i, o) => ['rerank', '--model', i + '.none', '--input', i, '--out', o],
  },
  {
    name: 'c.mrg',
    text: trees,
    flag: '--out',
    args: (i, o) => ['convert', '--from', 'trees', '--to', 'conll', '--input', i, '--out', o],
  },
];

describe('an output that is an input is refused: exit 2, one line, nothing written', () => {
  for (const c of cases) {
    for (const how of ['same path', 'symbolic link', 'hard link'] as const) {
      it(`${c.args('F', 'O').slice(0, 1).join(' ')} ${c.flag} = input (${how})`, () => {
        const { dir, file } = fixture(c.name, c.text);
        const out = how === 'same path' ? file : join(dir, `alias-${c.name}`);
        if (how === 'symbolic link') symlinkSync(file, out);
        if (how === 'hard link') linkSync(file, out);
        const before = digest(file);
        const listing = readdirSync(dir).sort();
        const r = runCli(c.args(file, out));
        expect(r.stderr).toMatch(
          new RegExp(
            `^structrank: [a-z-]+: ${c.flag} \\S+ is the input --\\S+.*refusing to write over an input; choose another output file\\n`,
          ),
        );
        expect(r.stderr.trim().split('\n')[0]).toContain(out);
        expect(r.status).toBe(2);
        expect(digest(file)).toBe(before);
        expect(readdirSync(dir).sort()).toEqual(listing);
      });
    }
  }

  it('a new output beside the input is fine, and two outputs may not be one file', () => {
    const { dir, file } = fixture('ok.conll', conll);
    const model = join(dir, 'ok.model');
    const r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--epochs',
      '2',
      '--train',
      file,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--model',
      model,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(model)).toBe(true);
    expect(existsSync(`${model}.lock`)).toBe(false);
    const twice = runCli([
      'tag',
      '--model',
      model,
      '--input',
      file,
      '--out',
      join(dir, 'o.txt'),
      '--nbest',
      '2',
      '--out-nbest',
      join(dir, 'o.txt'),
    ]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/--out-nbest \S+o\.txt is also the output --out: give each output its own file/);
    expect(existsSync(join(dir, 'o.txt'))).toBe(false);
  });

  it('pipeline: a data file that is results.json of the output folder is refused', () => {
    const { dir, file } = fixture('results.json', trees);
    const config = join(dir, 'pipeline.json');
    writeFileSync(config, JSON.stringify({ task: 'parse', data: { train: file, dev: file, test: file }, output: dir }));
    const before = digest(file);
    const r = runCli(['pipeline', '--config', config]);
    expect(r.stderr).toMatch(
      /^structrank: pipeline: results\.json \S+ is the input data\.train.*refusing to write over an input/,
    );
    expect(r.status).toBe(2);
    expect(digest(file)).toBe(before);
  });
});

/** A child running the CLI; resolves with its exit code and output. */
function start(args: string[]) {
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const done = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (status, signal) => resolve({ status, signal })),
  );
  return { child, done, stderr: () => stderr, stdout: () => stdout };
}

async function waitFor(what: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('two processes writing one output file', () => {
  const trainArgs = (train: string, model: string): string[] => [
    'train-tagger',
    '--algo',
    'perceptron',
    '--epochs',
    '2',
    '--train',
    train,
    '--columns',
    'word,pos',
    '--label',
    'pos',
    '--model',
    model,
  ];

  it('the second writer fails at its start naming the first; the first finishes; the lock goes', async () => {
    const { dir, file } = fixture('two.conll', conll);
    const model = join(dir, 'shared.model');
    // The first run reads its training data from a pipe kept open: it holds the lock until we close it.
    const first = start(trainArgs('-', model));
    await waitFor(() => existsSync(`${model}.lock`));
    const second = runCli(trainArgs(file, model));
    expect(second.status).toBe(1);
    expect(second.stderr).toBe(
      `structrank: ${model}: another structrank run uses this output file: pid ${first.child.pid} on ${hostname()}, started ` +
        `${JSON.parse(readFileSync(`${model}.lock`, 'utf8')).started} (structrank ${trainArgs('-', model).join(' ')}); wait for it to finish or choose another output file\n`,
    );
    expect(existsSync(model)).toBe(false);
    // Another command writing the same file is refused too.
    const parser = runCli(['train-parser', '--train', join(repoRoot, 'data', 'gum-open', 'dev.mrg'), '--model', model]);
    expect(parser.status).toBe(1);
    expect(parser.stderr).toContain(`another structrank run uses this output file: pid ${first.child.pid}`);
    first.child.stdin.end(conll);
    const r = await first.done;
    expect(r.status, first.stderr()).toBe(0);
    expect(existsSync(model)).toBe(true);
    expect(existsSync(`${model}.lock`)).toBe(false);
    // Once the first is done, the same command runs.
    expect(runCli(trainArgs(file, model)).status).toBe(0);
  });

  it('a lock left by a process that is gone is taken over', () => {
    const { dir, file } = fixture('stale.conll', conll);
    const model = join(dir, 'stale.model');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(processAlive(Number(dead.stdout))).toBe(false);
    writeFileSync(
      `${model}.lock`,
      JSON.stringify({
        pid: Number(dead.stdout),
        host: hostname(),
        started: '2026-01-01T00:00:00.000Z',
        command: 'train-tagger',
      }),
    );
    const r = runCli(trainArgs(file, model));
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(`${model}.lock`)).toBe(false);
  });

  it('Ctrl-C removes the lock; a run killed while it reads a pipe leaves a stale lock the next run takes over', async () => {
    const { dir, file } = fixture('cancel.conll', conll);
    const model = join(dir, 'cancel.model');
    const first = start(trainArgs('-', model));
    await waitFor(() => existsSync(`${model}.lock`));
    first.child.kill('SIGINT');
    const r = await first.done;
    expect(r.signal).toBe('SIGINT');
    expect(existsSync(model)).toBe(false);
    const next = runCli(trainArgs(file, model));
    expect(next.status, next.stderr).toBe(0);
    expect(existsSync(`${model}.lock`)).toBe(false);
    // Reading a file, the handler is there from the start: "cancelled", exit 130, no lock left.
    const big = join(dir, 'big.conll');
    writeFileSync(big, conll.repeat(20000));
    const second = start([
      'train-tagger',
      '--algo',
      'perceptron',
      '--epochs',
      '200',
      '--train',
      big,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--model',
      model,
    ]);
    await waitFor(() => existsSync(`${model}.lock`));
    second.child.kill('SIGINT');
    const r2 = await second.done;
    expect(r2.status, second.stderr()).toBe(130);
    expect(second.stderr()).toMatch(/stopping(.*\n)*structrank: cancelled\n$/);
    expect(existsSync(`${model}.lock`)).toBe(false);
  }, 120_000);
});
