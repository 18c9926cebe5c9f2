/// <reference types="node" preserve="true" />
/** The part of the native addon that lib/kernels uses (native/binding/kernels.cc). */
import type { CancelFlagHandle } from '../native.js';

/** Options as the native side reads them: every field but the optional-by-meaning ones given. */
export interface NativeKernelOptions {
  lambda: number;
  /** Tree kernels: count fragments up to this depth (absent: every depth). */
  depth?: number;
  normalize: boolean;
  beta: number;
  plain: boolean;
  sim2: boolean;
  /** With beta != 0: the log-probabilities of each bank's items. */
  logprobA?: Float64Array;
  logprobB?: Float64Array;
}

export interface NativeBank<Self> {
  size(): number;
  bytes(): number;
  kernel(i: number, other: Self, j: number, options: NativeKernelOptions): number;
  row(i: number, other: Self, options: NativeKernelOptions, threads: number): Float64Array;
  rowAsync(
    i: number,
    other: Self,
    options: NativeKernelOptions,
    threads: number,
    cancel: CancelFlagHandle,
  ): Promise<Float64Array>;
  gram(other: Self | null, options: NativeKernelOptions, threads: number): Float64Array;
  gramAsync(
    other: Self | null,
    options: NativeKernelOptions,
    threads: number,
    cancel: CancelFlagHandle,
  ): Promise<Float64Array>;
}

export interface NativeTreeBank extends NativeBank<NativeTreeBank> {
  totalNodes(): number;
}

export interface NativeSequenceBank extends NativeBank<NativeSequenceBank> {
  totalTokens(): number;
}

export interface KernelsAddon {
  TreeBank: {
    new (
      symbols: string[],
      label: Int32Array,
      word: Int32Array,
      arity: Int32Array,
      treeSize: Int32Array,
    ): NativeTreeBank;
    /** Reads bracketed trees from a file's bytes; an empty bank if they are malformed. */
    new (bytes: Uint8Array, unwrap: boolean): NativeTreeBank;
  };
  /** Rows [first, end) of a row-major matrix as text, numbers as JavaScript's String() / JSON.stringify() write them. */
  formatRows(matrix: Float64Array, cols: number, first: number, end: number, json: boolean): Buffer;
  SequenceBank: new (
    symbols: string[],
    label: Int32Array,
    word: Int32Array,
    length: Int32Array,
    feature: string,
    wordClass?: Int32Array,
  ) => NativeSequenceBank;
}
