/**
 * CRF parser training by synchronous data parallelism (`train-parser --crf --lbfgs --redis`).
 * Full-batch L-BFGS is the natural distributed form of the parser's objective: at every point
 * L-BFGS asks about, each sentence shard's objective and gradient are computed by a job at
 * the same weights, and the sharded L-BFGS coordinator (lbfgs-coordinator.ts) adds them in
 * shard order, then the prior, as the native CrfTrainer::FullObjective does, and takes the
 * step with the same L-BFGS (memory 10).
 * The model equals local training's up to the order in which per-sentence gradients are
 * summed (one shard and one thread: the same order, the same bytes).
 *
 * A worker builds the coordinator's whole model (grammar, features, starting weights) from
 * the training spec once per run and keeps it for the next jobs; weights and gradients travel
 * as Float64 blobs through the store (gradient.ts).
 */
import { z } from 'zod';
import {
  parserShardHandle,
  type ParserExternalTrainer,
  type ParserShardHandle,
  type ParserTrainingSpec,
  type ParserTrainOptions,
} from '../parser/chart-parser.js';
import type { Tree } from '../trees/tree.js';
import { UsageError } from '../errors.js';
import { parserTrainFields } from '../options/parser.js';
import {
  distributedTarget,
  queueExecutor,
  inShardOrder,
  runWeightsJob,
  sentenceRanges,
  type TrainShardPayload,
} from './gradient.js';
import { shardedLbfgs, type GradientExecutor, type GradientStats, type ShardObjective } from './lbfgs-coordinator.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import { parsePayload } from './payloads.js';
import { ArtifactStore } from './store.js';

/** The parser's L-BFGS settings (native CrfTrainer::LbfgsSettings: memory 10, the rest default). */
const PARSER_LBFGS = { memory: 10 };

export type { GradientExecutor };

// ---- the spec blob, checked before a worker builds anything from it ----

const treeSchema: z.ZodType<Tree> = z.lazy(() =>
  z.strictObject({ label: z.string(), children: z.array(treeSchema), word: z.string().optional() }),
);
// The declared train-parser options (lib/options/parser.ts) as the spec carries them: each
// optional, never filled with its CLI default (the coordinator sends what it was given), so an
// option declared there is accepted here too. File and run options stay out (clusters travel
// as data; epochs, threads and the cache are the coordinator's).
const {
  clusters: _file,
  threads: _threads,
  epochs: _epochs,
  featureCacheMB: _cache,
  ...modelFields
} = parserTrainFields;
const specOptionFields = Object.fromEntries(
  Object.entries(modelFields).map(([name, field]) => [
    name,
    (field instanceof z.ZodDefault ? field.unwrap() : field).optional(),
  ]),
);
const specSchema = z.strictObject({
  trees: z.array(treeSchema).min(1),
  options: z.strictObject({
    ...specOptionFields,
    // API options with no CLI declaration.
    parent: z.boolean().optional(),
    vpHeadTag: z.boolean().optional(),
    clusters: z.strictObject({ words: z.array(z.string()), clusters: z.array(z.string()) }).optional(),
    relaxWeight: z.number().optional(),
    optimizer: z.literal('lbfgs').optional(),
    priorAtPcfg: z.boolean().optional(),
  }),
  sentences: z.number().int().min(1),
  sigma2: z.number().gt(0),
  priorAtStart: z.boolean(),
});

// ---- the worker side ----

/** A worker's parser trainings by spec hash and threads: built once per run, the last two kept. */
const trainings = new Map<string, ParserShardHandle>();
function shardHandle(env: JobEnv, specHash: string): ParserShardHandle {
  const key = `${specHash}/${env.threads}`;
  let h = trainings.get(key);
  if (h === undefined) {
    const spec = parsePayload(
      'parser training spec',
      specSchema,
      JSON.parse(env.store.get(specHash).toString('utf8')),
    ) as ParserTrainingSpec;
    h = parserShardHandle(spec, env.threads);
    trainings.set(key, h);
    while (trainings.size > 2) trainings.delete(trainings.keys().next().value as string);
  }
  return h;
}

/** Job body: one shard's CRF parser objective and gradient; the blob is [loss, gradient...]. */
export function runParserGradientJob(p: TrainShardPayload, env: JobEnv): Promise<JobOutcome> {
  return runWeightsJob(p, env, async (w) => {
    const r = await shardHandle(env, p.spec).gradient(w, p.first, p.last, env.signal);
    return [Float64Array.of(r.loss), r.gradient];
  });
}

// ---- the coordinator side ----

/** The shards computed one after another in this process (tests, and trying shard counts). */
export function localParserExecutor(
  spec: ParserTrainingSpec,
  shards: number,
  threads: number,
  signal?: AbortSignal,
): GradientExecutor {
  const handle = parserShardHandle(spec, threads);
  const ranges = sentenceRanges(spec.sentences, shards);
  return {
    shards: ranges.length,
    bytesMoved: 0,
    crfGradients: (w) => inShardOrder(ranges, (a, b) => handle.gradient(w, a, b, signal)),
    close: async () => {},
  };
}

/**
 * The CRF parser's objective over shards. Sums as FullObjective: the shards' losses and
 * gradients in shard order, then the Gaussian prior (mean: the starting weights, or 0),
 * feature by feature. A checkpoint keeps the prior's mean after the L-BFGS vectors.
 */
export function parserShardObjective(
  spec: Pick<ParserTrainingSpec, 'sigma2' | 'priorAtStart' | 'sentences'>,
): ShardObjective {
  let mean: Float64Array | undefined;
  const sigma2 = spec.sigma2;
  return {
    stateKind: 'parser-lbfgs',
    lbfgs: PARSER_LBFGS,
    start(x0) {
      if (spec.priorAtStart) mean = Float64Array.from(x0);
    },
    sum(x, parts, gradient) {
      let value = 0;
      for (const p of parts) value += p.loss;
      for (let f = 0; f < x.length; f++) {
        const d = mean ? x[f] - mean[f] : x[f];
        value += (d * d) / (2 * sigma2);
        let g = d / sigma2;
        for (const p of parts) g += p.gradient[f];
        gradient[f] = g;
      }
      return value;
    },
    loss: (value) => value / spec.sentences,
    saveExtra: () => ({ header: { priorMean: mean !== undefined }, vectors: mean ? [mean] : [] }),
    loadExtra(p) {
      mean = p.header.priorMean === true ? p.vectors.pop() : undefined;
    },
  };
}

/** L-BFGS iterations over the shards' summed parser objective. */
export function parserGradientTrainer(
  spec: ParserTrainingSpec,
  executor: GradientExecutor,
  stats?: GradientStats,
): ParserExternalTrainer {
  return shardedLbfgs(parserShardObjective(spec), executor, stats);
}

export interface DistributedParserValues {
  crf: boolean;
  lbfgs: boolean;
  redis?: string;
  store?: string;
  gradientShards: number;
  signal?: AbortSignal;
}

/** `train-parser --redis/--store`: the options checked once and turned into the trainer's `external` hook. */
export function distributedParserTrainer(command: string, v: DistributedParserValues): ParserTrainOptions['external'] {
  const target = distributedTarget(command, v);
  if (target === undefined) return undefined;
  if (!v.crf || !v.lbfgs) {
    throw new UsageError(
      `${command}: --redis trains the CRF with full-batch L-BFGS (--crf --lbfgs: shard gradients summed each evaluation); AdaGrad and SGD step after every batch of sentences and stay on one machine`,
    );
  }
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  return async (spec) =>
    parserGradientTrainer(
      spec,
      await queueExecutor(spec, v.gradientShards, {
        redis: target.redis,
        store: new ArtifactStore(target.store),
        signal: v.signal,
        log,
        gradientKind: 'train.parser-gradient',
      }),
    );
}
