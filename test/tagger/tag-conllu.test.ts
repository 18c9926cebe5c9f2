import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readNbestSync } from '../../lib/io/nbest.js';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// A small CoNLL-U corpus: determiner-noun-verb sentences in three word orders, so a tagger
// learns it well, with the parts CoNLL-U adds to plain columns: comments, a multiword token
// (3-4), an empty node (2.1) and MISC attributes.
const DET = ['the', 'a', 'this'];
const NOUN = ['dog', 'cat', 'bird', 'fish'];
const VERB = ['runs', 'sleeps', 'sings'];
const word = (id: string, form: string, upos: string, misc = '_'): string =>
  [id, form, form, upos, `X${upos}`, '_', '0', 'dep', '_', misc].join('\t');

function sentence(k: number): string {
  const d = DET[k % 3];
  const n = NOUN[k % 4];
  const v = VERB[k % 3];
  const lines = [`# sent_id = s${k}`, `# text = ${d} ${n} ${v}`];
  if (k % 3 === 0)
    lines.push(
      word('1', d, 'DET'),
      word('2', n, 'NOUN'),
      word('3', v, 'VERB', 'SpaceAfter=No'),
      word('4', '.', 'PUNCT'),
    );
  else if (k % 3 === 1)
    lines.push(
      word('1', d, 'DET'),
      word('2', n, 'NOUN'),
      '2.1\tis\tbe\tAUX\t_\t_\t_\t_\t0:root\t_',
      word('3', v, 'VERB'),
    );
  else
    lines.push(
      word('1', v, 'VERB'),
      word('2', d, 'DET'),
      '3-4\tdogcat\t_\t_\t_\t_\t_\t_\t_\t_',
      word('3', n, 'NOUN'),
      word('4', NOUN[(k + 1) % 4], 'NOUN'),
    );
  return lines.join('\n') + '\n';
}
const corpus = (from: number, to: number): string =>
  Array.from({ length: to - from }, (_, i) => sentence(from + i)).join('\n');

const isWord = (line: string): boolean => /^[1-9][0-9]*\t/.test(line);

describe('tag and eval tags on CoNLL-U files', () => {
  let train: string;
  let test: string;
  let model: string;
  beforeAll(() => {
    train = tmp.file('train.conllu', corpus(0, 60));
    test = tmp.file('test.conllu', corpus(100, 112));
    model = tmp.file('upos.model');
    const r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--columns',
      'word,upos',
      '--label',
      'upos',
      '--epochs',
      '5',
      '--model',
      model,
    ]);
    expect(r.stderr + r.stdout).toMatch(/perceptron order/);
    expect(r.status).toBe(0);
  });

  it('writes CoNLL-U back: every line kept, the prediction in the UPOS field of each word line', () => {
    const out = tmp.file('out.conllu');
    const r = runCli(['tag', '--model', model, '--input', test, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const inLines = readFileSync(test, 'utf8').split('\n');
    const outLines = readFileSync(out, 'utf8').split('\n');
    expect(outLines.length).toBe(inLines.length);
    let words = 0;
    inLines.forEach((line, i) => {
      if (!isWord(line)) return expect(outLines[i]).toBe(line);
      words++;
      const a = line.split('\t');
      const b = outLines[i].split('\t');
      expect(b.length).toBe(10);
      expect([...b.slice(0, 3), ...b.slice(4)]).toEqual([...a.slice(0, 3), ...a.slice(4)]);
      expect(b[3]).toBe(a[3]); // the corpus is easy: every tag right
    });
    expect(words).toBe(44);

    // The same sentences as CoNLL columns get the same tags.
    const sentences = readFileSync(test, 'utf8').trim().split('\n\n');
    const columns = sentences.map((s) =>
      s
        .split('\n')
        .filter(isWord)
        .map((l) => l.split('\t')[1])
        .join('\n'),
    );
    const plain = tmp.file('test.conll', columns.join('\n\n') + '\n');
    const p = runCli(['tag', '--model', model, '--input', plain]);
    expect(p.status).toBe(0);
    const plainTags = p.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' ')[1]);
    expect(plainTags).toEqual(outLines.filter(isWord).map((l) => l.split('\t')[3]));
  });

  it('writes n-best lists with the FORMs as tokens and the UPOS field as gold', () => {
    const nb = tmp.file('test.nbest.jsonl');
    const r = runCli([
      'tag',
      '--model',
      model,
      '--input',
      test,
      '--out',
      tmp.file('o2.conllu'),
      '--nbest',
      '3',
      '--out-nbest',
      nb,
    ]);
    expect(r.status).toBe(0);
    const records = readNbestSync(nb);
    expect(records.length).toBe(12);
    expect(records[0].tokens).toEqual(['a', 'dog', 'sleeps']); // the empty node 2.1 is no token
    expect(records[0].gold).toEqual(['DET', 'NOUN', 'VERB']);
    expect(records[1].tokens).toEqual(['sings', 'this', 'cat', 'bird']); // words, not the multiword token
    expect(records[0].candidates.length).toBe(3);
  });

  it('puts a label that is no CoNLL-U field into MISC as label=TAG', () => {
    const conll = tmp.file('ne.conll', 'Ana B-PER\nsleeps O\n\nthe O\nBob B-PER\nruns O\n\n'.repeat(20));
    const ne = tmp.file('ne.model');
    expect(
      runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        conll,
        '--columns',
        'word,ne',
        '--label',
        'ne',
        '--model',
        ne,
      ]).status,
    ).toBe(0);
    const input = tmp.file(
      'ne.conllu',
      [word('1', 'Ana', 'PROPN', 'SpaceAfter=No'), word('2', 'sleeps', 'VERB', 'ne=X')].join('\n') + '\n\n',
    );
    const r = runCli(['tag', '--model', ne, '--input', input]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.split('\t')[9])).toEqual([
      'SpaceAfter=No|ne=B-PER',
      'ne=O',
      undefined,
      undefined,
    ]);
  });

  it('refuses to train on a field the treebank leaves empty', () => {
    const empty = tmp.file('no-xpos.conllu', corpus(0, 5).replace(/\tX(DET|NOUN|VERB|PUNCT)\t/g, '\t_\t'));
    const r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      empty,
      '--columns',
      'word,xpos',
      '--label',
      'xpos',
      '--model',
      tmp.file('no.model'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      `structrank: ${empty}: every token's xpos is '_' ('_' marks a field with no value in CoNLL-U): a tagger needs at least two labels`,
    );
  });

  it('refuses, in one line, a model reading a column CoNLL-U does not have, and bad lines', () => {
    const conll = tmp.file('chunk.conll', 'He PRP B-NP\nruns VBZ B-VP\n\n'.repeat(20));
    const chunk = tmp.file('chunk.model');
    expect(
      runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        conll,
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--model',
        chunk,
      ]).status,
    ).toBe(0);
    const r = runCli(['tag', '--model', chunk, '--input', test]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      "structrank: tag: the model reads a column 'pos', which is no CoNLL-U field (word (= form), lemma, upos, xpos, feats, deprel); give CoNLL columns with --format conll",
    );

    const bad = tmp.file('bad.conllu', `${word('1', 'the', 'DET')}\n2\tdog\tdog\tNOUN\n\n`);
    const out = tmp.file('bad-out', undefined);
    const b = runCli(['tag', '--model', model, '--input', bad, '--out', out]);
    expect(b.status).toBe(1);
    expect(b.stderr.trim()).toBe(`structrank: ${bad}:2: expected 10 tab-separated columns, found 4`);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('bad-out'))).toEqual([]);
  });

  it('eval tags scores a CoNLL-U field, and names the line where two files part', () => {
    const guessed = readFileSync(test, 'utf8')
      .split('\n')
      .map((l, i) => (isWord(l) && i % 5 === 0 ? l.replace(/\t(DET|NOUN|VERB|PUNCT)\t/, '\tX\t') : l));
    const wrong = guessed.filter((l, i) => isWord(l) && l !== readFileSync(test, 'utf8').split('\n')[i]).length;
    const pred = tmp.file('pred.conllu', guessed.join('\n'));
    const r = runCli(['eval', 'tags', '--gold', test, '--test', pred, '--json']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { tokens: number; correct: number };
    expect(wrong).toBeGreaterThan(0);
    expect(report).toMatchObject({ tokens: 44, correct: 44 - wrong });
    const x = JSON.parse(
      runCli(['eval', 'tags', '--gold', test, '--test', pred, '--tag', 'xpos', '--json']).stdout,
    ) as { correct: number };
    expect(x.correct).toBe(44);
    const withTrain = JSON.parse(
      runCli(['eval', 'tags', '--gold', test, '--test', test, '--train', train, '--json']).stdout,
    ) as { unknownTokens: number };
    expect(withTrain.unknownTokens).toBe(0);

    const lines = readFileSync(test, 'utf8').split('\n');
    const at = lines.findIndex((l, i) => i > 20 && isWord(l));
    lines[at] = lines[at].replace(/\t([a-z]+)\t([a-z]+)\t/, '\tzebra\t$2\t');
    const shifted = tmp.file('shifted.conllu', lines.join('\n'));
    const m = runCli(['eval', 'tags', '--gold', test, '--test', shifted]);
    expect(m.status).toBe(1);
    expect(m.stderr).toContain(`${shifted}:${at + 1}: token 'zebra' does not match the gold token`);
    expect(runCli(['eval', 'tags', '--gold', test, '--test', pred, '--tag', 'form']).stderr.split('\n')[0]).toBe(
      "structrank: eval tags: with CoNLL-U files, --tag names a field among lemma, upos, xpos, feats, deprel; got 'form'",
    );
  });
});
