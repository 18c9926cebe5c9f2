/**
 * What parameter mixing of a perceptron reranker needs from the reranker side (McDonald,
 * Hall & Mann 2010; the rounds themselves are lib/distributed/rerank-mixing.ts): a spec of
 * plain data from which a worker rebuilds the coordinator's training candidates, and one
 * native epoch over a range of n-best lists that starts from given coefficients.
 *
 * Coefficients are dense over the training candidates: the hypothesis is
 * G(x) = sum_c coef[c] K'(c, x), which in the primal form is the weight vector
 * W = sum_c coef[c] Phi(c). Averaging such coefficients is averaging the weight vectors.
 */
import { formatNbestLine, NbestParser, type NbestSentence } from '../io/nbest.js';
import { native, resolveThreads, withCancelFlag } from '../native.js';
import { buildCandidates, type KernelSettings } from './perceptron-data.js';
import { FeatureDictionary } from './perceptron-features.js';
import { InternalError } from '../errors.js';
import type { NativeCandidateSpec, PerceptronAddon } from './perceptron-native.js';

/** The options an epoch's decisions depend on (plus the round's seed, given per epoch). */
export interface MixingEpochOptions {
  shuffle: boolean;
  beta: number;
  baseWeight: number;
  primal: boolean;
  cacheMB: number;
}

/** Everything a worker needs to rebuild the training candidates: plain data (a store blob). */
export interface RerankerMixingSpec {
  kind: 'perceptron-reranker';
  /** The n-best lists, one JSON line each (the n-best file format). */
  nbest: string;
  sentences: number;
  /** The name errors give for the lists. */
  file: string;
  settings: KernelSettings;
  options: MixingEpochOptions;
}

/** One shard's epoch: the final and the epoch-averaged coefficients, and its mistakes. */
export interface MixingEpochResult {
  last: Float64Array;
  averaged: Float64Array;
  mistakes: number;
}

export function rerankerMixingSpec(
  sentences: readonly NbestSentence[],
  file: string,
  settings: KernelSettings,
  options: MixingEpochOptions,
): RerankerMixingSpec {
  return {
    kind: 'perceptron-reranker',
    nbest: sentences.map((s) => formatNbestLine(s)).join('\n') + '\n',
    sentences: sentences.length,
    file,
    settings,
    options,
  };
}

/** The training candidates of a spec, built as the coordinator built them (same ids). */
export function mixingCandidates(spec: RerankerMixingSpec): NativeCandidateSpec {
  const parser = new NbestParser(spec.file);
  const sentences: NbestSentence[] = [];
  spec.nbest.split('\n').forEach((text, i) => {
    const s = parser.push({ text, number: i + 1 });
    if (s) sentences.push(s);
  });
  if (sentences.length !== spec.sentences)
    throw new InternalError(`mixing spec: ${sentences.length} n-best lists, expected ${spec.sentences}`);
  const dictionary = spec.settings.kernel === 'linear' ? new FeatureDictionary() : undefined;
  return buildCandidates(sentences, spec.settings, { file: spec.file, withScores: true, dictionary }).spec;
}

/** One perceptron epoch over the lists [first, last) from `start`, shuffled with `seed`. */
export function mixingEpoch(
  candidates: NativeCandidateSpec,
  options: MixingEpochOptions,
  start: Float64Array,
  range: { first: number; last: number; seed: number; threads: number },
  signal?: AbortSignal,
): Promise<MixingEpochResult> {
  const addon = native<PerceptronAddon>();
  return withCancelFlag(signal, (flag) =>
    addon.perceptronMixingEpoch(
      candidates,
      { ...options, seed: range.seed, threads: resolveThreads(range.threads) },
      start,
      range.first,
      range.last,
      flag,
    ),
  );
}
