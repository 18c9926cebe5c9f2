/**
 * A map from pairs of non-negative 32-bit integers to 32-bit integers, on typed arrays: open
 * addressing with linear probing, at most half full. The generative models (generative-counts.ts)
 * keep their millions of events in these: twelve bytes a slot, where a Map of string keys costs
 * a hundred or more an entry.
 */

const EMPTY = -1;

export class PairTable {
  private firsts: Int32Array<ArrayBuffer>;
  private seconds: Int32Array<ArrayBuffer>;
  private values: Int32Array<ArrayBuffer>;
  /** The number of pairs in the table. */
  size = 0;

  constructor(capacity = 1024) {
    let slots = 16;
    while (slots < 2 * capacity) slots *= 2;
    this.firsts = new Int32Array(slots).fill(EMPTY);
    this.seconds = new Int32Array(slots);
    this.values = new Int32Array(slots);
  }

  /** The value of (a, b), or `absent` when the pair is not in the table (or a or b is negative). */
  get(a: number, b: number, absent = -1): number {
    if (a < 0 || b < 0) return absent;
    const slot = this.slotOf(a, b);
    return this.firsts[slot] === EMPTY ? absent : this.values[slot];
  }

  /** Sets the value of (a, b), adding the pair when new. */
  set(a: number, b: number, value: number): void {
    const slot = this.claim(a, b); // first: claiming can grow the arrays
    this.values[slot] = value;
  }

  /** Adds `delta` to the value of (a, b) (0 when new) and returns the sum. */
  add(a: number, b: number, delta = 1): number {
    const slot = this.claim(a, b);
    return (this.values[slot] += delta);
  }

  /** The slot of (a, b): where it is, or the empty slot where it would go. */
  private slotOf(a: number, b: number): number {
    const mask = this.firsts.length - 1;
    let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ 0x7f4a7c15, 0x85ebca77);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 13;
    let slot = h & mask;
    for (;;) {
      const first = this.firsts[slot];
      if (first === EMPTY || (first === a && this.seconds[slot] === b)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** The slot of (a, b), added with value 0 when new. */
  private claim(a: number, b: number): number {
    if (!(a >= 0 && b >= 0 && a <= 0x7fffffff && b <= 0x7fffffff && a === (a | 0) && b === (b | 0)))
      throw new RangeError(`pair (${a}, ${b}): both must be integers in [0, 2^31)`);
    let slot = this.slotOf(a, b);
    if (this.firsts[slot] !== EMPTY) return slot;
    if (2 * (this.size + 1) > this.firsts.length) {
      this.grow();
      slot = this.slotOf(a, b);
    }
    this.firsts[slot] = a;
    this.seconds[slot] = b;
    this.values[slot] = 0;
    this.size++;
    return slot;
  }

  private grow(): void {
    const { firsts, seconds, values } = this;
    this.firsts = new Int32Array(2 * firsts.length).fill(EMPTY);
    this.seconds = new Int32Array(2 * firsts.length);
    this.values = new Int32Array(2 * firsts.length);
    for (let s = 0; s < firsts.length; s++) {
      if (firsts[s] === EMPTY) continue;
      const slot = this.slotOf(firsts[s], seconds[s]);
      this.firsts[slot] = firsts[s];
      this.seconds[slot] = seconds[s];
      this.values[slot] = values[s];
    }
  }
}
