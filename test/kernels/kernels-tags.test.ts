import { describe, expect, it } from 'vitest';
import { SequenceBank, kernel, gram, gramAsync, row } from '../../lib/kernels/index.js';
import { join } from 'node:path';
import type { ConllSentence } from '../../lib/io/conll.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { tags, words } from '../../lib/trees/tree.js';
import { InputError } from '../../lib/errors.js';
import { repoRoot } from '../helpers.js';
import { bruteTagKernel, choleskyOk, minEigenvalue } from './kernels-helpers.js';
import { rng } from '../perturb.js';

// Real sentences from the shipped GUM trees as (word, pos, tag) rows, the tag being a coarse
// POS (its first letter), so the kernel sees a tag set unlike the POS column.
const conll: ConllSentence[] = readTreesSync(join(repoRoot, 'data', 'gum-open', 'dev.mrg'))
  .slice(0, 80)
  .map((t, i) => {
    const pos = tags(t);
    return { rows: words(t).map((w, k) => [w, pos[k], pos[k].slice(0, 1)]), line: i + 1 };
  });
const columns = ['word', 'pos', 'tag'];

function randomSeq(r: () => number): { words: string[]; tags: string[] } {
  const n = 1 + Math.floor(r() * 6);
  const words = Array.from({ length: n }, () => ['Ab', 'ab', 'a1', 'Bb', 'bb'][Math.floor(r() * 5)]);
  const tags = Array.from({ length: n }, () => ['N', 'V', 'D'][Math.floor(r() * 3)]);
  return { words, tags };
}

describe('tagging kernel values', () => {
  const r = rng(7);
  const seqs = Array.from({ length: 16 }, () => randomSeq(r));

  it('matches the hand check: (D the)(N dog) vs (D the)(N cat)', () => {
    const bank = SequenceBank.fromSequences([
      { words: ['the', 'dog'], tags: ['D', 'N'] },
      { words: ['the', 'cat'], tags: ['D', 'N'] },
    ]);
    // singles: D/the 2, N 1; the pair D N: lambda * 2 * 1
    expect(kernel(bank, 0, bank, 1, { lambda: 0.5 })).toBeCloseTo(4, 12);
  });

  it('equals a brute-force enumeration of fragments (Sim1 only)', () => {
    const bank = SequenceBank.fromSequences(seqs);
    for (const lambda of [1, 0.5, 0.2]) {
      const g = gram(bank, { lambda });
      for (let i = 0; i < seqs.length; i++) {
        for (let j = 0; j < seqs.length; j++)
          expect(g[i * seqs.length + j]).toBeCloseTo(bruteTagKernel(seqs[i], seqs[j], lambda), 9);
      }
    }
  });

  it('equals brute force with Sim2 for built-in and custom word features', () => {
    const caps = (w: string): string | undefined => (/^[A-Z]/.test(w) ? 'Cap' : undefined);
    const digits = (w: string): string | undefined => (/[0-9]/.test(w) ? 'Digit' : undefined);
    const lastChar = (w: string): string => w.slice(-1);
    for (const [feature, fn] of [
      ['caps', caps],
      ['digits', digits],
      [lastChar, lastChar],
    ] as const) {
      const bank = SequenceBank.fromSequences(seqs, { wordFeature: feature });
      for (const lambda of [1, 0.4]) {
        const g = gram(bank, { lambda, sim2: true });
        for (let i = 0; i < seqs.length; i++) {
          for (let j = 0; j < seqs.length; j += 3)
            expect(g[i * seqs.length + j]).toBeCloseTo(bruteTagKernel(seqs[i], seqs[j], lambda, fn), 9);
        }
      }
    }
  });

  it('fast and plain agree on GUM sentences; Gram is symmetric and PSD', () => {
    const bank = SequenceBank.fromConll(conll, columns, { wordFeature: 'shape' });
    for (const options of [{ lambda: 0.5 }, { lambda: 0.5, sim2: true }]) {
      const fast = gram(bank, options);
      const plain = gram(bank, { ...options, plain: true });
      for (let k = 0; k < fast.length; k++) expect(fast[k]).toBeCloseTo(plain[k], 7);
    }
    const n = 30;
    const small = SequenceBank.fromConll(conll.slice(0, n), columns);
    const g = gram(small, { lambda: 0.5, normalize: true });
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(g[i * n + j]).toBe(g[j * n + i]);
    expect(choleskyOk(g, n, 1e-9)).toBe(true);
    expect(minEigenvalue(g, n)).toBeGreaterThan(-1e-9);
    const r = row(small, 2, small, { lambda: 0.5, normalize: true });
    for (let j = 0; j < n; j++) expect(r[j]).toBeCloseTo(g[2 * n + j], 12);
  });

  it('async Gram equals sync and aborts', async () => {
    const bank = SequenceBank.fromConll(conll, columns);
    expect(Array.from(await gramAsync(bank, { lambda: 0.5 }))).toEqual(Array.from(gram(bank, { lambda: 0.5 })));
    await expect(gramAsync(bank, { lambda: 0.5, signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('tagging kernel errors', () => {
  it('rejects empty sequences, mismatched lengths and unknown word features', () => {
    expect(() => SequenceBank.fromSequences([{ words: [], tags: [] }])).toThrow(InputError);
    expect(() => SequenceBank.fromSequences([{ words: ['a'], tags: [] }])).toThrow(/1 words but 0 tags/);
    // @ts-expect-error not a built-in feature
    expect(() => SequenceBank.fromSequences([{ words: ['a'], tags: ['D'] }], { wordFeature: 'bogus' })).toThrow(
      /unknown word feature/,
    );
  });
  it('needs the same word feature on both banks for sim2', () => {
    const a = SequenceBank.fromSequences([{ words: ['A'], tags: ['D'] }], { wordFeature: 'caps' });
    const b = SequenceBank.fromSequences([{ words: ['A'], tags: ['D'] }], { wordFeature: 'digits' });
    const c = SequenceBank.fromSequences([{ words: ['A'], tags: ['D'] }]);
    expect(() => kernel(a, 0, b, 0, { lambda: 0.5, sim2: true })).toThrow(/mismatched handles/);
    expect(() => kernel(c, 0, c, 0, { lambda: 0.5, sim2: true })).toThrow(/wordFeature/);
    expect(kernel(a, 0, a, 0, { lambda: 0.5, sim2: true })).toBeCloseTo(2, 12);
    expect(() => kernel(a, 0, a, 1, { lambda: 0.5 })).toThrow(/out of range/);
  });
  it('names the missing CoNLL column', () => {
    expect(() => SequenceBank.fromConll(conll, ['word', 'pos', 'chunk'], { source: 'x.conll' })).toThrow(
      /no column named 'tag'/,
    );
  });
});
