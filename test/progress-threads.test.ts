import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Progress, setQuiet } from '../lib/progress.js';
import { resolveThreads } from '../lib/native.js';
import { repoRoot, runCli, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** A stderr stand-in that is not a terminal (a CI log, nohup, a job scheduler). */
function logStream(): { stream: NodeJS.WriteStream; lines: () => string[] } {
  let text = '';
  const stream = { isTTY: false, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
  return { stream, lines: () => text.split('\n').filter(Boolean) };
}

const trees = readFileSync(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, 60);
const conll =
  trees
    .map((t) =>
      [...t.matchAll(/\(([^\s()]+) ([^\s()]+)\)/g)]
        .map((m) => `${m[2]} ${m[1]} ${m[1].startsWith('N') ? 'B-NP' : 'O'}`)
        .join('\n'),
    )
    .join('\n\n') + '\n';
let train: string;
beforeAll(() => {
  train = tmp.file('train.conll', conll);
});

describe('progress lines when stderr is not a terminal', () => {
  it('one line per whole epoch with elapsed time, rate, ETA and status; none for fractions; no repeat at the end', () => {
    const { stream, lines } = logStream();
    const p = new Progress({ label: 'train', total: 4, unit: 'epochs', stream, logAfter: 0 });
    for (let step = 1; step <= 16; step++) p.update(step / 4, `loss ${20 - step}`);
    p.finish();
    expect(lines()).toHaveLength(4);
    expect(lines()[0]).toMatch(
      /^train {2}\[#####-+\] 1\/4 {2}elapsed \d+s {2}[\d.]+ epochs\/s {2}(ETA \d+s {2})?loss 16$/,
    );
    expect(lines()[3]).toMatch(/4\/4 .*loss 4$/);
  });

  it('long jobs (more than 100 units) print at most one line per interval, and a final one', () => {
    const { stream, lines } = logStream();
    const p = new Progress({ label: 'boosting', total: 4000, unit: 'rounds', stream, logEvery: 60_000, logAfter: 0 });
    for (let r = 1; r <= 4000; r++) p.update(r);
    p.finish('done');
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatch(/4000\/4000 .*done$/);
  });

  it('a job done in a moment prints nothing', () => {
    const { stream, lines } = logStream();
    const p = new Progress({ label: 'features', total: 40, stream });
    for (let i = 1; i <= 40; i++) p.update(i);
    p.finish();
    expect(lines()).toEqual([]);
  });

  it('--quiet (setQuiet) silences them', () => {
    const { stream, lines } = logStream();
    setQuiet(true);
    try {
      const p = new Progress({ label: 'train', total: 3, stream, logAfter: 0 });
      for (let e = 1; e <= 3; e++) p.update(e);
      p.finish();
    } finally {
      setQuiet(false);
    }
    expect(lines()).toEqual([]);
  });

  it('train-tagger writes one line per epoch to a non-terminal stderr, nothing with --quiet', () => {
    const model = tmp.file('t.model');
    const args = [
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
      '3',
      '--model',
      model,
    ];
    const r = runCli(args);
    expect(r.status, r.stderr).toBe(0);
    const epochLines = r.stderr.split('\n').filter((l) => /^train-tagger perceptron .* \d\/3 {2}elapsed/.test(l));
    expect(epochLines).toHaveLength(3);
    const quiet = runCli([...args, '--quiet']);
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('train-parser writes one line per epoch of CRF training, and progress lines with done/total, rate and objective', () => {
    const mrg = tmp.file('train.mrg', trees.slice(0, 40).join('\n') + '\n');
    const r = runCli([
      'train-parser',
      '--train',
      mrg,
      '--model',
      tmp.file('p.model'),
      '--crf',
      '--epochs',
      '2',
      '--threads',
      '1',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /^train-parser: pass \d\/2: .*objective/.test(l))).toHaveLength(2);
    expect(
      r.stderr
        .split('\n')
        .filter((l) =>
          /^train-parser {2}\[[#-]+\] \d+\/\d+ {2}elapsed \d+s {2}[\d.]+k? (steps|sentences)\/s .*objective/.test(l),
        ).length,
    ).toBeGreaterThanOrEqual(2);
  });
});

describe('--threads above the core count', () => {
  const cores = availableParallelism();

  it('is capped at the core count with one notice', () => {
    const notices: string[] = [];
    expect(resolveThreads(cores + 5, (l) => notices.push(l))).toBe(cores);
    expect(resolveThreads(100000, (l) => notices.push(l))).toBe(cores);
    expect(notices).toEqual([
      `structrank: --threads ${cores + 5} is more than the ${cores} cores here; using ${cores}`,
    ]);
    expect(resolveThreads(0)).toBe(cores);
    expect(resolveThreads(1)).toBe(1);
  });

  it('the CLI says so in one line and runs', () => {
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
      '1',
      '--model',
      tmp.file('t2.model'),
      '--threads',
      '100000',
      '--quiet',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`structrank: --threads 100000 is more than the ${cores} cores here; using ${cores}\n`);
  });
});
