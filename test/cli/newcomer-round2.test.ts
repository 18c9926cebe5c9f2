/**
 * The small items of a newcomer's second first hour: range in option errors, binary input
 * named as such, suggestions inside a command group, parse and tag both writing to stdout by
 * default, and tag refusing rows whose width is neither the model's input columns nor all its
 * training columns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const conll = ['The DT', 'cat NN', 'sat VBD', '. .', '', 'A DT', 'dog NN', 'ran VBD', '. .', ''].join('\n');
let model: string;

beforeAll(() => {
  model = tmp.file('pos.model');
  const r = runCli([
    'train-tagger',
    '--algo',
    'perceptron',
    '--epochs',
    '3',
    '--train',
    tmp.file('train.conll', conll),
    '--columns',
    'word,pos',
    '--label',
    'pos',
    '--model',
    model,
    '--quiet',
  ]);
  expect(r.status, r.stderr).toBe(0);
});

describe('tag: rows wider than the model', () => {
  const wide = ['The DT B-NP x', 'cat NN I-NP x', '', 'A DT B-NP x', ''].join('\n');
  for (const extra of [[], ['--nbest', '2', '--out-nbest', 'NBEST']]) {
    it(`3 or 4 columns for a word,pos model are refused with file and line${extra.length ? ' (n-best)' : ''}`, () => {
      for (const [name, text, found] of [
        ['three.conll', wide.replace(/ x/g, ''), 3],
        ['four.conll', wide, 4],
      ] as const) {
        const input = tmp.file(name, text);
        const out = tmp.file(`${name}.tagged`);
        const r = runCli([
          'tag',
          '--model',
          model,
          '--input',
          input,
          '--out',
          out,
          ...extra.map((a) => (a === 'NBEST' ? tmp.file(`${name}.jsonl`) : a)),
        ]);
        expect(r.stderr).toBe(`structrank: ${input}:1: expected 1 columns (word) or 2 (word, pos), found ${found}\n`);
        expect(r.status).toBe(1);
        expect(existsSync(out)).toBe(false);
      }
    });
  }

  it('the input columns alone, and all the training columns, are tagged', () => {
    const words = runCli(['tag', '--model', model, '--input', tmp.file('w.conll', 'The\ncat\n')]);
    expect(words.status, words.stderr).toBe(0);
    expect(words.stdout).toMatch(/^The \S+\ncat \S+\n$/);
    const all = runCli(['tag', '--model', model, '--input', tmp.file('wp.conll', 'The DT\ncat NN\n')]);
    expect(all.status, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^The DT \S+\ncat NN \S+\n$/);
  });
});

describe('small ones', () => {
  it('an out-of-range number names the allowed range', () => {
    const r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--epochs',
      '-3',
      '--train',
      'x',
      '--columns',
      'a,b',
      '--label',
      'b',
      '--model',
      'm',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("structrank: train-tagger: invalid value for --epochs: '-3' (integer >= 1)");
    const c2 = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--c2',
      '-1',
      '--train',
      'x',
      '--columns',
      'a,b',
      '--label',
      'b',
      '--model',
      'm',
    ]);
    expect(c2.stderr.split('\n')[0]).toBe("structrank: train-tagger: invalid value for --c2: '-1' (number >= 0)");
  });

  it('a binary file given as text is named as not text, not as Latin-1', () => {
    for (const args of [
      ['eval', 'parse', '--gold', model, '--test', model],
      ['tag', '--model', model, '--input', model],
      [
        'train-tagger',
        '--algo',
        'crf',
        '--train',
        model,
        '--columns',
        'word,pos',
        '--label',
        'pos',
        '--model',
        tmp.file('never.model'),
      ],
    ]) {
      const r = runCli(args);
      expect(r.stderr).toMatch(
        new RegExp(
          `^structrank: ${model}:1: not a text file: a NUL byte at byte \\d+ of the line \\(a binary file, such as a model, given where text is read\\?\\)\\n$`,
        ),
      );
      expect(r.stderr).not.toContain('Latin-1');
      expect(r.status).toBe(1);
    }
  });

  it("a mistyped command of a group suggests the group's command", () => {
    const r = runCli(['eval', 'pars']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "structrank: unknown command 'eval pars' (did you mean 'eval parse'?)\nrun 'structrank eval --help' for the list of commands\n",
    );
  });

  it('parse writes to stdout without --out, as tag does; --out still writes the file', () => {
    const parser = tmp.file('pcfg.model');
    expect(
      runCli(['train-parser', '--train', join(repoRoot, 'data', 'gum-open', 'dev.mrg'), '--model', parser, '--quiet'])
        .status,
    ).toBe(0);
    const text = tmp.file('two.txt', 'The cat sat .\nA dog ran .\n');
    const r = runCli(['parse', '--model', parser, '--input', text]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stdout).toMatch(/^\(ROOT .*\(\S+ The\).*\)\n\(ROOT .*\(\S+ dog\).*\)\n$/);
    const out = tmp.file('two.parsed');
    const f = runCli(['parse', '--model', parser, '--input', text, '--out', out]);
    expect(f.status, f.stderr).toBe(0);
    expect(f.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(r.stdout);
  });
});
