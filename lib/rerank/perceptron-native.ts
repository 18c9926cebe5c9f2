/** The part of the native addon the perceptron rerankers use (native/binding/perceptron.cc). */
import type { CancelFlagHandle } from '../native.js';

/** Sparse feature rows: row r is cols[rowPtr[r] .. rowPtr[r+1]) with optional values (else 1). */
export interface NativeFeatureRows {
  rowPtr: Float64Array;
  cols: Int32Array;
  values?: Float32Array;
}

/** Trees in pre-order with arities, as native/kernels' PreorderTrees. */
export interface NativePreorderTrees {
  symbols: string[];
  label: Int32Array;
  word: Int32Array;
  arity: Int32Array;
  sizes: Int32Array;
  /** Subset-tree kernel decay (used from the training bank; a query's is ignored). */
  lambda: number;
}

/** Tag sequences, as native/kernels' TaggedSequences. */
export interface NativeTaggedSequences {
  symbols: string[];
  label: Int32Array;
  word: Int32Array;
  lengths: Int32Array;
  lambda: number;
  /** Weights of the Sim1 (same word) and Sim2 (same word class) terms. */
  sim1: number;
  sim2: number;
  /** Built-in word-class function for Sim2 ('none' when sim2 = 0). */
  wordFeature: string;
  /** The normalized kernel K(a, b) / sqrt(K(a, a) K(b, b)) (a query's is ignored). */
  normalize: boolean;
}

/** Candidates grouped by sentence, with the structures the kernel reads. */
export interface NativeCandidateSpec {
  kernel: 'linear' | 'tree' | 'tags';
  /** Sentence s owns candidates [sentencePtr[s], sentencePtr[s+1]). */
  sentencePtr: Float64Array;
  logprobs: Float64Array;
  /** Score(x) per candidate (training only). */
  scores?: Float64Array;
  features?: NativeFeatureRows;
  /** Tree or tagging kernel plus `features`: K + featureWeight * Phi . Phi (linear_sum_bank.h). */
  featureWeight?: number;
  trees?: NativePreorderTrees;
  tags?: NativeTaggedSequences;
}

/** A mixing epoch's options as the binding reads them: every field given (lib/options/rerank.ts). */
export interface NativeMixingOptions {
  seed: number;
  shuffle: boolean;
  threads: number;
  cacheMB: number;
  beta: number;
  baseWeight: number;
  primal: boolean;
}

/** perceptronTrain's options: a mixing epoch's and the run's shape. */
export interface NativePerceptronOptions extends NativeMixingOptions {
  epochs: number;
  chunks: number;
  /** Tree kernel: train against a growing DAG of the support trees. */
  compressed: boolean;
  /** Continue from runBytes() of a run of the first `resumeEpochs` epochs (a checkpoint); both or neither. */
  resume?: Uint8Array;
  resumeEpochs?: number;
}

export interface NativePerceptronInfo {
  kernel: 'linear' | 'tree' | 'tags';
  /** The weight of the explicit features added to a tree or tagging kernel, when they are. */
  featureWeight?: number;
  support: number;
  steps: number;
  mistakes: number;
  chunks: number;
  beta: number;
  baseWeight: number;
}

export interface NativePerceptronModel {
  /** mode: 0 last, 1 averaged, 2 voted. */
  choose(
    query: NativeCandidateSpec,
    mode: number,
    threads: number,
    compressed: boolean,
    cancel: CancelFlagHandle,
  ): Promise<{ chosen: Int32Array; scores: Float64Array }>;
  save(): Uint8Array;
  info(): NativePerceptronInfo;
  supportIds(): Int32Array;
  coefficients(mode: number): Float64Array;
  /** Linear models: renumbers features densely; returns the old id of each new id. */
  compactFeatures(): Int32Array;
  /** The training run (support ids, mistakes): what a checkpoint keeps to continue. */
  runBytes(): Uint8Array;
  /** Set on freshly trained models. */
  stats?: { kernelCalls: number; cacheHits: number };
  /** Tree models: sizes of the support forest and of its shared-subtree DAG. */
  compression?(): { treeNodes: number; dagNodes: number };
}

export interface PerceptronAddon {
  perceptronTrain(
    spec: NativeCandidateSpec,
    options: NativePerceptronOptions,
    cancel: CancelFlagHandle,
    onProgress?: (done: number, total: number, mistakes: number) => void,
  ): Promise<NativePerceptronModel>;
  PerceptronModel: { load(bytes: Uint8Array): NativePerceptronModel };
  /** One parameter-mixing epoch over sentences [first, last) from dense start coefficients. */
  perceptronMixingEpoch(
    spec: NativeCandidateSpec,
    options: NativeMixingOptions,
    start: Float64Array,
    first: number,
    last: number,
    cancel: CancelFlagHandle,
  ): Promise<{ last: Float64Array; averaged: Float64Array; mistakes: number; steps: number }>;
  /** A model of explicit coefficients, dense over the training candidates (no voted prediction). */
  perceptronFromCoefficients(
    spec: NativeCandidateSpec,
    options: { beta: number; baseWeight: number },
    last: Float64Array,
    averaged: Float64Array,
  ): NativePerceptronModel;
}
