/**
 * The kernel perceptron rerankers' side of parameter mixing (the rounds are mixing.ts's, as
 * for the perceptron tagger): the training n-best lists are cut into shards, and a shard's
 * epoch is one native perceptron epoch over its lists from the mixed coefficients. The
 * model's averaged prediction is the mean over the rounds of the mixed epoch-averaged
 * coefficients; its last prediction the final mix.
 *
 * The shards run as queue jobs (`train.reranker-epoch`) or one after another in this
 * process: the same native epochs on the same inputs, mixed by the same code, so both give
 * the same model bytes.
 */
import { z } from 'zod';
import { mixingCandidates, mixingEpoch, type RerankerMixingSpec } from '../rerank/perceptron-mixing.js';
import type { PerceptronTrainOptions } from '../rerank/perceptron.js';
import type { NativeCandidateSpec } from '../rerank/perceptron-native.js';
import { PERCEPTRON_KERNELS } from '../options/rerank.js';
import { queueExecutor, inShardOrder, runWeightsJob, sentenceRanges, type TrainShardPayload } from './gradient.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import { mixRounds, type MixWeighting, type ShardEpochs } from './mixing.js';
import { parsePayload } from './payloads.js';
import type { ArtifactStore } from './store.js';

/** The shards' epochs one after another in this process (`--mix-shards` without --redis). */
export function localRerankerExecutor(
  spec: RerankerMixingSpec,
  candidates: NativeCandidateSpec,
  shards: number,
  threads: number,
  signal?: AbortSignal,
): ShardEpochs {
  const ranges = sentenceRanges(spec.sentences, shards);
  return {
    shards: ranges.length,
    perceptronEpochs: (w, seed) =>
      inShardOrder(ranges, async (first, last) => {
        const r = await mixingEpoch(candidates, spec.options, w, { first, last, seed, threads }, signal);
        return { mistakes: r.mistakes, weights: r.last, averaged: r.averaged };
      }),
    close: async () => {},
  };
}

export interface RerankerMixingValues {
  shards: number;
  weighting: MixWeighting;
  seed: number;
  threads: number;
  /** Jobs on this queue and store; in this process when absent. */
  queue?: { redis: string; store: ArtifactStore; log?: (line: string) => void };
  signal?: AbortSignal;
}

/** PerceptronReranker.train's `mixing` hook: the rounds in this process or as jobs. */
export function rerankerMixing(v: RerankerMixingValues): NonNullable<PerceptronTrainOptions['mixing']> {
  return async (spec, candidates, epochs) => {
    const executor = v.queue
      ? await queueExecutor(spec, v.shards, { ...v.queue, signal: v.signal, epochKind: 'train.reranker-epoch' })
      : localRerankerExecutor(spec, candidates, v.shards, v.threads, v.signal);
    return mixRounds(executor, candidates.logprobs.length, epochs, v.seed, v.weighting);
  };
}

// ---- the job ----

/** The spec blob: plain data, checked before a worker builds anything from it. */
const specSchema = z.strictObject({
  kind: z.literal('perceptron-reranker'),
  nbest: z.string(),
  sentences: z.number().int().min(1),
  file: z.string(),
  settings: z.strictObject({
    kernel: z.enum(PERCEPTRON_KERNELS),
    lambda: z.number(),
    sim1: z.number(),
    sim2: z.number(),
    wordFeature: z.string(),
    normalize: z.boolean().optional(),
    featureSource: z.enum(['file', 'builtin']).optional(),
  }),
  options: z.strictObject({
    shuffle: z.boolean(),
    beta: z.number(),
    baseWeight: z.number(),
    primal: z.boolean(),
    cacheMB: z.number().positive(),
  }),
});

/** A worker's training candidates by spec hash: built once per run, the last two kept. */
const built = new Map<string, { spec: RerankerMixingSpec; candidates: NativeCandidateSpec }>();
function candidatesOf(
  store: ArtifactStore,
  specHash: string,
): { spec: RerankerMixingSpec; candidates: NativeCandidateSpec } {
  let b = built.get(specHash);
  if (b === undefined) {
    const spec = parsePayload(
      'reranker mixing spec',
      specSchema,
      JSON.parse(store.get(specHash).toString('utf8')),
    ) as RerankerMixingSpec;
    b = { spec, candidates: mixingCandidates(spec) };
    built.set(specHash, b);
    while (built.size > 2) built.delete(built.keys().next().value as string);
  }
  return b;
}

/** Job body: one shard's epoch; the blob is [mistakes, last..., averaged...] (the tagger's layout). */
export function runRerankerEpochJob(p: TrainShardPayload, env: JobEnv): Promise<JobOutcome> {
  return runWeightsJob(p, env, async (w) => {
    const { spec, candidates } = candidatesOf(env.store, p.spec);
    const r = await mixingEpoch(
      candidates,
      spec.options,
      w,
      { first: p.first, last: p.last, seed: p.seed ?? 0, threads: env.threads },
      env.signal,
    );
    return [Float64Array.of(r.mistakes), r.last, r.averaged];
  });
}
