import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomicFile, removeStaleTempFiles, writeTextAtomic } from '../../lib/io/atomic-writer.js';
import { processAlive } from '../../lib/io/folder-lock.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const gum = (name: string): string => join(repoRoot, 'data', 'gum-open', name);
const trees = readFileSync(gum('dev.mrg'), 'utf8').split('\n').filter(Boolean).slice(0, 12).join('\n') + '\n';
/** word pos chunk rows from the trees' preterminals (NP-ish chunk labels from the POS). */
const conll =
  trees
    .split('\n')
    .filter(Boolean)
    .map((t) =>
      [...t.matchAll(/\(([^\s()]+) ([^\s()]+)\)/g)]
        .map((m) => `${m[2]} ${m[1]} ${m[1].startsWith('N') ? 'B-NP' : 'O'}`)
        .join('\n'),
    )
    .join('\n\n') + '\n';

let parser: string;
let tagger: string;
let nbest: string;
let reranker: string;

beforeAll(() => {
  parser = tmp.file('p.model');
  tagger = tmp.file('t.model');
  nbest = tmp.file('nb.jsonl');
  reranker = tmp.file('r.model');
  const train = tmp.file(
    'train.mrg',
    readFileSync(gum('train.mrg'), 'utf8').split('\n').slice(0, 300).join('\n') + '\n',
  );
  expect(runCli(['train-parser', '--train', train, '--model', parser, '--threads', '1']).status).toBe(0);
  expect(
    runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      tmp.file('train.conll', conll),
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--epochs',
      '2',
      '--model',
      tagger,
    ]).status,
  ).toBe(0);
  expect(
    runCli([
      'parse',
      '--model',
      parser,
      '--input',
      tmp.file('dev.mrg', trees),
      '--out',
      tmp.file('dev.out'),
      '--nbest',
      '4',
      '--out-nbest',
      nbest,
    ]).status,
  ).toBe(0);
  expect(
    runCli(['train-reranker', '--method', 'boost', '--train', nbest, '--model', reranker, '--rounds', '20']).status,
  ).toBe(0);
}, 120_000);

/**
 * Runs the CLI as `cat file | structrank ...` does: standard input is a pipe (spawnSync's
 * `input` would be a socket, which /dev/stdin cannot reopen).
 */
function piped(args: string[], input: string): { status: number; stdout: string; stderr: string } {
  const file = tmp.file(`stdin-${Math.random().toString(36).slice(2)}`, input);
  const r = spawnSync(
    'sh',
    [
      '-c',
      'f=$1; node=$2; cli=$3; shift 3; cat "$f" | "$node" "$cli" "$@"',
      'sh',
      file,
      process.execPath,
      join(repoRoot, 'dist', 'cli.js'),
      ...args,
    ].map(String),
    {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    },
  );
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('standard input and output', () => {
  it('parse reads trees from - and /dev/stdin (a pipe: it sniffs the format first) and writes - to stdout', () => {
    const fromFile = runCli([
      'parse',
      '--model',
      parser,
      '--input',
      tmp.file('in.mrg', trees),
      '--out',
      tmp.file('parsed.mrg'),
    ]);
    expect(fromFile.status, fromFile.stderr).toBe(0);
    const expected = readFileSync(tmp.file('parsed.mrg'), 'utf8');
    const socket = runCli(['parse', '--model', parser, '--input', '-', '--out', '-'], { input: trees });
    expect(socket.status, socket.stderr).toBe(0);
    expect(socket.stdout).toBe(expected);
    for (const input of ['-', '/dev/stdin']) {
      const r = piped(['parse', '--model', parser, '--input', input, '--out', '-'], trees);
      expect(r.stderr).not.toMatch(/ESPIPE|internal error/);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
    }
  });

  it('tag reads - and writes the tagged lines and the n-best lists to -', () => {
    const r = piped(['tag', '--model', tagger, '--input', '-', '--out', '-'], conll);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0].split(' ')).toHaveLength(4);
    expect(lines.filter((l) => l !== '')).toHaveLength(
      conll
        .trim()
        .split('\n')
        .filter((l) => l !== '').length,
    );
    const n = piped(
      ['tag', '--model', tagger, '--input', '/dev/stdin', '--out', '/dev/null', '--nbest', '2', '--out-nbest', '-'],
      conll,
    );
    expect(n.status, n.stderr).toBe(0);
    expect(JSON.parse(n.stdout.split('\n')[0]).candidates).toHaveLength(2);
  });

  it('rerank reads the n-best lists from - and writes the chosen trees to -, its summary to stderr', () => {
    const toFile = runCli(['rerank', '--model', reranker, '--input', nbest, '--out', tmp.file('chosen.mrg')]);
    expect(toFile.status, toFile.stderr).toBe(0);
    const r = piped(['rerank', '--model', reranker, '--input', '-', '--out', '-'], readFileSync(nbest, 'utf8'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(tmp.file('chosen.mrg'), 'utf8'));
    expect(r.stderr).toMatch(/reranked 12 sentences/);
  });

  it('eval reads --gold - or --test - from standard input', () => {
    const gold = tmp.file('gold.mrg', trees);
    const both = runCli(['eval', 'parse', '--gold', gold, '--test', gold, '--json']);
    const r = piped(['eval', 'parse', '--gold', '-', '--test', gold, '--json'], trees);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(both.stdout);
    const tags = tmp.file('gold.conll', conll);
    const t = piped(['eval', 'tags', '--gold', tags, '--test', '-'], conll);
    expect(t.status, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/accuracy: 100\.00%/);
  });
});

describe('temp files of killed runs', () => {
  function deadPid(): number {
    const pid = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    );
    expect(processAlive(pid)).toBe(false);
    return pid;
  }

  it('are removed when the same output is written again; those of live processes stay', async () => {
    const out = tmp.file('result.txt');
    const dead = tmp.file(`result.txt.tmp-${deadPid()}-0a1b2c3d`, 'half');
    const live = tmp.file(`result.txt.tmp-${process.ppid}-0a1b2c3d`, 'in progress');
    const other = tmp.file(`other.txt.tmp-${deadPid()}-0a1b2c3d`, 'not ours');
    await writeTextAtomic(out, ['done\n']);
    expect(readFileSync(out, 'utf8')).toBe('done\n');
    expect([existsSync(dead), existsSync(live), existsSync(other)]).toEqual([false, true, true]);
    writeFileSync(dead, 'half again');
    const f = await AtomicFile.open(out);
    expect(existsSync(dead)).toBe(false);
    await f.discard();
    expect(removeStaleTempFiles(tmp.file('other.txt'))).toEqual([other]);
  });

  it('a CLI run removes the temp file a run killed with SIGKILL left beside its output', () => {
    const out = tmp.file('killed.mrg');
    // What SIGKILL leaves: <out>.tmp-<pid>-<random> of a process that no longer runs.
    const left = tmp.file(`killed.mrg.tmp-${deadPid()}-89abcdef`, '(S (X half');
    const r = runCli([
      'parse',
      '--model',
      parser,
      '--input',
      tmp.file('small.mrg', trees),
      '--out',
      out,
      '--threads',
      '1',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(left)).toBe(false);
    expect(readdirSync(tmp.dir).filter((n) => n.startsWith('killed.mrg.tmp-'))).toEqual([]);
  });
});
