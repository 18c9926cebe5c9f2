/** The part of the native addon that the perceptron rerankers use (native/binding/perceptron.cc). */
import type { CancelFlagHandle } from '../native.js';
import type { NativeKernelOptions } from '../kernels/native-kernels.js';

export interface NativePerceptronOptions {
  epochs?: number;
  seed?: number;
  shuffle?: boolean;
  cacheSize?: number;
}

export type Voting = 'last' | 'averaged' | 'voted';

export interface PerceptronAddon {
  trainDualPerceptron(
    bank: unknown,
    sentenceSizes: Int32Array,
    kernel: NativeKernelOptions,
    options: NativePerceptronOptions,
    cancel: CancelFlagHandle,
  ): Promise<{ steps: number; mistakes: Float64Array }>;
  predictDual(
    trainBank: unknown,
    mistakes: Float64Array,
    steps: number,
    testBank: unknown,
    testSizes: Int32Array,
    kernel: NativeKernelOptions,
    voting: Voting,
    threads: number,
    cancel: CancelFlagHandle,
  ): Promise<Int32Array>;
  scoreDual(
    trainBank: unknown,
    mistakes: Float64Array,
    steps: number,
    testBank: unknown,
    testSizes: Int32Array,
    kernel: NativeKernelOptions,
    voting: Voting,
    threads: number,
    cancel: CancelFlagHandle,
  ): Promise<Float64Array>;
  trainPrimalPerceptron(
    rowPtr: Float64Array,
    cols: Int32Array,
    values: Float32Array | null,
    numFeatures: number,
    sentenceSizes: Int32Array,
    options: NativePerceptronOptions,
    cancel: CancelFlagHandle,
  ): Promise<{ steps: number; mistakes: Float64Array; weights: Float64Array; summedWeights: Float64Array }>;
}
