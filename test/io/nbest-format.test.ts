import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatNbestLine,
  isOneWellFormedTree,
  readNbest,
  readNbestSync,
  writeNbest,
  type NbestSentence,
} from '../../lib/io/nbest.js';
import { InputError } from '../../lib/errors.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const treeLine = JSON.stringify({
  id: 's1',
  tokens: ['He', 'ran'],
  candidates: [
    { tree: '(S (NP (PRP He)) (VP (VBD ran)))', logprob: -1.5, features: { 'rule=S': 1, lex: 0.5 }, rank: 1 },
    { tree: '(S (NP (NN He)) (VP (VBD ran)))', logprob: -3 },
  ],
  gold: '(S (NP (PRP He)) (VP (VBD ran)))',
  source: 'some other tool',
});
const tagLine = (id: string, gold?: string[]) =>
  JSON.stringify({
    id,
    tokens: ['a', 'b', 'c'],
    candidates: [{ tags: ['B-NP', 'I-NP', 'O'], logprob: -0.25 }],
    ...(gold ? { gold } : {}),
  });

describe('n-best reader', () => {
  it('reads trees, keeps features and gold, ignores extra fields, skips blank lines', async () => {
    const f = tmp.file('trees.jsonl', `\n${treeLine}\n\n${treeLine.replace('"s1"', '"s2"')}\n`);
    const sync = readNbestSync(f);
    expect(sync.map((s) => [s.id, s.line])).toEqual([
      ['s1', 2],
      ['s2', 4],
    ]);
    expect(sync[0].candidates[0]).toEqual({
      tree: '(S (NP (PRP He)) (VP (VBD ran)))',
      logprob: -1.5,
      features: { 'rule=S': 1, lex: 0.5 },
    });
    expect(sync[0].candidates[1]).toEqual({ tree: '(S (NP (NN He)) (VP (VBD ran)))', logprob: -3 });
    expect(sync[0].gold).toBe('(S (NP (PRP He)) (VP (VBD ran)))');
    expect(Object.keys(sync[0]).sort()).toEqual(['candidates', 'gold', 'id', 'line', 'tokens']);
    const streamed: NbestSentence[] = [];
    for await (const s of readNbest(f)) streamed.push(s);
    expect(streamed).toEqual(sync);
  });

  it('reads tag sequences with gold tags', () => {
    const f = tmp.file('tags.jsonl', `${tagLine('a', ['B-NP', 'I-NP', 'O'])}\n${tagLine('b')}`);
    const s = readNbestSync(f);
    expect(s[0].gold).toEqual(['B-NP', 'I-NP', 'O']);
    expect(s[1].gold).toBeUndefined();
    expect(s[1].candidates[0].tags).toEqual(['B-NP', 'I-NP', 'O']);
  });

  const base = { id: 'x', tokens: ['a', 'b'], candidates: [{ tags: ['O', 'O'], logprob: 0 }] };
  const bad: [string, string, RegExp][] = [
    ['invalid JSON', '{"id": "x", ', /bad\.jsonl:2: invalid JSON/],
    ['array at top level', '[1, 2]', /bad\.jsonl:2: expected a JSON object/],
    ['missing id', JSON.stringify({ ...base, id: undefined }), /bad\.jsonl:2: missing field id/],
    ['numeric id', JSON.stringify({ ...base, id: 7 }), /bad\.jsonl:2: id must be a string/],
    ['missing tokens', JSON.stringify({ ...base, tokens: undefined }), /:2: missing field tokens/],
    ['tokens not array', JSON.stringify({ ...base, tokens: 'a b' }), /:2: tokens must be an array of strings/],
    ['token not string', JSON.stringify({ ...base, tokens: ['a', 3] }), /:2: tokens\[1\] must be a string/],
    ['missing candidates', JSON.stringify({ ...base, candidates: undefined }), /:2: missing field candidates/],
    ['empty candidates', JSON.stringify({ ...base, candidates: [] }), /:2: candidates must be a non-empty array/],
    ['candidate not object', JSON.stringify({ ...base, candidates: [3] }), /:2: candidates\[0\] must be an object/],
    [
      'logprob missing',
      JSON.stringify({
        ...base,
        candidates: [base.candidates[0], base.candidates[0], base.candidates[0], { tags: ['O', 'O'] }],
      }),
      /:2: missing field candidates\[3\]\.logprob/,
    ],
    [
      'logprob string',
      JSON.stringify({
        ...base,
        candidates: [base.candidates[0], base.candidates[0], base.candidates[0], { tags: ['O', 'O'], logprob: '-1' }],
      }),
      /:2: candidates\[3\]\.logprob must be a number/,
    ],
    [
      'neither tree nor tags',
      JSON.stringify({ ...base, candidates: [{ logprob: 0 }] }),
      /:2: candidates\[0\] needs a tree .* or tags/,
    ],
    [
      'both tree and tags',
      JSON.stringify({ ...base, candidates: [{ logprob: 0, tags: ['O', 'O'], tree: '(S (A a) (B b))' }] }),
      /both tree and tags/,
    ],
    [
      'tags length',
      JSON.stringify({ ...base, candidates: [{ tags: ['O'], logprob: 0 }] }),
      /:2: candidates\[0\]\.tags has 1 tags for 2 tokens/,
    ],
    [
      'tag not string',
      JSON.stringify({ ...base, candidates: [{ tags: ['O', 1], logprob: 0 }] }),
      /:2: candidates\[0\]\.tags\[1\] must be a string/,
    ],
    [
      'features not object',
      JSON.stringify({ ...base, candidates: [{ tags: ['O', 'O'], logprob: 0, features: [1] }] }),
      /candidates\[0\]\.features must be an object/,
    ],
    [
      'feature not number',
      JSON.stringify({ ...base, candidates: [{ tags: ['O', 'O'], logprob: 0, features: { f: 'x' } }] }),
      /candidates\[0\]\.features\["f"\] must be a number/,
    ],
    ['gold tags length', JSON.stringify({ ...base, gold: ['O'] }), /:2: gold has 1 tags for 2 tokens/],
    [
      'gold tree for tag candidates',
      JSON.stringify({ ...base, gold: '(S (A a) (B b))' }),
      /:2: gold must be an array of strings/,
    ],
    [
      'unbalanced candidate tree',
      JSON.stringify({ ...base, candidates: [{ tree: '(S (A a) (B b)', logprob: 0 }] }),
      /bad\.jsonl:2: candidates\[0\]\.tree: unbalanced brackets/,
    ],
    [
      'tree not a string',
      JSON.stringify({ ...base, candidates: [{ tree: ['S'], logprob: 0 }] }),
      /candidates\[0\]\.tree must be a bracketed tree string/,
    ],
    [
      'unbalanced gold tree',
      JSON.stringify({ ...base, candidates: [{ tree: '(S (A a) (B b))', logprob: 0 }], gold: '(S (A a) (B b)))' }),
      /:2: gold: unbalanced brackets/,
    ],
    [
      'a candidate tree with another word',
      JSON.stringify({
        ...base,
        candidates: [
          { tree: '(S (A a) (B b))', logprob: 0 },
          { tree: '(S (A a) (B c))', logprob: -1 },
        ],
      }),
      /bad\.jsonl:2: candidates\[1\]\.tree: the tree's words differ from tokens: word 2 is 'c' but token 2 is 'b'/,
    ],
    [
      'a candidate tree with a word too many',
      JSON.stringify({ ...base, candidates: [{ tree: '(S (A a) (B b) (C c))', logprob: 0 }] }),
      /:2: candidates\[0\]\.tree: the tree's words differ from tokens: has 3 words \(not counting -NONE- elements\) for 2 tokens/,
    ],
    [
      'a gold tree with another word',
      JSON.stringify({ ...base, candidates: [{ tree: '(S (A a) (B b))', logprob: 0 }], gold: '(S (A x) (B b))' }),
      /:2: gold: the tree's words differ from tokens: word 1 is 'x' but token 1 is 'a'/,
    ],
    [
      'an empty element among the tokens',
      JSON.stringify({
        ...base,
        tokens: ['a', '*T*', 'b'],
        candidates: [{ tree: '(S (A a) (-NONE- *T*) (B b))', logprob: 0 }],
      }),
      /:2: candidates\[0\]\.tree: the tree's words differ from tokens: has 2 words \(not counting -NONE- elements\) for 3 tokens/,
    ],
  ];
  it.each(bad)('rejects %s, naming file and line', (_name, second, message) => {
    const first = second.includes('"tree"') ? treeLine : JSON.stringify({ ...base, id: 'ok' });
    const f = tmp.file('bad.jsonl', `${first}\n${second}\n`);
    expect(() => readNbestSync(f)).toThrow(InputError);
    expect(() => readNbestSync(f)).toThrow(message);
  });

  it('accepts trees whose words equal the tokens once -NONE- elements are left out', () => {
    const line = JSON.stringify({
      id: 'e',
      tokens: ['He', 'left', '-LRB-'],
      candidates: [
        { tree: '(S (NP-SBJ (-NONE- *)) (NP (PRP He)) (VP (VBD left) (NP (-NONE- *T*-1))) (-LRB- -LRB-))', logprob: 0 },
      ],
      gold: '(S (NP (PRP He)) (VP (VBD left)) (-LRB- -LRB-))',
    });
    const [s] = readNbestSync(tmp.file('empty-elements.jsonl', `${line}\n`));
    expect(s.tokens).toEqual(['He', 'left', '-LRB-']);
    expect(s.candidates).toHaveLength(1);
  });

  it('rejects a file mixing trees and tags', async () => {
    const f = tmp.file('mixed.jsonl', `${treeLine}\n${tagLine('t')}\n`);
    expect(() => readNbestSync(f)).toThrow(
      /mixed\.jsonl:2: candidates\[0\] holds tags but the file's candidates are trees \(line 1\)/,
    );
    await expect(async () => {
      for await (const _ of readNbest(f)) void _;
    }).rejects.toThrow(/mixed\.jsonl:2:/);
  });

  it('rejects empty files, blank-only files and missing files', async () => {
    expect(() => readNbestSync(tmp.file('empty.jsonl', ''))).toThrow(/empty\.jsonl: empty file/);
    expect(() => readNbestSync(tmp.file('blank.jsonl', '\n  \n'))).toThrow(/blank\.jsonl: no sentences in file/);
    expect(() => readNbestSync(join(tmp.dir, 'none.jsonl'))).toThrow(/none\.jsonl: no such file/);
    await expect(async () => {
      for await (const _ of readNbest(join(tmp.dir, 'none.jsonl'))) void _;
    }).rejects.toThrow(/no such file/);
  });

  it('rejects invalid UTF-8 with the line', () => {
    const f = tmp.file(
      'utf.jsonl',
      Buffer.concat([Buffer.from(`${tagLine('a')}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]),
    );
    expect(() => readNbestSync(f)).toThrow(/utf\.jsonl:2: invalid UTF-8/);
  });
});

describe('n-best writer', () => {
  it('round-trips through formatNbestLine and readNbest', async () => {
    const f = tmp.file('in.jsonl', `${treeLine}\n${treeLine.replace('"s1"', '"s2"')}\n`);
    const out = join(tmp.dir, 'out.jsonl');
    await writeNbest(out, readNbest(f));
    const again = readNbestSync(out);
    expect(again.map((s) => ({ ...s, line: 0 }))).toEqual(readNbestSync(f).map((s) => ({ ...s, line: 0 })));
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe(formatNbestLine(again[0]));
    expect(formatNbestLine(again[0])).not.toMatch(/"line"|"source"|"rank"/);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('leaves the target untouched and no temp file when the input fails', async () => {
    const out = tmp.file('keep.jsonl', 'old content\n');
    async function* failing(): AsyncGenerator<NbestSentence> {
      yield { id: 'a', tokens: ['x'], candidates: [{ tags: ['O'], logprob: 0 }], line: 0 };
      throw new InputError('src', 3, 'boom');
    }
    await expect(writeNbest(out, failing())).rejects.toThrow(/src:3: boom/);
    expect(readFileSync(out, 'utf8')).toBe('old content\n');
    expect(readdirSync(tmp.dir).filter((n) => n.startsWith('keep.jsonl.tmp-'))).toEqual([]);
  });

  it('refuses a non-finite logprob', async () => {
    const out = join(tmp.dir, 'nan.jsonl');
    await expect(
      writeNbest(out, [{ id: 'a', tokens: ['x'], candidates: [{ tags: ['O'], logprob: NaN }], line: 0 }]),
    ).rejects.toThrow(/logprob/);
    expect(existsSync(out)).toBe(false);
  });

  it('reports an unwritable target', async () => {
    await expect(writeNbest(join(tmp.dir, 'no', 'dir', 'x.jsonl'), [])).rejects.toThrow(/x\.jsonl: cannot write/);
  });
});

describe('fast tree check', () => {
  it('accepts exactly the strings parseTree accepts (random strings)', () => {
    let seed = 5;
    const rand = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const alphabet = ['(', '(', ')', ')', ' ', 'a', 'NP', '\u00a0', '\f', '\t', '\n', '-LRB-'];
    const accepts = (s: string) => {
      try {
        parseTree(s);
        return true;
      } catch {
        return false;
      }
    };
    let accepted = 0;
    for (let k = 0; k < 30000; k++) {
      const n = 1 + Math.floor(rand() * 14);
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
      expect(isOneWellFormedTree(s), JSON.stringify(s)).toBe(accepts(s));
      if (accepts(s)) accepted++;
    }
    // near-valid strings: random trees with one character changed
    const tree = (d: number): string =>
      d > 2 || rand() < 0.4
        ? `(T${Math.floor(rand() * 3)} w)`
        : `(N ${Array.from({ length: 1 + Math.floor(rand() * 3) }, () => tree(d + 1)).join(' ')})`;
    for (let k = 0; k < 20000; k++) {
      let s = rand() < 0.2 ? `( ${tree(0)})` : tree(0);
      if (rand() < 0.7) {
        const at = Math.floor(rand() * s.length);
        const c = alphabet[Math.floor(rand() * alphabet.length)];
        const op = rand();
        s =
          op < 0.33
            ? s.slice(0, at) + s.slice(at + 1)
            : op < 0.66
              ? s.slice(0, at) + c + s.slice(at)
              : s.slice(0, at) + c + s.slice(at + 1);
      }
      expect(isOneWellFormedTree(s), JSON.stringify(s)).toBe(accepts(s));
      if (accepts(s)) accepted++;
    }
    for (const s of [
      '(S (NP (DT a)) (VP (VB b)))',
      '( (S (A a)))',
      '(A a) (B b)',
      '(S (A a) b)',
      '(S b (A a))',
      '(S (A a b))',
      '(S ())',
      '(X)',
      'x (A a)',
    ]) {
      expect(isOneWellFormedTree(s), s).toBe(accepts(s));
    }
    expect(accepted).toBeGreaterThan(5000);
  });
});
