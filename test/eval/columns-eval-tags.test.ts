import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { evalTagFiles } from '../../lib/eval/tag-files.js';
import { tagAccuracy } from '../../lib/eval/tags.js';
import { parseColumns } from '../../lib/io/conll.js';
import { dataFile, describeWithData, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('tag accuracy, hand-computed', () => {
  const train = () => tmp.file('train.txt', 'the DT\ndog NN\n\nruns VBZ\n');
  const gold = () => tmp.file('gold.txt', 'the DT\ncat NN\nruns VBZ\n\nfast RB\n');
  const test = () => tmp.file('test.txt', 'the DT\ncat JJ\nruns VBZ\n\nfast RB\n');

  it('counts all tokens and the tokens unseen in training', async () => {
    // 4 tokens, 3 right; unknown: cat (wrong), fast (right)
    expect(await evalTagFiles({ gold: gold(), test: test(), train: train() })).toEqual({
      tokens: 4,
      correct: 3,
      accuracy: 75,
      unknownTokens: 2,
      unknownCorrect: 1,
      unknownAccuracy: 50,
    });
    expect(await evalTagFiles({ gold: gold(), test: test() })).toEqual({
      tokens: 4,
      correct: 3,
      accuracy: 75,
      unknownTokens: null,
      unknownCorrect: null,
      unknownAccuracy: null,
    });
    expect(tagAccuracy([{ words: ['a', 'b'], gold: ['X', 'Y'], predicted: ['X', 'X'] }], new Set(['a']))).toMatchObject(
      { accuracy: 50, unknownTokens: 1, unknownCorrect: 0, unknownAccuracy: 0 },
    );
  });

  it('CLI: text and --json with fixed field names', () => {
    const t = runCli(['eval', 'tags', '--gold', gold(), '--test', test(), '--train', train()]);
    expect(t.status).toBe(0);
    expect(t.stdout).toBe('tokens: 4; correct: 3; accuracy: 75.00%\nunknown words: 2; correct: 1; accuracy: 50.00%\n');
    const j = JSON.parse(
      runCli(['eval', 'tags', '--gold', gold(), '--test', test(), '--train', train(), '--json']).stdout,
    );
    expect(Object.keys(j)).toEqual([
      'tokens',
      'correct',
      'accuracy',
      'unknownTokens',
      'unknownCorrect',
      'unknownAccuracy',
    ]);
  });

  it('picks a named tag column with --columns and --tag', async () => {
    const g = tmp.file('g3.txt', 'the DT B-NP\ncat NN I-NP\n');
    const p = tmp.file('p3.txt', 'the DT B-NP\ncat JJ B-NP\n');
    const columns = parseColumns('word,pos,chunk');
    expect((await evalTagFiles({ gold: g, test: p, columns, tag: 'pos' })).correct).toBe(1);
    expect((await evalTagFiles({ gold: g, test: p, columns, tag: 'chunk' })).correct).toBe(1);
    expect((await evalTagFiles({ gold: g, test: p })).correct).toBe(1);
    const r = runCli([
      'eval',
      'tags',
      '--gold',
      g,
      '--test',
      p,
      '--columns',
      'word,pos,chunk',
      '--tag',
      'pos',
      '--json',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ tokens: 2, correct: 1 });
    const bad = runCli(['eval', 'tags', '--gold', g, '--test', p, '--columns', 'word,pos', '--tag', 'pos']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/g3\.txt:1: expected 2 columns \(word,pos\), found 3/);
    expect(
      runCli(['eval', 'tags', '--gold', g, '--test', p, '--columns', 'word,pos,chunk', '--tag', 'ner']).stderr,
    ).toMatch(/no column named 'ner' in word,pos,chunk/);
    expect(runCli(['eval', 'tags', '--gold', g, '--test', p, '--tag', 'pos']).stderr).toMatch(/--tag needs --columns/);
  });

  it('refuses misaligned files and reports missing ones', () => {
    const short = tmp.file('short.txt', 'the DT\ncat JJ\n\nfast RB\n');
    const r = runCli(['eval', 'tags', '--gold', gold(), '--test', short]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/short\.txt:3: sentence has 2 tokens but the gold sentence .* has 3/);
    expect(
      runCli(['eval', 'tags', '--gold', gold(), '--test', test(), '--train', tmp.dir + '/none.txt']).stderr,
    ).toMatch(/none\.txt: no such file/);
    expect(runCli(['eval', 'tags', '--gold', gold()]).stderr).toMatch(/missing required option --test/);
  });
});

describeWithData(['conll2000'], 'tag accuracy on conll2000', () => {
  it('equals a brute-force recount of a perturbed POS column', async () => {
    const goldFile = dataFile('conll2000', 'test.txt');
    const trainFile = dataFile('conll2000', 'train.txt');
    const vocab = new Set(
      readFileSync(trainFile, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => l.split(' ')[0]),
    );
    let seed = 3;
    const rand = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    let tokens = 0;
    let correct = 0;
    let unknown = 0;
    let unknownCorrect = 0;
    const out = readFileSync(goldFile, 'utf8')
      .split('\n')
      .map((l) => {
        if (l.trim() === '') return l;
        const [w, pos, chunk] = l.split(' ');
        const guess = rand() < 0.07 ? 'NN' : pos;
        tokens++;
        if (guess === pos) correct++;
        if (!vocab.has(w)) {
          unknown++;
          if (guess === pos) unknownCorrect++;
        }
        return `${w} ${guess} ${chunk}`;
      });
    const testFile = tmp.file('pos-test.txt', out.join('\n'));
    const r = await evalTagFiles({
      gold: goldFile,
      test: testFile,
      train: trainFile,
      columns: parseColumns('word,pos,chunk'),
      tag: 'pos',
    });
    expect(r).toEqual({
      tokens,
      correct,
      accuracy: (100 * correct) / tokens,
      unknownTokens: unknown,
      unknownCorrect,
      unknownAccuracy: (100 * unknownCorrect) / unknown,
    });
    expect(tokens).toBe(47377);
    expect(correct).toBeLessThan(tokens);
  });
});
