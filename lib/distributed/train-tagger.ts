/**
 * `train-tagger` with --redis/--store (CRF gradients over shards, perceptron parameter
 * mixing as jobs) or --mix-shards alone (parameter mixing in this process): the options
 * checked once and turned into Tagger.train's `external` steps.
 */
import { UsageError } from '../errors.js';
import type { ExternalTrainer, TaggerTrainingSpec } from '../tagger/tagger.js';
import { crfGradientTrainer, distributedTarget, localExecutor, queueExecutor } from './gradient.js';
import { mixingTrainer, type MixWeighting } from './mixing.js';
import { ArtifactStore } from './store.js';

export interface DistributedTrainValues {
  algo: string;
  optimizer: string;
  threads: number;
  redis?: string;
  store?: string;
  gradientShards: number;
  mixShards?: number;
  mixWeighting: MixWeighting;
  signal?: AbortSignal;
}

/** Default shards of parameter mixing as jobs (--redis without --mix-shards). */
const DEFAULT_MIX_SHARDS = 2;

export function distributedTrainer(
  command: string,
  v: DistributedTrainValues,
): ((spec: TaggerTrainingSpec) => Promise<ExternalTrainer>) | undefined {
  const target = distributedTarget(command, v);
  if (v.mixShards !== undefined && v.algo !== 'perceptron')
    throw new UsageError(`${command}: --mix-shards is for --algo perceptron`);
  if (target === undefined) {
    if (v.mixShards === undefined) return undefined;
    const shards = v.mixShards;
    return async (spec) => mixingTrainer(spec, localExecutor(spec, shards, v.threads, v.signal), v.mixWeighting);
  }
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  if (v.algo === 'perceptron') {
    const shards = v.mixShards ?? DEFAULT_MIX_SHARDS;
    return async (spec) =>
      mixingTrainer(
        spec,
        await queueExecutor(spec, shards, {
          redis: target.redis,
          store: new ArtifactStore(target.store),
          signal: v.signal,
          log,
        }),
        v.mixWeighting,
      );
  }
  if (v.algo === 'crf' && v.optimizer === 'lbfgs') {
    return async (spec) =>
      crfGradientTrainer(
        spec,
        await queueExecutor(spec, v.gradientShards, {
          redis: target.redis,
          store: new ArtifactStore(target.store),
          signal: v.signal,
          log,
        }),
      );
  }
  throw new UsageError(
    `${command}: --redis trains --algo crf with --optimizer lbfgs (summed shard gradients) or --algo perceptron (parameter mixing); not --algo ${v.algo}${v.algo === 'crf' ? ' with --optimizer sgd' : ''}`,
  );
}
