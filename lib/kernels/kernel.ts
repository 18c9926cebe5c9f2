/**
 * Kernel values, rows and Gram matrices over TreeBanks and SequenceBanks.
 *
 * Tree kernel (subset trees, Collins & Duffy): K = sum over node pairs of Delta, Delta = lambda
 * at equal preterminal productions, lambda * prod(1 + Delta(children)) at equal inner
 * productions; `depth` keeps only fragments of at most that many production levels.
 * Tagging kernel (Collins 2002): Delta = (1 + Sim1) (1 + lambda Delta(next)) at equal labels,
 * or (1 + Sim1/2 + Sim2/2) (1 + lambda Delta(next)) with `sim2`.
 * Every entry is `beta * L(x) * L(y) + K(x, y)`, K normalized when `normalize`.
 */
import { resolveThreads, withCancelFlag } from '../native.js';
import type { NativeKernelOptions } from './native-kernels.js';
import { SequenceBank } from './sequence-bank.js';
import { TreeBank } from './tree-bank.js';
import { UsageError } from '../errors.js';

interface CommonKernelOptions {
  /** Decay, 0 < lambda <= 1. */
  lambda: number;
  /** K(x,y) / sqrt(K(x,x) K(y,y)). */
  normalize?: boolean;
  /** Weight of the base-model term beta * L(x) * L(y) (default 0). */
  beta?: number;
  /** L(x) per item of the first and second bank; default: the banks' own logprobs. */
  logprobs?: { a: ArrayLike<number>; b: ArrayLike<number> };
  /** Use the plain reference algorithm (all node / position pairs) instead of the fast one. */
  plain?: boolean;
}

export interface TreeKernelOptions extends CommonKernelOptions {
  /** Only fragments of depth <= depth (a single production has depth 1); default unlimited. */
  depth?: number;
}

export interface SequenceKernelOptions extends CommonKernelOptions {
  /** The word-feature variant: needs both banks built with the same `wordFeature`. */
  sim2?: boolean;
}

export interface ParallelOptions {
  /** Threads (0 or undefined = all cores). */
  threads?: number;
}

export interface AsyncOptions extends ParallelOptions {
  signal?: AbortSignal;
}

export type Bank = TreeBank | SequenceBank;
/** The kernel options that apply to a bank type. */
export type KernelOptionsFor<B> = B extends TreeBank ? TreeKernelOptions : SequenceKernelOptions;
type OptionsFor<B> = KernelOptionsFor<B>;

function checkPair(a: Bank, b: Bank): void {
  const isTree = (x: unknown): boolean => x instanceof TreeBank;
  const isSeq = (x: unknown): boolean => x instanceof SequenceBank;
  if (!(isTree(a) || isSeq(a))) throw new UsageError('kernel: the first argument is not a TreeBank or SequenceBank');
  if (!(isTree(b) || isSeq(b))) throw new UsageError('kernel: the second bank is not a TreeBank or SequenceBank');
  if (isTree(a) !== isTree(b))
    throw new UsageError('kernel: mismatched handles: cannot compare a TreeBank with a SequenceBank');
}

function checkIndex(i: number, bank: Bank, which: string): void {
  if (!Number.isInteger(i) || i < 0 || i >= bank.size) {
    throw new UsageError(`kernel: index ${i} out of range for the ${which} bank (${bank.size} items)`);
  }
}

function checkThreads(threads: number | undefined): number {
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0))
    throw new UsageError(`kernel: threads must be a non-negative integer, got ${threads}`);
  return resolveThreads(threads);
}

/** Checks options and converts them to the native form (also used by lib/rerank). */
export function nativeOptions(a: Bank, b: Bank, o: TreeKernelOptions & SequenceKernelOptions): NativeKernelOptions {
  if (o === null || typeof o !== 'object') throw new UsageError('kernel: options { lambda, ... } are required');
  if (typeof o.lambda !== 'number' || !(o.lambda > 0 && o.lambda <= 1)) {
    throw new UsageError(`kernel: lambda must be a number in (0, 1], got ${String(o.lambda)}`);
  }
  const beta = o.beta ?? 0;
  const out: NativeKernelOptions = { lambda: o.lambda, normalize: !!o.normalize, plain: !!o.plain, sim2: false, beta };
  if (o.depth !== undefined) {
    if (!(a instanceof TreeBank)) throw new UsageError('kernel: depth applies to tree kernels only');
    if (!Number.isInteger(o.depth) || o.depth < 1)
      throw new UsageError(`kernel: depth must be a positive integer, got ${o.depth}`);
    out.depth = o.depth;
  }
  if (o.sim2) {
    if (!(a instanceof SequenceBank) || !(b instanceof SequenceBank))
      throw new UsageError('kernel: sim2 applies to sequence kernels only');
    if (a.wordFeature === 'none' || a.wordFeature !== b.wordFeature) {
      throw new UsageError(
        `kernel: mismatched handles: sim2 needs both banks built with the same wordFeature (have '${a.wordFeature}' and '${b.wordFeature}')`,
      );
    }
    out.sim2 = true;
  }
  if (!Number.isFinite(beta)) throw new UsageError(`kernel: beta must be a finite number, got ${beta}`);
  if (beta !== 0) {
    const la = o.logprobs?.a ?? a.logprobs;
    const lb = o.logprobs?.b ?? b.logprobs;
    if (la === undefined || lb === undefined) throw new UsageError('kernel: beta != 0 needs logprobs for both banks');
    if (la.length !== a.size || lb.length !== b.size) {
      throw new UsageError(`kernel: logprobs need ${a.size} and ${b.size} entries, got ${la.length} and ${lb.length}`);
    }
    out.logprobA = Float64Array.from(la);
    out.logprobB = Float64Array.from(lb);
  }
  return out;
}

// The handle pair seen through one interface (both bank kinds have the same methods).
type AnyHandle = TreeBank['handle'];
function handles(a: Bank, b: Bank): [AnyHandle, AnyHandle] {
  return [a.handle as AnyHandle, b.handle as AnyHandle];
}

/**
 * K(a[i], b[j]).
 *
 * @example
 * ```ts
 * const bank = TreeBank.fromTrees(trees);
 * const k = kernel(bank, 0, bank, 1, { lambda: 0.4 });
 * ```
 */
export function kernel<B extends Bank>(a: B, i: number, b: B, j: number, options: OptionsFor<B>): number {
  checkPair(a, b);
  checkIndex(i, a, 'first');
  checkIndex(j, b, 'second');
  const o = nativeOptions(a, b, options);
  const [ha, hb] = handles(a, b);
  return ha.kernel(i, hb, j, o);
}

/** K(a[i], b[j]) for every j. */
export function row<B extends Bank>(a: B, i: number, b: B, options: OptionsFor<B> & ParallelOptions): Float64Array {
  checkPair(a, b);
  checkIndex(i, a, 'first');
  const o = nativeOptions(a, b, options);
  const [ha, hb] = handles(a, b);
  return ha.row(i, hb, o, checkThreads(options.threads));
}

/** Async form of `row`: runs off the event loop; rejects with AbortError when `signal` fires. */
export async function rowAsync<B extends Bank>(
  a: B,
  i: number,
  b: B,
  options: OptionsFor<B> & AsyncOptions,
): Promise<Float64Array> {
  checkPair(a, b);
  checkIndex(i, a, 'first');
  const o = nativeOptions(a, b, options);
  const threads = checkThreads(options.threads);
  const [ha, hb] = handles(a, b);
  return withCancelFlag(options.signal, (flag) => ha.rowAsync(i, hb, o, threads, flag));
}

/**
 * Gram matrix, row-major: `gram(a, options)` is a.size x a.size (symmetric, i <= j computed
 * once), `gram(a, b, options)` is a.size x b.size.
 *
 * @example
 * ```ts
 * const m = gram(TreeBank.fromTrees(trees), { lambda: 0.4, threads: 2 });   // m[i * n + j] = K(tree i, tree j)
 * ```
 */
export function gram<B extends Bank>(a: B, options: OptionsFor<B> & ParallelOptions): Float64Array;
export function gram<B extends Bank>(
  a: B,
  b: B | null | undefined,
  options: OptionsFor<B> & ParallelOptions,
): Float64Array;
export function gram<B extends Bank>(a: B, second: unknown, third?: unknown): Float64Array {
  const [b, options] = gramArgs<B, OptionsFor<B> & ParallelOptions>(a, second, third);
  const o = nativeOptions(a, b ?? a, options);
  const [ha, hb] = handles(a, b ?? a);
  return ha.gram(b ? hb : null, o, checkThreads(options.threads));
}

/**
 * Async form of `gram` (native threads, off the JS thread) with AbortSignal support.
 *
 * @example
 * ```ts
 * const m = await gramAsync(bankA, bankB, { lambda: 0.4, signal: AbortSignal.timeout(60_000) });
 * ```
 */
export function gramAsync<B extends Bank>(a: B, options: OptionsFor<B> & AsyncOptions): Promise<Float64Array>;
export function gramAsync<B extends Bank>(
  a: B,
  b: B | null | undefined,
  options: OptionsFor<B> & AsyncOptions,
): Promise<Float64Array>;
export async function gramAsync<B extends Bank>(a: B, second: unknown, third?: unknown): Promise<Float64Array> {
  const [b, options] = gramArgs<B, OptionsFor<B> & AsyncOptions>(a, second, third);
  const o = nativeOptions(a, b ?? a, options);
  const threads = checkThreads(options.threads);
  const [ha, hb] = handles(a, b ?? a);
  return withCancelFlag(options.signal, (flag) => ha.gramAsync(b ? hb : null, o, threads, flag));
}

function gramArgs<B extends Bank, O>(a: B, second: unknown, third: unknown): [B | undefined, O] {
  const secondIsBank = second instanceof TreeBank || second instanceof SequenceBank;
  const b = (secondIsBank ? second : undefined) as B | undefined;
  const options = (
    third === undefined && !secondIsBank && second !== null && second !== undefined ? second : third
  ) as O;
  if (second !== null && second !== undefined && !secondIsBank && third !== undefined) {
    throw new UsageError('kernel: mismatched handles: the second argument is not a TreeBank or SequenceBank');
  }
  checkPair(a, b ?? a);
  return [b, options];
}

/** Splits a row-major matrix into rows (for printing). */
export function toRows(matrix: Float64Array, cols: number): number[][] {
  const rows: number[][] = [];
  for (let i = 0; i < matrix.length; i += cols) rows.push(Array.from(matrix.subarray(i, i + cols)));
  return rows;
}
