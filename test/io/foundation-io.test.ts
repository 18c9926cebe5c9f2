import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLinesSync, readLines, readTextFile } from '../../lib/io/lines.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { formatTree, words } from '../../lib/trees/tree.js';
import { readTreebank, readTreebankSync, writeTreebank } from '../../lib/io/treebank.js';
import { InputError } from '../../lib/errors.js';
import { dataFile, itWithData, repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('line reader', () => {
  it('strips CRLF and a BOM and numbers lines', () => {
    const f = tmp.file('crlf.txt', Buffer.from('\ufeffa b\r\nc\n\nd', 'utf8'));
    expect([...readLinesSync(f)]).toEqual([
      { text: 'a b', number: 1 },
      { text: 'c', number: 2 },
      { text: '', number: 3 },
      { text: 'd', number: 4 },
    ]);
  });

  it('names the line with invalid UTF-8', async () => {
    const f = tmp.file(
      'bad.txt',
      Buffer.concat([Buffer.from('ok\nfine\n'), Buffer.from([0x61, 0xff, 0x62]), Buffer.from('\nmore\n')]),
    );
    expect(() => [...readLinesSync(f)]).toThrow(/bad\.txt:3: invalid UTF-8/);
    await expect(async () => {
      for await (const _ of readLines(f)) void _;
    }).rejects.toThrow(/bad\.txt:3: invalid UTF-8/);
  });

  it('says which byte is bad and how to convert Latin-1 and UTF-16 files', () => {
    // "España" in Latin-1: 0xf1 is the fifth byte of the line.
    const latin1 = tmp.file('latin1.txt', Buffer.concat([Buffer.from('ok\n'), Buffer.from('España O\n', 'latin1')]));
    expect(() => [...readLinesSync(latin1)]).toThrow(
      /latin1\.txt:2: invalid UTF-8 \(byte 0xf1 at byte 5 of the line\); structrank reads UTF-8: convert a Latin-1 file with 'iconv -f ISO-8859-1 -t UTF-8'$/,
    );
    // A sequence cut short at the end of the line is named by its first byte.
    const cut = tmp.file('cut.txt', Buffer.concat([Buffer.from('ab'), Buffer.from([0xe2, 0x82]), Buffer.from('\n')]));
    expect(() => [...readLinesSync(cut)]).toThrow(/cut\.txt:1: invalid UTF-8 \(byte 0xe2 at byte 3 of the line\)/);
    const utf16 = tmp.file('le.txt', Buffer.from('\ufeffword O\n', 'utf16le'));
    expect(() => [...readLinesSync(utf16)]).toThrow(/le\.txt:1: invalid UTF-8: the file looks like UTF-16/);
  });

  it('reports a missing file', () => {
    expect(() => [...readLinesSync(tmp.dir + '/nope.txt')]).toThrow(/nope\.txt: no such file/);
  });

  it('names the file when a whole-file read fails', () => {
    expect(() => readTextFile(tmp.dir + '/nope.json')).toThrow(/nope\.json: no such file/);
    expect(() => readTextFile(tmp.dir)).toThrow(InputError);
    expect(() => readTextFile(tmp.dir)).toThrow(/is a directory, not a file/);
  });

  it('handles lines that straddle the 1 MiB read chunks', () => {
    const long = 'x'.repeat((1 << 20) + 17);
    const f = tmp.file('long.txt', `${long}\né\n`);
    const lines = [...readLinesSync(f)];
    expect(lines.map((l) => l.text.length)).toEqual([long.length, 1]);
    expect(lines[1].text).toBe('é');
  });
});

describe('bracket parser', () => {
  it('reads preterminals, wrappers and PTB bracket tokens', () => {
    const t = parseTree('( (S (NP-SBJ-1 (-NONE- *-1)) (NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-))))');
    expect(t.label).toBe('');
    expect(words(t)).toEqual(['*-1', '-LRB-', 'x', '-RRB-']);
    expect(formatTree(t)).toBe('( (S (NP-SBJ-1 (-NONE- *-1)) (NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-))))');
  });

  it('reads trees spread over lines and several trees on a line', () => {
    const f = tmp.file('multi.mrg', '(S\n  (NP (DT a))\n  (VP (VB b)))\n(X (Y z)) (X (Y w))\n');
    const parsed = readTreebankSync(f);
    expect(parsed.map((p) => p.line)).toEqual([1, 4, 4]);
    expect(formatTree(parsed[0].tree)).toBe('(S (NP (DT a)) (VP (VB b)))');
  });

  it.each([
    ['(S (NP (DT a))', /unclosed\.mrg:1: unbalanced brackets/],
    ['(S (NP (DT a))))\n', /unclosed\.mrg:1: unbalanced brackets: '\)'/],
    ['(S (NP))\n', /has no children and no word/],
    ['(S ())\n', /empty brackets/],
    ['\n\n', /unclosed\.mrg: no trees in file/],
    ['', /unclosed\.mrg: empty file/],
    ['hello (S (X y))\n', /text outside brackets/],
    ['(S (X y z))\n', /two words/],
  ])('rejects %j', (text, message) => {
    const f = tmp.file('unclosed.mrg', text);
    expect(() => readTreebankSync(f)).toThrow(message);
    expect(() => readTreebankSync(f)).toThrow(InputError);
  });
});

describe('treebank round trips', () => {
  const files = [
    'ptb-sample/train.mrg',
    'ptb-sample/dev.mrg',
    'ptb-sample/test.mrg',
    'gum-open/train.mrg',
    'gum-open/dev.mrg',
    'gum-open/test.mrg',
  ];
  for (const file of files) {
    const [set, name] = file.split('/');
    const test =
      set === 'gum-open' ? it : (title: string, fn: () => Promise<void>) => itWithData(['ptb-sample'], title, fn);
    test(`writes ${file} back byte for byte`, async () => {
      const path = set === 'gum-open' ? join(repoRoot, 'data', set, name) : dataFile(set, name);
      const out = tmp.file(file.replace('/', '-'));
      async function* trees() {
        for await (const p of readTreebank(path)) yield p.tree;
      }
      await writeTreebank(out, trees());
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(path, 'utf8'));
    });
  }
});

describe('CLI errors', () => {
  it('rejects an unknown command without a stack trace', () => {
    const r = runCli(['no-such-command']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'no-such-command'/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });
  it('runs as the package bin (the build marks it executable, as `npx structrank` needs)', () => {
    const r = spawnSync(join(repoRoot, 'dist', 'cli.js'), ['info', '--json'], { encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).modules).toContain('cancel');
  });
  it('prints native info', () => {
    const r = runCli(['info', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).modules).toContain('cancel');
  });
});
