/**
 * The native tree loader (TreeBank.fromFile: C++ bracket reader over the file's bytes) against
 * the JS path it replaces (readTreebankSync + TreeBank.fromTrees): the same banks and Gram
 * values to the last bit, the same errors; and the native matrix text against String() /
 * JSON.stringify(); and the lean `kernel trees` path against the full CLI, byte for byte.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { InputError } from '../../lib/errors.js';
import { readTreebankSync, readTreesSync } from '../../lib/io/treebank.js';
import { TreeBank } from '../../lib/kernels/tree-bank.js';
import { gram } from '../../lib/kernels/kernel.js';
import type { KernelsAddon } from '../../lib/kernels/native-kernels.js';
import { leanKernelTreesArgs } from '../../lib/commands/kernel-trees-lean.js';
import { native } from '../../lib/native.js';
import { BracketParser, type ParsedTree } from '../../lib/trees/bracket-parser.js';
import { dataFile, itWithData, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The bank the JS path builds. */
const jsBank = (file: string, strip = false): TreeBank => {
  const parsed = readTreebankSync(file);
  return TreeBank.fromTrees(
    parsed.map((p) => p.tree),
    { source: file, lines: parsed.map((p) => p.line), strip },
  );
};

function expectSameBank(file: string): void {
  const fast = TreeBank.fromFile(file);
  const slow = jsBank(file);
  // The native reader took the file itself (an empty bank would mean it declined).
  expect(new (native<KernelsAddon>().TreeBank)(readFileSync(file), true).size()).toBe(slow.size);
  const slow2 = jsBank(file);
  expect(fast.size).toBe(slow.size);
  expect(fast.totalNodes).toBe(slow.totalNodes);
  expect(fast.bytes).toBe(slow.bytes);
  for (const options of [
    { lambda: 0.4 },
    { lambda: 0.4, normalize: true },
    { lambda: 0.7, depth: 2 },
    { lambda: 0.4, plain: true },
  ]) {
    // Exact equality: the same production ids in the same order give the same sums.
    expect(gram(fast, options)).toEqual(gram(slow, options));
    // Across two banks every K(i, j) is computed with i from the first: compare like with like.
    expect(gram(fast, slow, options)).toEqual(gram(slow2, slow, options));
  }
}

const HAND_MADE: Record<string, string> = {
  'one per line': '(S (NP (D a) (N b)) (VP (V c)))\n(S (NP (D a)) (VP (V c)))\n',
  'wrapped, several per line, spanning lines':
    '( (S (NP (D a) (N b)) (VP (V c)))) ( (S (NP (D the))\n   (VP (V c)\n (NP (N b)))))\n',
  'wrapper with two children is kept': '((A a) (B b))\n( (A a))\n',
  'only one wrapper removed': '( ( (S (A a) (B b))))\n',
  'unlabeled inner node': '(S ( (A b)) (C d))\n',
  'top-level preterminal': '(X y)\n(X y)\n(X z)\n',
  'treebank labels': '( (S (NP-SBJ-1 (-NONE- *T*-1)) (VP (VBD said) (, ,) (`` ``) (NP (PRP$ its) (NNS $))) (. .)))\n',
  'CRLF, tabs, form feed, BOM': '\ufeff(S\t(A a)\r\n (B b))\r\n\f(S (A a) (B c))\r\n',
  'unicode whitespace separates tokens': '(S\u00a0(A a)\u3000(B\u2009b) (C c\u00a0))\n(S (A a) (B b) (C c))\n',
  'non-ASCII labels and words': '(S (NÖ ação) (V 東京) (X \u0085x))\n(S (NÖ ação) (V 東京) (X \u0085x))\n',
  'same symbol as label and word': '(NP (NP NP) (D NP))\n(D NP)\n',
  'no final newline': '(S (A a))',
};

describe('TreeBank.fromFile (native bracket reader)', () => {
  for (const [name, text] of Object.entries(HAND_MADE)) {
    it(`builds the same bank and Gram values as the JS path: ${name}`, () => {
      expectSameBank(tmp.file(`${name.replace(/\W+/g, '-')}.mrg`, text));
    });
  }

  it('gives the same kernel values as the JS path, against a bank built either way', () => {
    const a = tmp.file('a.mrg', HAND_MADE['one per line']);
    const b = tmp.file('b.mrg', HAND_MADE['wrapped, several per line, spanning lines']);
    const options = { lambda: 0.4 };
    expect(gram(TreeBank.fromFile(a), TreeBank.fromFile(b), options)).toEqual(gram(jsBank(a), jsBank(b), options));
    // Hand check from the subset-tree kernel's definition.
    expect(gram(TreeBank.fromFile(a), options)[0]).toBeCloseTo(3.657216, 12);
  });

  it('takes strip and logprobs like fromTrees', () => {
    const f = tmp.file('strip.mrg', HAND_MADE['treebank labels']);
    expect(gram(TreeBank.fromFile(f, { strip: true }), { lambda: 0.4 })).toEqual(
      gram(jsBank(f, true), { lambda: 0.4 }),
    );
    expect(Array.from(TreeBank.fromFile(f, { logprobs: [-3] }).logprobs ?? [])).toEqual([-3]);
    expect(() => TreeBank.fromFile(f, { logprobs: [1, 2] })).toThrow(/logprobs has 2 entries for 1 trees/);
  });

  itWithData(['ptb-sample'], 'builds the same bank as the JS path on ptb-sample train.mrg', () => {
    const file = dataFile('ptb-sample', 'train.mrg');
    const fast = TreeBank.fromFile(file);
    const slow = TreeBank.fromTrees(readTreesSync(file));
    expect(fast.size).toBe(slow.size);
    expect(fast.totalNodes).toBe(slow.totalNodes);
    expect(fast.bytes).toBe(slow.bytes);
    // The Gram values of the first 150 trees (a prefix file, read both ways).
    const start151 = readTreebankSync(file)[150].line;
    const prefix = tmp.file(
      'ptb-prefix.mrg',
      readFileSync(file, 'utf8')
        .split('\n')
        .slice(0, start151 - 1)
        .join('\n') + '\n',
    );
    expect(TreeBank.fromFile(prefix).size).toBe(150);
    expectSameBank(prefix);
  });

  const MALFORMED: Record<string, string | Buffer> = {
    'unclosed tree': '(S (A a))\n(S (NP (D a))\n',
    'extra closing bracket': '(S (A a)))\n',
    'word beside subtrees': '(S (A a) b)\n',
    'two words': '(S (A a b))\n',
    'bracket after a word': '(S (A a (B b)))\n',
    'empty brackets': '(S ())\n',
    'node with no children': '(S (A a) (B))\n',
    'text outside brackets': '(S (A a))\nstray (S (A a))\n',
    'no trees': '   \n\n',
    'empty file': '',
    'invalid UTF-8': Buffer.concat([Buffer.from('(S (A a))\n(S (A '), Buffer.from([0xff, 0xfe]), Buffer.from('))\n')]),
    'nested too deep': '('.repeat(1001) + 'A a' + ')'.repeat(1001) + '\n',
  };
  for (const [name, text] of Object.entries(MALFORMED)) {
    it(`reports malformed input as the JS reader does (file, line, problem): ${name}`, () => {
      const file = tmp.file(`bad-${name.replace(/\W+/g, '-')}.mrg`, text);
      let expected: unknown;
      try {
        readTreebankSync(file);
      } catch (err) {
        expected = err;
      }
      expect(expected).toBeInstanceOf(InputError);
      let got: unknown;
      try {
        TreeBank.fromFile(file);
      } catch (err) {
        got = err;
      }
      expect(got).toBeInstanceOf(InputError);
      // The native reader declines (an empty bank; UTF-8 is checked before it) and the JS reader words the error.
      if (name !== 'invalid UTF-8')
        expect(new (native<KernelsAddon>().TreeBank)(readFileSync(file), true).size()).toBe(0);
      expect((got as InputError).message).toBe((expected as InputError).message);
      expect((got as InputError).message).toContain(file);
    });
  }

  it('accepts exactly what the JS reader accepts, with the same bank (random near-trees)', () => {
    const { TreeBank: NativeBank } = native<KernelsAddon>();
    const pieces = [
      '(',
      '(',
      '(',
      ')',
      ')',
      ')',
      ' ',
      ' ',
      '\n',
      '\r\n',
      '\t',
      '\u00a0',
      '\u2009',
      'a',
      'B',
      'NP',
      'ö',
      '-NONE-',
      '\u0085',
    ];
    let seed = 7;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    let accepted = 0;
    for (let c = 0; c < 3000; c++) {
      // Half the cases are well-formed trees with noise in the spacing, half random pieces.
      const text =
        c % 2 === 0
          ? randomTree(next, 3) + (next(4) === 0 ? pieces[next(pieces.length)] : '')
          : Array.from({ length: 1 + next(14) }, () => pieces[next(pieces.length)]).join('');
      let js: TreeBank | undefined;
      try {
        const parser = new BracketParser('<fuzz>');
        const out: ParsedTree[] = [];
        const lines = text.split('\n');
        lines.forEach((l, i) => parser.feed(l.endsWith('\r') ? l.slice(0, -1) : l, i + 1, out));
        parser.finish(lines.length);
        if (out.length > 0) js = TreeBank.fromTrees(out.map((p) => p.tree));
      } catch (err) {
        expect(err).toBeInstanceOf(InputError);
      }
      const fast = new NativeBank(Buffer.from(text, 'utf8'), true);
      expect(fast.size(), JSON.stringify(text)).toBe(js?.size ?? 0);
      if (js !== undefined) {
        accepted++;
        expect(fast.totalNodes()).toBe(js.totalNodes);
        const o = { lambda: 0.4, normalize: false, plain: false, beta: 0, sim2: false };
        expect(fast.gram(null, o, 1)).toEqual(js.handle.gram(null, o, 1));
      }
    }
    expect(accepted).toBeGreaterThan(1000);
  });

  it('reports a missing file with its name', () => {
    expect(() => TreeBank.fromFile(tmp.file('missing.mrg'))).toThrow(/missing\.mrg: no such file/);
  });
});

describe('formatRows (native matrix text)', () => {
  const { formatRows } = native<KernelsAddon>();
  it('writes every double as String() and JSON.stringify() do', () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.1,
      1e21,
      1e-7,
      1.23e-5,
      1e20,
      123456789012345680000,
      5e-324,
      1.7976931348623157e308,
      NaN,
      Infinity,
      -Infinity,
      3.657216,
      2 ** 53,
    ];
    const bits = new Uint32Array(2);
    const asDouble = new Float64Array(bits.buffer);
    let seed = 12345;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 20000; i++) {
      bits[0] = next();
      bits[1] = next();
      values.push(asDouble[0], (next() / 2 ** 32) * 10 ** ((next() % 40) - 20));
    }
    const m = Float64Array.from(values);
    expect(formatRows(m, m.length, 0, 1, false).toString()).toBe(Array.from(m).join(' ') + '\n');
    expect(formatRows(m, m.length, 0, 1, true).toString()).toBe(JSON.stringify(Array.from(m)));
  });

  it('writes rows [first, end) with separators as the old printer did', () => {
    const m = Float64Array.from([1, 2.5, 3, 4, 5, 6]);
    expect(formatRows(m, 2, 0, 3, false).toString()).toBe('1 2.5\n3 4\n5 6\n');
    expect(formatRows(m, 2, 1, 3, true).toString()).toBe(',[3,4],[5,6]');
    expect(formatRows(m, 2, 0, 1, true).toString()).toBe('[1,2.5]');
    expect(() => formatRows(m, 2, 2, 4, false)).toThrow(/out of range/);
  });
});

describe('structrank kernel trees: the lean path', () => {
  const a = tmp.file('lean-a.mrg', HAND_MADE['wrapped, several per line, spanning lines'] + HAND_MADE['one per line']);
  const b = tmp.file('lean-b.mrg', HAND_MADE['treebank labels']);

  it('takes only plain spellings and declines everything else', () => {
    expect(leanKernelTreesArgs(['--lambda', '0.4', a])?.settings.lambda).toBe(0.4);
    const full = leanKernelTreesArgs([
      '--lambda',
      '.5',
      '--depth',
      '2',
      '--normalize',
      '--strip',
      '--plain',
      '--json',
      '--threads',
      '1',
      a,
      b,
    ]);
    expect(full?.files).toEqual([a, b]);
    expect(full?.settings).toMatchObject({
      lambda: 0.5,
      depth: 2,
      normalize: true,
      strip: true,
      plain: true,
      threads: 1,
    });
    for (const args of [
      [a],
      ['--lambda=0.4', a],
      ['--lambda', '0', a],
      ['--lambda', '1.5', a],
      ['--lambda', '1e-1', a],
      ['--lambda', '-0.4', a],
      ['--lambda', '0.4', '--depth', '0', a],
      ['--lambda', '0.4', '--depth', '1.5', a],
      ['--lambda', '0.4', '--lambda', '0.5', a],
      ['--lambda', '0.4', '--help', a],
      ['--lambda', '0.4', '-'],
      ['--lambda', '0.4', a, b, a],
      ['--lambda', '0.4', '--quiet', a],
      ['--lambda', '0.4'],
    ]) {
      expect(leanKernelTreesArgs(args), args.join(' ')).toBeUndefined();
    }
  });

  it('prints byte for byte what the full CLI prints', () => {
    // `--lambda=0.4` is declined by the lean path, so the full CLI (commander, zod) runs.
    for (const extra of [[], ['--normalize'], ['--json'], ['--depth', '2', '--plain'], ['--strip']]) {
      for (const files of [[a], [a, b]]) {
        const lean = runCli(['kernel', 'trees', '--lambda', '0.4', '--threads', '1', ...extra, ...files]);
        const full = runCli(['kernel', 'trees', '--lambda=0.4', '--threads', '1', ...extra, ...files]);
        expect(lean.status).toBe(0);
        expect(full.status).toBe(0);
        expect(lean.stdout).toBe(full.stdout);
        expect(lean.stdout.length).toBeGreaterThan(0);
      }
    }
  });

  it('leaves errors to the full CLI: the same message and exit code', () => {
    const bad = tmp.file('lean-bad.mrg', '(S (A a))\n(S (NP (D a)) b)\n');
    const r = runCli(['kernel', 'trees', '--lambda', '0.4', bad]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`structrank: ${bad}:2: word 'b' stands beside subtrees inside (S ...)\n`);
  });
});

/** A random well-formed tree (labels and words from a small set, odd spacing). */
function randomTree(next: (n: number) => number, depth: number): string {
  const label = ['S', 'NP', 'VP', '', 'X-1'][next(5)];
  const space = [' ', '  ', '\n', '\t', '\u00a0'][next(5)];
  if (depth === 0 || next(3) === 0) return `(${label || 'D'}${space}${['a', 'b', 'ö', 'NP'][next(4)]})`;
  const kids = Array.from({ length: 1 + next(3) }, () => randomTree(next, depth - 1));
  return `(${label}${space}${kids.join(space)})`;
}
