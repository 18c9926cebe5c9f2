import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkColumnCount, parseColumns, readConll, readConllSync, writeConll } from '../../lib/io/conll.js';
import { readConllu, readConlluSync, type ConlluSentence } from '../../lib/io/conllu.js';
import { InputError, UsageError } from '../../lib/errors.js';
import { dataFile, describeWithData, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('named columns', () => {
  it('maps names to indices and validates the count', () => {
    const layout = parseColumns('word,pos,chunk');
    expect(layout.count).toBe(3);
    expect(layout.index('chunk')).toBe(2);
    expect(layout.has('ner')).toBe(false);
    expect(() => layout.index('ner')).toThrow(UsageError);
    expect(() => layout.index('ner')).toThrow(/no column named 'ner' in word,pos,chunk/);
    expect(() => parseColumns('word,,chunk')).toThrow(/empty column name/);
    expect(() => parseColumns('word,pos,word')).toThrow(/column 'word' named twice/);
    const f = tmp.file('cols.txt', 'a DT B-NP\nb NN I-NP\n');
    const [s] = readConllSync(f, { columns: layout.count });
    expect(() => checkColumnCount(layout, s, f)).not.toThrow();
    expect(() => checkColumnCount(parseColumns('word,pos'), s, f)).toThrow(
      /cols\.txt:1: expected 2 columns \(word,pos\), found 3/,
    );
    expect(() => readConllSync(f, { columns: 2 })).toThrow(/cols\.txt:1: expected 2 columns, found 3/);
  });
});

describeWithData(['conll2000', 'conll2002-esp'], 'CoNLL reader and writer on the shared data', () => {
  const sets: [string, string, number][] = [
    ['conll2000', 'train.txt', 7936],
    ['conll2000', 'dev.txt', 1000],
    ['conll2000', 'test.txt', 2012],
    ['conll2002-esp', 'esp.train', 8323],
    ['conll2002-esp', 'esp.testa', 1915],
    ['conll2002-esp', 'esp.testb', 1517],
  ];
  it.each(sets)('%s/%s: sentence count and a byte-identical round trip', async (dir, name, sentences) => {
    const path = dataFile(dir, name);
    let n = 0;
    let tokens = 0;
    async function* all() {
      for await (const s of readConll(path, { columns: 3 })) {
        n++;
        tokens += s.rows.length;
        yield s;
      }
    }
    const out = join(tmp.dir, `${dir}-${name}`);
    await writeConll(out, all());
    expect(n).toBe(sentences);
    const original = readFileSync(path, 'utf8');
    expect(tokens).toBe(original.split('\n').filter((l) => l.trim() !== '').length);
    expect(readFileSync(out, 'utf8')).toBe(original);
  });
});

describe('CoNLL reader errors and -DOCSTART-', () => {
  it.each([
    ['wrong column count', 'a B\nb C D\n', /bad\.conll:2: expected 2 columns, found 3/],
    ['empty file', '', /bad\.conll: empty file/],
  ])('%s', (_n, text, message) => {
    const f = tmp.file('bad.conll', text);
    expect(() => readConllSync(f)).toThrow(InputError);
    expect(() => readConllSync(f)).toThrow(message);
  });
  it('invalid UTF-8 and missing files', async () => {
    const f = tmp.file(
      'utf.conll',
      Buffer.concat([Buffer.from('a B\n\n'), Buffer.from([0x63, 0xc3, 0x28, 0x20, 0x42, 0x0a])]),
    );
    expect(() => readConllSync(f)).toThrow(/utf\.conll:3: invalid UTF-8/);
    await expect(async () => {
      for await (const _ of readConll(tmp.dir + '/missing.conll')) void _;
    }).rejects.toThrow(/missing\.conll: no such file/);
  });
  it('-DOCSTART- lines separate documents, or stay tokens with keepDocstart', () => {
    const f = tmp.file('doc.conll', '-DOCSTART- -X- O\n\na NN O\nb NN O\n-DOCSTART- -X- O\nc NN O\n');
    expect(readConllSync(f).map((s) => s.rows.length)).toEqual([2, 1]);
    expect(readConllSync(f, { keepDocstart: true }).map((s) => s.rows.map((r) => r[0]))).toEqual([
      ['-DOCSTART-'],
      ['a', 'b', '-DOCSTART-', 'c'],
    ]);
  });
  it('writer refuses fields with whitespace and leaves no file', async () => {
    const out = join(tmp.dir, 'ws.conll');
    await expect(writeConll(out, [[['a b', 'X']]])).rejects.toThrow(
      /ws\.conll: sentence 1, token 1, column 1: field "a b" is empty or contains whitespace/,
    );
    expect(readdirSync(tmp.dir).filter((n) => n.startsWith('ws.conll'))).toEqual([]);
    await writeConll(
      out,
      [
        [
          ['a', 'X'],
          ['b', 'Y'],
        ],
        { rows: [['c', 'Z']], line: 0 },
      ],
      { separator: '\t' },
    );
    expect(readFileSync(out, 'utf8')).toBe('a\tX\nb\tY\n\nc\tZ\n\n');
  });
});

describe('CoNLL-U', () => {
  const ewt: [string, number, number][] = [
    ['en_ewt-ud-train.conllu', 12544, 204577],
    ['en_ewt-ud-dev.conllu', 2001, 25147],
    ['en_ewt-ud-test.conllu', 2077, 25094],
  ];
  describeWithData(['ud-ewt'], 'on ud-ewt', () =>
    it.each(ewt)('ud-ewt %s: %i sentences, %i syntactic words', async (name, sentences, words) => {
      const path = dataFile('ud-ewt', name);
      let n = 0;
      let w = 0;
      let multi = 0;
      let empty = 0;
      let withId = 0;
      for await (const s of readConllu(path)) {
        n++;
        w += s.tokens.length;
        multi += s.multiwords.length;
        empty += s.emptyNodes;
        if (s.id !== undefined) withId++;
      }
      expect(n).toBe(sentences);
      expect(w).toBe(words);
      expect(withId).toBe(sentences);
      // independent counts of range and empty-node lines
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(multi).toBe(lines.filter((l) => /^\d+-\d+\t/.test(l)).length);
      expect(empty).toBe(lines.filter((l) => /^\d+\.\d+\t/.test(l)).length);
    }),
  );

  it('keeps multiword tokens as information and skips empty nodes', () => {
    const f = tmp.file(
      'mw.conllu',
      [
        '# sent_id = s1',
        "# text = I don't know",
        '1\tI\tI\tPRON\tPRP\t_\t3\tnsubj\t_\t_',
        "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
        '2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_',
        "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_",
        '3.1\tknow\tknow\tVERB\tVB\t_\t_\t_\t0:root\t_',
        '4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\t_',
        '',
        '1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\t_',
      ].join('\n'),
    );
    const s: ConlluSentence[] = readConlluSync(f);
    expect(s).toHaveLength(2);
    expect(s[0].id).toBe('s1');
    expect(s[0].line).toBe(1);
    expect(s[0].comments).toEqual(['sent_id = s1', "text = I don't know"]);
    expect(s[0].tokens.map((t) => t.form)).toEqual(['I', 'do', "n't", 'know']);
    expect(s[0].tokens[1]).toEqual({
      id: 2,
      form: 'do',
      lemma: 'do',
      upos: 'AUX',
      xpos: 'VBP',
      feats: '_',
      head: 4,
      deprel: 'aux',
      deps: '_',
      misc: '_',
      line: 5,
    });
    expect(s[0].multiwords).toEqual([{ first: 2, last: 3, form: "don't", misc: 'SpaceAfter=No', line: 4 }]);
    expect(s[0].emptyNodes).toBe(1);
    expect(s[1]).toMatchObject({ line: 10, emptyNodes: 0 });
    expect(s[1].id).toBeUndefined();
    expect(s[1].tokens[0].head).toBeNull();
  });

  const row = (id: string, head = '0') => `${id}\tw\tw\tX\tX\t_\t${head}\tdep\t_\t_`;
  it.each([
    ['wrong column count', `${row('1')}\n1\tw\tw\n`, /bad\.conllu:2: expected 10 tab-separated columns, found 3/],
    ['spaces instead of tabs', `1 w w X X _ 0 dep _ _\n`, /bad\.conllu:1: expected 10 tab-separated columns, found 1/],
    [
      'non-integer ID',
      `${row('1')}\n${row('two')}\n`,
      /bad\.conllu:2: ID 'two' is not an integer, a range \(3-4\) or an empty node \(5\.1\)/,
    ],
    ['ID out of order', `${row('1')}\n${row('3')}\n`, /bad\.conllu:2: word ID 3 out of order: expected 2/],
    ['ID zero', `${row('0')}\n`, /bad\.conllu:1: ID '0' is not an integer/],
    ['bad HEAD', `${row('1', 'x')}\n`, /bad\.conllu:1: HEAD 'x' is not an integer/],
    ['backwards range', `${row('2-1')}\n`, /bad\.conllu:1: multiword range '2-1' ends before it starts/],
    [
      'range past the end',
      `${row('1-2')}\n${row('1')}\n\n`,
      /bad\.conllu:1: multiword range 1-2 goes past the sentence's last word 1/,
    ],
    ['comments only', `# sent_id = a\n\n`, /bad\.conllu:1: sentence has no word lines/],
    ['comment inside a sentence', `${row('1')}\n# late\n`, /bad\.conllu:2: comment line inside a sentence/],
    ['empty file', '', /bad\.conllu: empty file/],
    ['blank lines only', '\n\n', /bad\.conllu: no sentences in file/],
  ])('rejects %s', async (_n, text, message) => {
    const f = tmp.file('bad.conllu', text);
    expect(() => readConlluSync(f)).toThrow(InputError);
    expect(() => readConlluSync(f)).toThrow(message);
    await expect(async () => {
      for await (const _ of readConllu(f)) void _;
    }).rejects.toThrow(message);
  });

  it('rejects invalid UTF-8 and missing files', () => {
    const f = tmp.file(
      'u.conllu',
      Buffer.concat([
        Buffer.from(`${row('1')}\n`),
        Buffer.from('2\tw\xff'),
        Buffer.from([0xff]),
        Buffer.from('\tw\tX\tX\t_\t0\tdep\t_\t_\n'),
      ]),
    );
    expect(() => readConlluSync(f)).toThrow(/u\.conllu:2: invalid UTF-8/);
    expect(() => readConlluSync(tmp.dir + '/gone.conllu')).toThrow(/gone\.conllu: no such file/);
  });
});
