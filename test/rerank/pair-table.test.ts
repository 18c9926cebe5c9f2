/**
 * The typed-array pair map under the generative models' counts (lib/rerank/pair-table.ts),
 * against a Map of the same pairs, across many growths of the table.
 */
import { describe, expect, it } from 'vitest';
import { PairTable } from '../../lib/rerank/pair-table.js';
import { EventIds } from '../../lib/rerank/generative-counts.js';

/** A small deterministic generator (xorshift32), so a failure repeats. */
function generator(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

describe('PairTable', () => {
  it('keeps every value set and every count added, through growth, as a Map does', () => {
    const random = generator(7);
    const table = new PairTable(4);
    const reference = new Map<string, number>();
    for (let i = 0; i < 60_000; i++) {
      // Large and small ids, many pairs sharing a first or a second element.
      const a = random(3) === 0 ? random(2 ** 31 - 1) : random(300);
      const b = random(2) === 0 ? random(40) : random(100_000);
      const key = `${a},${b}`;
      if (random(2) === 0) {
        const value = random(1000);
        table.set(a, b, value);
        reference.set(key, value);
      } else {
        const sum = (reference.get(key) ?? 0) + 1;
        reference.set(key, sum);
        expect(table.add(a, b)).toBe(sum);
      }
    }
    expect(table.size).toBe(reference.size);
    for (const [key, value] of reference) {
      const [a, b] = key.split(',').map(Number);
      expect(table.get(a, b)).toBe(value);
    }
  });

  it('answers absent pairs and negative ids with `absent`, and refuses to store them', () => {
    const table = new PairTable();
    table.set(1, 2, 5);
    expect(table.get(2, 1)).toBe(-1);
    expect(table.get(2, 1, 0)).toBe(0);
    expect(table.get(-1, 2, 0)).toBe(0);
    expect(table.get(1, -1)).toBe(-1);
    expect(() => table.add(-1, 2)).toThrow(RangeError);
    expect(() => table.set(1.5, 2, 0)).toThrow(RangeError);
    expect(() => table.set(2 ** 31, 2, 0)).toThrow(RangeError);
    expect(table.size).toBe(1);
  });
});

describe('EventIds', () => {
  it('gives symbols and tuples of every shape distinct ids, and none new once frozen', () => {
    const ids = new EventIds();
    const [a, b, c] = ['a', 'b', 'c'].map((s) => ids.symbol(s));
    const made = [a, b, c, ids.tuple(a, b), ids.tuple(b, a), ids.tuple(a, b, c), ids.tuple(a, b, c, a)];
    expect(new Set(made).size).toBe(made.length);
    expect(ids.tuple(ids.tuple(a, b), c)).toBe(ids.tuple(a, b, c));
    ids.freeze();
    expect(ids.symbol('a')).toBe(a);
    expect(ids.tuple(a, b, c)).toBe(made[5]);
    expect(ids.symbol('unseen')).toBe(-1);
    expect(ids.tuple(c, b)).toBe(-1);
    expect(ids.tuple(ids.symbol('unseen'), a)).toBe(-1);
    // Asked again, still unseen: looking up added nothing.
    expect(ids.tuple(c, b)).toBe(-1);
  });
});
