/**
 * Iterative parameter mixing (McDonald, Hall & Mann 2010), one module for every perceptron
 * trained that way (the tagger: `mixingTrainer`; the kernel perceptron rerankers:
 * rerank-mixing.ts). The training sentences (or n-best lists) are cut into shards; every
 * round, each shard runs one perceptron epoch starting from the mixed weights, and the
 * coordinator mixes the shards' end weights: uniformly, or weighted by each shard's share of
 * the round's updates (mistakes). The averaged model is the average, over the rounds so far,
 * of the mixed averaged weights (each shard's average over its epoch), as the averaged
 * perceptron averages over its updates.
 *
 * The shards run as queue jobs or one after another in this process: the same native epochs
 * on the same inputs, mixed by this code, so both give the same model bit for bit.
 */
import type { ExternalTrainer, TaggerTrainingSpec } from '../tagger/tagger.js';
import type { MIX_WEIGHTINGS } from '../options/distributed.js';
import { decodeState, encodeState } from './state-bytes.js';
import { InternalError, ModelFileError } from '../errors.js';

/** One shard's perceptron epoch: its end weights, its epoch-averaged weights and its mistakes. */
export interface PerceptronShardResult {
  mistakes: number;
  weights: Float64Array;
  averaged: Float64Array;
}

/** Runs one perceptron epoch per shard from given weights; results in shard order. */
export interface ShardEpochs {
  readonly shards: number;
  perceptronEpochs(weights: Float64Array, seed: number): Promise<PerceptronShardResult[]>;
  close(): Promise<void>;
}

export type MixWeighting = (typeof MIX_WEIGHTINGS)[number];

/** The mixing coefficients of one round. */
export function mixingWeights(parts: { mistakes: number }[], weighting: MixWeighting): number[] {
  const total = parts.reduce((n, p) => n + p.mistakes, 0);
  if (weighting === 'uniform' || total === 0) return parts.map(() => 1 / parts.length);
  return parts.map((p) => p.mistakes / total);
}

/** sum_i mu_i v_i, added in shard order. */
export function mix(vectors: Float64Array[], mu: number[]): Float64Array {
  const out = new Float64Array(vectors[0].length);
  vectors.forEach((v, i) => {
    for (let k = 0; k < v.length; k++) out[k] += mu[i] * v[k];
  });
  return out;
}

/** The seed of a round's shuffling (the local perceptron's per-epoch rule). */
export const roundSeed = (seed: number, round: number): number => seed + round * 7919;

/** The rounds of parameter mixing over `epochs`' shards: the mixed weights and the sum of the mixed averages. */
export class ParameterMixing {
  /** The mixed end weights of the last round (the start of the next). */
  weights: Float64Array | undefined;
  private averagedSum: Float64Array | undefined;
  rounds = 0;

  constructor(
    readonly epochs: ShardEpochs,
    readonly weighting: MixWeighting,
    private readonly seed: number,
  ) {}

  /** One round from the current weights (`initial()` before the first); returns the round's mistakes. */
  async round(initial: () => Float64Array): Promise<number> {
    this.weights ??= Float64Array.from(initial());
    const parts = await this.epochs.perceptronEpochs(this.weights, roundSeed(this.seed, this.rounds));
    const mu = mixingWeights(parts, this.weighting);
    this.weights = mix(
      parts.map((p) => p.weights),
      mu,
    );
    const averaged = mix(
      parts.map((p) => p.averaged),
      mu,
    );
    this.rounds++;
    if (this.averagedSum === undefined) this.averagedSum = averaged;
    else for (let k = 0; k < averaged.length; k++) this.averagedSum[k] += averaged[k];
    return parts.reduce((n, p) => n + p.mistakes, 0);
  }

  /** The averaged model: the mean over the rounds of the mixed averaged weights. */
  averaged(): Float64Array {
    if (!this.averagedSum) throw new InternalError('no mixed weights before the first round');
    const model = new Float64Array(this.averagedSum.length);
    for (let k = 0; k < model.length; k++) model[k] = this.averagedSum[k] / this.rounds;
    return model;
  }

  /** The state after the last round, for a training checkpoint. */
  saveState(): Uint8Array {
    if (!this.weights || !this.averagedSum) throw new InternalError('no mixing state before the first round');
    return encodeState('mixing', {
      header: { round: this.rounds, shards: this.epochs.shards, weighting: this.weighting },
      vectors: [this.weights, this.averagedSum],
    });
  }

  /** Continues from `saveState`'s bytes (same shards and weighting). */
  loadState(bytes: Uint8Array): void {
    const { header, vectors } = decodeState('mixing', bytes);
    if (header.shards !== this.epochs.shards || header.weighting !== this.weighting) {
      throw new ModelFileError(
        '',
        `checkpoint: written with ${String(header.shards)} mixing shards weighted '${String(header.weighting)}', not ${this.epochs.shards} '${this.weighting}'`,
      );
    }
    [this.weights, this.averagedSum] = vectors;
    this.rounds = header.round as number;
  }
}

/** The perceptron tagger's mixing rounds as Tagger.train's `external` steps (the model tagged with: the averaged weights). */
export function mixingTrainer(
  spec: TaggerTrainingSpec,
  executor: ShardEpochs,
  weighting: MixWeighting,
): ExternalTrainer {
  const mixing = new ParameterMixing(executor, weighting, spec.seed);
  return {
    async step(initial) {
      const mistakes = await mixing.round(initial);
      return { loss: mistakes, converged: false, weights: mixing.averaged() };
    },
    saveState: () => mixing.saveState(),
    loadState(bytes) {
      mixing.loadState(bytes);
      return mixing.averaged();
    },
    close: () => executor.close(),
  };
}

/** `rounds` rounds of mixing from zero weights of length `size`, then the executor closed: the last mix and the averaged weights. */
export async function mixRounds(
  executor: ShardEpochs,
  size: number,
  rounds: number,
  seed: number,
  weighting: MixWeighting,
): Promise<{ last: Float64Array; averaged: Float64Array }> {
  const mixing = new ParameterMixing(executor, weighting, seed);
  try {
    for (let round = 0; round < rounds; round++) await mixing.round(() => new Float64Array(size));
  } finally {
    await executor.close();
  }
  if (rounds === 0) return { last: new Float64Array(size), averaged: new Float64Array(size).fill(NaN) };
  return { last: mixing.weights as Float64Array, averaged: mixing.averaged() };
}
