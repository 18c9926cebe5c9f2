/**
 * Ranking perceptrons (SPEC section 4): the dual (kernel) perceptron over the items of a
 * TreeBank or SequenceBank with any of their kernels, and the primal perceptron over sparse
 * feature rows. Training data: the candidates of all sentences, contiguous, the best one
 * (x_{i,1}) first in each sentence; `sizes[i]` = number of candidates of sentence i.
 *
 * On sentence i the highest-scoring other candidate j (lowest index on ties) is a mistake
 * when G(x_ij) >= G(x_i1); then G += K(x_i1, .) - K(x_ij, .) (primal: W += Phi(x_i1) - Phi(x_ij)).
 * Sentences are visited `epochs` times in a seeded shuffled order. Prediction: `last` (the
 * final G), `averaged` (the mean of G_1..G_n) or `voted` (the candidate chosen most often by
 * G_1..G_n, the hypotheses after each of the n training steps; ties go to the later G).
 */
import { AbortError } from '../errors.js';
import { cancelFlagFor, native } from '../native.js';
import { nativeOptions, type Bank, type KernelOptionsFor, type SequenceKernelOptions, type TreeKernelOptions } from '../kernels/kernel.js';
import type { NativePerceptronOptions, PerceptronAddon, Voting } from './perceptron-native.js';

export type { Voting } from './perceptron-native.js';

export interface PerceptronTrainOptions {
  epochs?: number;
  seed?: number;
  shuffle?: boolean;
  signal?: AbortSignal;
}

function sizesArray(sizes: ArrayLike<number>, items: number, what: string): Int32Array {
  const out = Int32Array.from(sizes);
  let sum = 0;
  out.forEach((n, i) => {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what}: sentence ${i + 1} needs at least one candidate`);
    sum += n;
  });
  if (sum !== items) throw new RangeError(`${what}: sentence sizes add up to ${sum} candidates, the bank has ${items}`);
  return out;
}

function checkTrainOptions(o: PerceptronTrainOptions): NativePerceptronOptions {
  const epochs = o.epochs ?? 1;
  if (!Number.isInteger(epochs) || epochs < 1) throw new RangeError(`perceptron: epochs must be a positive integer, got ${epochs}`);
  const seed = o.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`perceptron: seed must be a non-negative integer, got ${seed}`);
  return { epochs, seed, shuffle: o.shuffle ?? true };
}

async function withCancel<T>(signal: AbortSignal | undefined, run: (flag: ReturnType<typeof cancelFlagFor>['flag']) => Promise<T>): Promise<T> {
  if (signal?.aborted) throw new AbortError();
  const { flag, dispose } = cancelFlagFor(signal);
  try {
    return await run(flag);
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw new AbortError();
    throw err;
  } finally {
    dispose();
  }
}

/** A trained dual perceptron: its mistakes (step, best, other) over the training bank. */
export class KernelPerceptron<B extends Bank> {
  private constructor(
    readonly bank: B,
    readonly kernel: KernelOptionsFor<B>,
    /** (step, best candidate, other candidate) per mistake, in step order. */
    readonly mistakes: Float64Array,
    /** n = epochs x sentences. */
    readonly steps: number,
  ) {}

  get numMistakes(): number {
    return this.mistakes.length / 3;
  }

  /** The distinct training candidates that appear in a mistake (the support set). */
  supportCandidates(): number[] {
    const set = new Set<number>();
    for (let k = 0; k < this.mistakes.length; k += 3) {
      set.add(this.mistakes[k + 1]);
      set.add(this.mistakes[k + 2]);
    }
    return [...set].sort((a, b) => a - b);
  }

  static async train<B extends Bank>(
    bank: B,
    sizes: ArrayLike<number>,
    kernel: KernelOptionsFor<B>,
    options: PerceptronTrainOptions = {},
  ): Promise<KernelPerceptron<B>> {
    const k = nativeOptions(bank, bank, kernel as TreeKernelOptions & SequenceKernelOptions);
    const s = sizesArray(sizes, bank.size, 'perceptron');
    const o = checkTrainOptions(options);
    const addon = native<PerceptronAddon>();
    const r = await withCancel(options.signal, (flag) => addon.trainDualPerceptron(bank.handle, s, k, o, flag));
    return new KernelPerceptron(bank, kernel, r.mistakes, r.steps);
  }

  /** Rebuilds a model from its parts (e.g. after loading). */
  static fromParts<B extends Bank>(bank: B, kernel: KernelOptionsFor<B>, mistakes: Float64Array, steps: number): KernelPerceptron<B> {
    return new KernelPerceptron(bank, kernel, mistakes, steps);
  }

  /** The chosen candidate (index within its sentence) of every test sentence. */
  async predict(test: B, sizes: ArrayLike<number>, options: { voting?: Voting; threads?: number; signal?: AbortSignal } = {}): Promise<Int32Array> {
    const k = nativeOptions(this.bank, test, this.kernel as TreeKernelOptions & SequenceKernelOptions);
    const s = sizesArray(sizes, test.size, 'predict');
    const addon = native<PerceptronAddon>();
    return withCancel(options.signal, (flag) =>
      addon.predictDual(this.bank.handle, this.mistakes, this.steps, test.handle, s, k, options.voting ?? 'voted', options.threads ?? 0, flag),
    );
  }

  /** G(x) per test candidate under the final (`last`) or summed (`averaged`: n x mean) hypothesis. */
  async scores(test: B, sizes: ArrayLike<number>, options: { voting?: 'last' | 'averaged'; threads?: number; signal?: AbortSignal } = {}): Promise<Float64Array> {
    const k = nativeOptions(this.bank, test, this.kernel as TreeKernelOptions & SequenceKernelOptions);
    const s = sizesArray(sizes, test.size, 'scores');
    const addon = native<PerceptronAddon>();
    return withCancel(options.signal, (flag) =>
      addon.scoreDual(this.bank.handle, this.mistakes, this.steps, test.handle, s, k, options.voting ?? 'last', options.threads ?? 0, flag),
    );
  }
}

/** Sparse feature rows, one per candidate: CSR with optional values (all ones when omitted). */
export interface SparseRows {
  rowPtr: ArrayLike<number>;
  cols: Int32Array;
  values?: Float32Array;
  numFeatures: number;
}

/** Builds SparseRows from feature maps (name -> value), interning names in order of appearance. */
export function sparseRowsFromMaps(rows: readonly Record<string, number>[], names: Map<string, number> = new Map()): SparseRows & { names: Map<string, number> } {
  const rowPtr = [0];
  const cols: number[] = [];
  const values: number[] = [];
  for (const r of rows) {
    for (const [name, v] of Object.entries(r)) {
      let id = names.get(name);
      if (id === undefined) {
        id = names.size;
        names.set(name, id);
      }
      cols.push(id);
      values.push(v);
    }
    rowPtr.push(cols.length);
  }
  return { rowPtr, cols: Int32Array.from(cols), values: Float32Array.from(values), numFeatures: names.size, names };
}

/** A trained primal perceptron: final and summed (sum_t W_t) weights. */
export class PrimalPerceptron {
  private constructor(
    readonly weights: Float64Array,
    readonly summedWeights: Float64Array,
    readonly mistakes: Float64Array,
    readonly steps: number,
  ) {}

  static async train(features: SparseRows, sizes: ArrayLike<number>, options: PerceptronTrainOptions = {}): Promise<PrimalPerceptron> {
    const rows = features.rowPtr.length - 1;
    const s = sizesArray(sizes, rows, 'perceptron');
    const o = checkTrainOptions(options);
    const addon = native<PerceptronAddon>();
    const r = await withCancel(options.signal, (flag) =>
      addon.trainPrimalPerceptron(Float64Array.from(features.rowPtr), features.cols, features.values ?? null, features.numFeatures, s, o, flag),
    );
    return new PrimalPerceptron(r.weights, r.summedWeights, r.mistakes, r.steps);
  }

  /** W . Phi(row) with the final (`last`) or summed (`averaged`) weights. */
  score(features: SparseRows, row: number, voting: 'last' | 'averaged' = 'last'): number {
    const w = voting === 'averaged' ? this.summedWeights : this.weights;
    let s = 0;
    for (let k = features.rowPtr[row]; k < features.rowPtr[row + 1]; k++) {
      const f = features.cols[k];
      if (f < w.length) s += w[f] * (features.values ? features.values[k] : 1);
    }
    return s;
  }
}
