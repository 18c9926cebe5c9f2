/**
 * One sentence's candidate features as rows of interned ids: the form in which extraction
 * hands features on when the caller wants ids, not names (candidate-feature-ids.ts). A worker
 * thread interns into its own table and sends the names new to it with the rows; the main
 * thread maps its ids to the process's ids, so interning, the costliest part of extraction,
 * runs on every core.
 */
import { IntBuffer } from '../kernels/symbols.js';
import type { SentenceFeatureNames } from './feature-table.js';

export interface InternedSentence {
  /** Every candidate's distinct ids, in the order the extractor named them, one candidate after another. */
  cols: Int32Array<ArrayBuffer>;
  /** Candidate j's ids end at cols[ends[j]]. */
  ends: Int32Array<ArrayBuffer>;
  logprob: Float64Array<ArrayBuffer>;
  /** Score(x) of each candidate against gold; NaN when unknown. */
  score: Float64Array<ArrayBuffer>;
}

/** Turns sentences' feature names into rows of ids with `intern`, each candidate's ids distinct. */
export class RowInterner {
  private readonly row = new IntBuffer();
  // stamp[id] === mark: id is already in the current candidate's row.
  private stamp = new Int32Array(1 << 16);
  private mark = 0;

  constructor(private readonly intern: (name: string) => number) {}

  sentence(features: SentenceFeatureNames): InternedSentence {
    // Locals in the loop over every name: the hottest loop of the reranking stage.
    const { row, intern } = this;
    let { stamp, mark } = this;
    row.length = 0;
    const ends = new Int32Array(features.candidates.length);
    features.candidates.forEach((cand, j) => {
      mark++;
      for (const name of cand.names) {
        const id = intern(name);
        if (id >= stamp.length) {
          const bigger = new Int32Array(Math.max(2 * stamp.length, id + 1));
          bigger.set(stamp);
          stamp = bigger;
        }
        if (stamp[id] !== mark) {
          stamp[id] = mark;
          row.push(id);
        }
      }
      ends[j] = row.length;
    });
    this.stamp = stamp;
    this.mark = mark;
    return {
      cols: row.toArray(),
      ends,
      logprob: Float64Array.from(features.candidates, (cand) => cand.logprob),
      score: Float64Array.from(features.candidates, (cand) => cand.score),
    };
  }
}

/** A table of names to dense ids, numbered in the order first seen. */
export class NameTable {
  private readonly idOf = new Map<string, number>();
  readonly names: string[] = [];

  intern(name: string): number {
    let id = this.idOf.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.idOf.set(name, id);
      this.names.push(name);
    }
    return id;
  }
}

/**
 * Maps a worker's ids to the process's: `learn` the names the worker interned since the last
 * batch (its ids continue from the names learned before), then `map` its rows in place.
 */
export class IdMap {
  private global = new Int32Array(1024);
  private known = 0;

  constructor(private readonly intern: (name: string) => number) {}

  learn(newNames: readonly string[]): void {
    if (this.known + newNames.length > this.global.length) {
      const bigger = new Int32Array(Math.max(2 * this.global.length, this.known + newNames.length));
      bigger.set(this.global.subarray(0, this.known));
      this.global = bigger;
    }
    for (const name of newNames) this.global[this.known++] = this.intern(name);
  }

  map(cols: Int32Array): void {
    for (let k = 0; k < cols.length; k++) cols[k] = this.global[cols[k]];
  }
}
