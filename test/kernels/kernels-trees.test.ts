import { describe, expect, it } from 'vitest';
import { TreeBank, SequenceBank, kernel, row, gram, gramAsync, rowAsync } from '../../lib/kernels/index.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import type { Tree } from '../../lib/trees/tree.js';
import { InputError, UsageError } from '../../lib/errors.js';
import { join } from 'node:path';
import { dataFile, itWithData, repoRoot } from '../helpers.js';
import { bruteTreeKernel, choleskyOk, minEigenvalue, randomTree } from './kernels-helpers.js';
import { rng } from '../perturb.js';

// The shipped GUM trees for everything but the published checksums (computed on ptb-sample).
const gum = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg'));
const unwrap = (t: Tree): Tree => (t.label === '' && t.children.length === 1 ? t.children[0] : t);

function pairSum(g: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += g[i * n + j];
  return s;
}

describe('tree kernel values', () => {
  it('matches the hand check K(t, t) = 3.657216 at lambda 0.4', () => {
    const bank = TreeBank.fromTrees([parseTree('(S (NP (D a) (N b)) (VP (V c)))')]);
    expect(kernel(bank, 0, bank, 0, { lambda: 0.4 })).toBeCloseTo(3.657216, 12);
    expect(kernel(bank, 0, bank, 0, { lambda: 0.4, plain: true })).toBeCloseTo(3.657216, 12);
  });

  it('equals a brute-force enumeration of fragments on random trees', () => {
    const r = rng(42);
    const trees = Array.from({ length: 14 }, () => randomTree(r, 4));
    const bank = TreeBank.fromTrees(trees);
    for (const lambda of [1, 0.6, 0.25]) {
      for (const depth of [undefined, 1, 2, 3]) {
        const g = gram(bank, { lambda, depth, threads: 2 });
        for (let i = 0; i < trees.length; i++) {
          for (let j = i; j < trees.length; j += 2) {
            const expected = bruteTreeKernel(trees[i], trees[j], lambda, depth);
            expect(g[i * trees.length + j]).toBeCloseTo(expected, 9);
            expect(kernel(bank, i, bank, j, { lambda, depth, plain: true })).toBeCloseTo(expected, 9);
          }
        }
      }
    }
  });

  itWithData(
    ['ptb-sample'],
    'reproduces the SVM-Light-TK checksums on the first 500 and 1,000 ptb-sample trees',
    () => {
      const ptb = readTreesSync(dataFile('ptb-sample', 'train.mrg'));
      for (const [n, sum, normalized] of [
        [500, '503912.2589', '8440.717282'],
        [1000, '2064624.455', '33632.79297'],
      ] as const) {
        const bank = TreeBank.fromTrees(ptb.slice(0, n).map(unwrap));
        expect(pairSum(gram(bank, { lambda: 0.4 }), n).toPrecision(10)).toBe(sum);
        expect(pairSum(gram(bank, { lambda: 0.4, normalize: true }), n).toPrecision(10)).toBe(normalized);
      }
    },
  );

  it('fast and plain algorithms agree on GUM tree pairs', () => {
    const trees = gum.slice(1000, 1060);
    const bank = TreeBank.fromTrees(trees);
    for (const depth of [undefined, 3]) {
      const fast = gram(bank, { lambda: 0.4, depth });
      const plain = gram(bank, { lambda: 0.4, depth, plain: true });
      for (let k = 0; k < fast.length; k++) expect(fast[k]).toBeCloseTo(plain[k], 8);
    }
  });

  it('unwraps the outer bracket by default and keeps it when asked', () => {
    const t = parseTree('( (S (NP (D a)) (VP (V c))))');
    const a = TreeBank.fromTrees([t]);
    const b = TreeBank.fromTrees([t], { unwrap: false });
    expect(a.totalNodes).toBe(5);
    expect(b.totalNodes).toBe(6);
    expect(kernel(b, 0, b, 0, { lambda: 1 })).toBeGreaterThan(kernel(a, 0, a, 0, { lambda: 1 }));
  });

  it('depth 1 counts equal productions; depth beyond the height equals unlimited', () => {
    const bank = TreeBank.fromTrees(gum.slice(0, 6).map(unwrap));
    const big = kernel(bank, 1, bank, 2, { lambda: 0.5, depth: 1000 });
    expect(big).toBeCloseTo(kernel(bank, 1, bank, 2, { lambda: 0.5 }), 9);
    const one = kernel(bank, 3, bank, 3, { lambda: 1, depth: 1 });
    expect(Number.isInteger(Math.round(one))).toBe(true);
    expect(one).toBeGreaterThanOrEqual(bank.totalNodes / 6 / 2);
  });
});

describe('tree Gram matrices', () => {
  const trees = gum.slice(200, 230).map(unwrap);
  const bank = TreeBank.fromTrees(trees, { logprobs: trees.map((_, i) => -10 - i) });

  it('are symmetric and positive semi-definite', () => {
    for (const options of [{ lambda: 0.4 }, { lambda: 0.4, normalize: true }, { lambda: 0.3, depth: 2 }]) {
      const g = gram(bank, options);
      for (let i = 0; i < 30; i++) for (let j = 0; j < 30; j++) expect(g[i * 30 + j]).toBe(g[j * 30 + i]);
      const scale = Math.max(...Array.from(g));
      const scaled = g.map((v) => v / scale);
      expect(choleskyOk(scaled, 30, 1e-9)).toBe(true);
      expect(minEigenvalue(scaled, 30)).toBeGreaterThan(-1e-9);
    }
    const n = gram(bank, { lambda: 0.4, normalize: true });
    for (let i = 0; i < 30; i++) expect(n[i * 30 + i]).toBe(1);
  });

  it('rows, rectangular blocks, single values and the beta term agree', () => {
    const other = TreeBank.fromTrees(trees.slice(5, 12), { logprobs: trees.slice(5, 12).map((_, i) => -15 - i) });
    const full = gram(bank, { lambda: 0.4, normalize: true, threads: 2 });
    const rect = gram(bank, other, { lambda: 0.4, normalize: true, threads: 1 });
    for (let i = 0; i < 30; i++) {
      for (let j = 0; j < 7; j++) expect(rect[i * 7 + j]).toBeCloseTo(full[i * 30 + j + 5], 12);
    }
    const r = row(bank, 4, bank, { lambda: 0.4, normalize: true });
    for (let j = 0; j < 30; j++) expect(r[j]).toBeCloseTo(full[4 * 30 + j], 12);
    const withBeta = kernel(bank, 2, other, 3, { lambda: 0.4, normalize: true, beta: 0.2 });
    expect(withBeta).toBeCloseTo(0.2 * -12 * -18 + rect[2 * 7 + 3], 10);
    const explicit = kernel(bank, 2, other, 3, {
      lambda: 0.4,
      beta: 0.5,
      logprobs: { a: new Array(30).fill(2), b: new Array(7).fill(3) },
    });
    expect(explicit).toBeCloseTo(3 + kernel(bank, 2, other, 3, { lambda: 0.4 }), 10);
  });

  it('async forms equal the sync ones and stop on abort', async () => {
    const sync = gram(bank, { lambda: 0.4 });
    expect(Array.from(await gramAsync(bank, { lambda: 0.4, threads: 2 }))).toEqual(Array.from(sync));
    expect(Array.from(await rowAsync(bank, 3, bank, { lambda: 0.4 }))).toEqual(Array.from(sync.subarray(90, 120)));
    const aborted = AbortSignal.abort();
    await expect(gramAsync(bank, { lambda: 0.4, signal: aborted })).rejects.toMatchObject({ name: 'AbortError' });
    const big = TreeBank.fromTrees(gum.map(unwrap));
    const controller = new AbortController();
    const job = gramAsync(big, { lambda: 0.4, threads: 1, signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('tree kernel errors', () => {
  const bank = TreeBank.fromTrees([parseTree('(S (NP (D a)) (VP (V c)))')]);
  it('rejects empty trees', () => {
    expect(() => TreeBank.fromTrees([{ label: 'S', children: [] }])).toThrow(/empty tree/);
    expect(() => TreeBank.fromTrees([{ label: '', children: [] }], { source: 'x.mrg', lines: [7] })).toThrow(
      InputError,
    );
    expect(() => TreeBank.fromTrees([{ label: '', children: [] }], { source: 'x.mrg', lines: [7] })).toThrow(
      /x\.mrg:7: .*empty tree/,
    );
  });
  it('rejects out-of-range indices, bad lambda and bad depth', () => {
    expect(() => kernel(bank, 1, bank, 0, { lambda: 0.4 })).toThrow(/index 1 out of range/);
    expect(() => kernel(bank, 0, bank, -1, { lambda: 0.4 })).toThrow(UsageError);
    expect(() => row(bank, 0.5, bank, { lambda: 0.4 })).toThrow(/out of range/);
    for (const lambda of [0, -1, 1.5, Number.NaN])
      expect(() => kernel(bank, 0, bank, 0, { lambda })).toThrow(/lambda must be/);
    expect(() => kernel(bank, 0, bank, 0, { lambda: 0.4, depth: 0 })).toThrow(/depth must be/);
    expect(() => gram(bank, { lambda: 0.4, beta: 1 })).toThrow(/needs logprobs/);
  });
  it('rejects mismatched handles', () => {
    const seqs = SequenceBank.fromSequences([{ words: ['a'], tags: ['D'] }]);
    // @ts-expect-error a TreeBank and a SequenceBank cannot be compared
    expect(() => kernel(bank, 0, seqs, 0, { lambda: 0.4 })).toThrow(/mismatched handles/);
    // @ts-expect-error not a bank
    expect(() => gram(bank, { size: 1 }, { lambda: 0.4 })).toThrow(/mismatched handles/);
  });
});

describe('tree bank transforms', () => {
  it('strip removes function tags, indices and -NONE- elements', () => {
    const given = parseTree('( (S (NP-SBJ-1 (-NONE- *-1)) (NP-TMP (NN x)) (VP (VB y))))');
    const clean = parseTree('(S (NP (NN x)) (VP (VB y)))');
    const stripped = TreeBank.fromTrees([given], { strip: true });
    const reference = TreeBank.fromTrees([clean]);
    expect(stripped.totalNodes).toBe(5);
    const k = kernel(stripped, 0, reference, 0, { lambda: 0.4 });
    expect(k).toBeCloseTo(kernel(reference, 0, reference, 0, { lambda: 0.4 }), 12);
    expect(kernel(TreeBank.fromTrees([given]), 0, reference, 0, { lambda: 0.4 })).toBeLessThan(k);
    expect(() => TreeBank.fromTrees([parseTree('(S (-NONE- *))')], { strip: true })).toThrow(
      /empty tree after removing/,
    );
  });
});
