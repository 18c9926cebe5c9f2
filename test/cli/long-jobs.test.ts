/**
 * Long jobs run as child processes with stderr off a terminal: each says where it is while it
 * works (STRUCTRANK_PROGRESS_INTERVAL_MS shortens the 30 s interval so that a test sees it on
 * small data), and train-parser stops on Ctrl-C like every other command: "stopping", then
 * "cancelled", exit 130, the model file untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gum = (name: string): string => join(repoRoot, 'data', 'gum-open', name);
const INTERVAL = 300;

interface Child {
  write(text: string): void;
  end(text?: string): void;
  kill(signal: NodeJS.Signals): void;
  stderr(): string;
  stdout(): string;
  done: Promise<number | null>;
}

function start(args: string[]): Child {
  const child = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
    cwd: tmp.dir,
    env: { ...process.env, STRUCTRANK_PROGRESS_INTERVAL_MS: String(INTERVAL) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stdin.on('error', () => {});
  return {
    write: (t) => child.stdin.write(t),
    end: (t) => child.stdin.end(t),
    kill: (s) => child.kill(s),
    stderr: () => stderr,
    stdout: () => stdout,
    done: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
}

async function waitFor(what: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

let trainConll: string;
let testConll: string;
let tagger: string;
let pcfg: string;

beforeAll(() => {
  trainConll = tmp.file('gum-train.conll');
  testConll = tmp.file('gum-test.conll');
  for (const [mrg, out] of [
    [gum('train.mrg'), trainConll],
    [gum('test.mrg'), testConll],
  ]) {
    const r = runCli(['convert', '--from', 'trees', '--to', 'conll', '--input', mrg, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
  }
  tagger = tmp.file('pos.model');
  const t = runCli([
    'train-tagger',
    '--algo',
    'perceptron',
    '--epochs',
    '2',
    '--train',
    trainConll,
    '--columns',
    'word,pos',
    '--label',
    'pos',
    '--model',
    tagger,
    '--quiet',
  ]);
  expect(t.status, t.stderr).toBe(0);
  pcfg = tmp.file('pcfg.model');
  const p = runCli(['train-parser', '--train', gum('dev.mrg'), '--model', pcfg, '--quiet']);
  expect(p.status, p.stderr).toBe(0);
}, 300_000);

describe('long jobs say where they are off a terminal', () => {
  it('tag: a progress line (MB done and the rate) arrives while the input is still being read', async () => {
    const text = readFileSync(testConll, 'utf8');
    const child = start(['tag', '--model', tagger, '--input', '-', '--threads', '1']);
    child.write(text);
    await waitFor(() => /^tag {2}[\d.]+ {2}elapsed \d+s {2}[\d.]+k? MB\/s/m.test(child.stderr()));
    child.end(text);
    expect(await child.done, child.stderr()).toBe(0);
    expect(
      child
        .stdout()
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(2 * text.split('\n').filter((l) => l !== '').length);
  }, 120_000);

  it('train-parser --crf: progress lines (done/total, rate, objective) before the first pass ends', async () => {
    const child = start([
      'train-parser',
      '--crf',
      '--train',
      gum('train.mrg'),
      '--max-length',
      '25',
      '--epochs',
      '1',
      '--threads',
      '1',
      '--model',
      tmp.file('crf-progress.model'),
    ]);
    // Inside the pass: the sentences done of the pass's total and their rate. The pass need not
    // end: once such a line is seen, the child is stopped.
    const inPass = / pass 1\/1: \d+\/\d+ sentences, [\d.]+ sentences\/s$/m;
    await waitFor(
      () => inPass.test(child.stderr()) || /^train-parser: pass 1\/1|^structrank:/m.test(child.stderr()),
      600_000,
    );
    const before = child.stderr().split(/^train-parser: pass 1\/1/m)[0];
    expect(
      before
        .split('\n')
        .filter((l) =>
          /^train-parser {2}\[[#-]+\] \d+(\.\d+)?\/\d+ {2}elapsed \d+s {2}[\d.]+k? (steps|sentences)\/s/.test(l),
        ).length,
      child.stderr(),
    ).toBeGreaterThanOrEqual(1);
    expect(before, child.stderr()).toMatch(inPass);
    child.kill('SIGINT');
    expect(await child.done, child.stderr()).toBe(130);
  }, 600_000);

  it('parse with n-best lists, then features: lines with done/total and a rate before the end', async () => {
    const nbest = tmp.file('dev.nbest.jsonl');
    const parse = start([
      'parse',
      '--model',
      pcfg,
      '--input',
      gum('dev.mrg'),
      '--nbest',
      '10',
      '--out-nbest',
      nbest,
      '--threads',
      '1',
    ]);
    expect(await parse.done, parse.stderr()).toBe(0);
    expect(parse.stdout().trim().split('\n')).toHaveLength(311);
    const mid = parse
      .stderr()
      .split('\n')
      .filter((l) => /^parse {2}\[[#-]+\] (\d+)\/311 {2}elapsed \d+s {2}[\d.]+ sentences\/s {2}ETA/.test(l));
    expect(mid.length, parse.stderr()).toBeGreaterThanOrEqual(1);
    const features = start(['features', '--input', nbest, '--out', tmp.file('dev.feats'), '--threads', '1']);
    expect(await features.done, features.stderr()).toBe(0);
    expect(features.stderr()).toMatch(/^features \S+ {2}\[[#-]+\] \d+\/311 {2}elapsed \d+s {2}[\d.]+k? sentences\/s/m);
  }, 300_000);

  it('train-tagger: a line per iteration with done/total, the rate and the objective', async () => {
    const child = start([
      'train-tagger',
      '--algo',
      'crf',
      '--epochs',
      '8',
      '--train',
      trainConll,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--threads',
      '1',
      '--model',
      tmp.file('crf-tagger.model'),
    ]);
    expect(await child.done, child.stderr()).toBe(0);
    expect(
      child
        .stderr()
        .split('\n')
        .filter((l) => /^train-tagger crf {2}\[[#-]+\] \d\/8 {2}elapsed \d+s {2}[\d.]+ iterations\/s.*loss/.test(l))
        .length,
      child.stderr(),
    ).toBeGreaterThanOrEqual(4);
  }, 300_000);
});

describe('train-parser and Ctrl-C', () => {
  it('"stopping", then "cancelled", exit 130; the model file untouched; no lock or temp file left', async () => {
    const model = tmp.file('cancel.model', 'the model of an earlier run\n');
    const before = digest(model);
    const child = start(['train-parser', '--crf', '--train', gum('train.mrg'), '--threads', '1', '--model', model]);
    // Once CRF training runs (its progress lines follow the trees line).
    await waitFor(
      () => /^train-parser {2}\[[#-]+\] \d+(\.\d+)?\/\d+ .*(steps|sentences)\/s/m.test(child.stderr()),
      300_000,
    );
    child.kill('SIGINT');
    expect(await child.done, child.stderr()).toBe(130);
    expect(child.stderr()).toMatch(
      /structrank: stopping \(press Ctrl-C again to exit at once\)\n(.*\n)*structrank: cancelled\n$/,
    );
    expect(digest(model)).toBe(before);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('cancel.model.'))).toEqual([]);
  }, 300_000);

  it('Ctrl-C before training starts cancels too', async () => {
    const model = tmp.file('early.model');
    writeFileSync(model, 'old');
    const child = start(['train-parser', '--train', gum('train.mrg'), '--model', model]);
    await waitFor(() => readdirSync(tmp.dir).includes('early.model.lock'));
    child.kill('SIGINT');
    const code = await child.done;
    expect(code, child.stderr()).toBe(130);
    expect(child.stderr()).toMatch(/stopping(.*\n)*structrank: cancelled\n$/);
    expect(readFileSync(model, 'utf8')).toBe('old');
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('early.model.'))).toEqual([]);
  }, 120_000);
});
