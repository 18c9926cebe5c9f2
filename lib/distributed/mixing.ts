/**
 * Perceptron training by iterative parameter mixing (McDonald, Hall & Mann 2010). The
 * training sentences are cut into shards; every round, each shard runs one perceptron epoch
 * starting from the mixed weights, and the coordinator mixes the shards' end weights:
 * uniformly, or weighted by each shard's share of the round's updates (mistakes). The model
 * tagged with is the average, over the rounds so far, of the mixed averaged weights (each
 * shard's average over its epoch), as the averaged perceptron averages over its updates.
 *
 * The shards run as queue jobs or one after another in this process (`--mix-shards` alone):
 * the same native epochs on the same inputs, mixed by this code, so both give the same model
 * bit for bit.
 */
import type { ExternalTrainer, TaggerTrainingSpec } from '../tagger/tagger.js';
import type { PerceptronShardResult, ShardExecutor } from './gradient.js';
import type { MIX_WEIGHTINGS } from '../options/distributed.js';
import { decodeState, encodeState } from './state-bytes.js';
import { InternalError, ModelFileError } from '../errors.js';

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

/** The weights tagged with: the mean over rounds of the mixed averaged weights. */
function modelWeights(averagedSum: Float64Array, round: number): Float64Array {
  const model = new Float64Array(averagedSum.length);
  for (let k = 0; k < model.length; k++) model[k] = averagedSum[k] / round;
  return model;
}

export function mixingTrainer(spec: TaggerTrainingSpec, executor: ShardExecutor, weighting: MixWeighting): ExternalTrainer {
  let w: Float64Array | undefined;
  let averagedSum: Float64Array | undefined;
  let round = 0;
  return {
    async step(initial) {
      w ??= Float64Array.from(initial());
      const parts: PerceptronShardResult[] = await executor.perceptronEpochs(w, roundSeed(spec.seed, round));
      const mu = mixingWeights(parts, weighting);
      w = mix(parts.map((p) => p.weights), mu);
      const averaged = mix(parts.map((p) => p.averaged), mu);
      round++;
      if (averagedSum === undefined) averagedSum = averaged;
      else for (let k = 0; k < averaged.length; k++) averagedSum[k] += averaged[k];
      return { loss: parts.reduce((n, p) => n + p.mistakes, 0), converged: false, weights: modelWeights(averagedSum, round) };
    },
    saveState() {
      if (!w || !averagedSum) throw new InternalError('no mixing state before the first round');
      return encodeState('mixing', { header: { round, shards: executor.shards, weighting }, vectors: [w, averagedSum] });
    },
    loadState(bytes) {
      const { header, vectors } = decodeState('mixing', bytes);
      if (header.shards !== executor.shards || header.weighting !== weighting) {
        throw new ModelFileError('', `checkpoint: written with ${String(header.shards)} mixing shards weighted '${String(header.weighting)}', not ${executor.shards} '${weighting}'`);
      }
      [w, averagedSum] = vectors;
      round = header.round as number;
      return modelWeights(averagedSum, round);
    },
    close: () => executor.close(),
  };
}
