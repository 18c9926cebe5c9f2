/**
 * CRF parser training by synchronous data parallelism (`train-parser --crf --lbfgs --redis`).
 * Full-batch L-BFGS is the natural distributed form of the parser's objective: at every point
 * L-BFGS asks about, each sentence shard's objective and gradient are computed by a job at
 * the same weights, and the coordinator adds them in shard order, then the prior, as the
 * native CrfTrainer::FullObjective does, and takes the step with the same L-BFGS (memory 10).
 * The model equals local training's up to the order in which per-sentence gradients are
 * summed (one shard and one thread: the same order, the same bytes).
 *
 * A worker builds the coordinator's whole model (grammar, features, starting weights) from
 * the training spec once per run and keeps it for the next jobs; weights and gradients travel
 * as Float64 blobs through the store (gradient.ts).
 */
import { z } from 'zod';
import { parserShardHandle, type ParserExternalTrainer, type ParserShardHandle, type ParserTrainingSpec, type ParserTrainOptions } from '../parser/chart-parser.js';
import type { Tree } from '../trees/tree.js';
import { InternalError, UsageError } from '../errors.js';
import { parserTrainFields } from '../options/parser.js';
import { AsyncLbfgs } from './gradient-lbfgs.js';
import { decodeState, encodeState } from './state-bytes.js';
import { distributedTarget, queueExecutor, runWeightsJob, sentenceRanges, type CrfShardResult, type GradientStats, type ShardExecutor, type TrainShardPayload } from './gradient.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import { parsePayload } from './payloads.js';
import { ArtifactStore } from './store.js';

/** The parser's L-BFGS settings (native CrfTrainer::LbfgsSettings: memory 10, the rest default). */
const PARSER_LBFGS = { memory: 10 };

/** What the gradient trainer needs of an executor. */
export type GradientExecutor = Pick<ShardExecutor, 'shards' | 'crfGradients' | 'bytesMoved' | 'close'>;

// ---- the spec blob, checked before a worker builds anything from it ----

const treeSchema: z.ZodType<Tree> = z.lazy(() =>
  z.strictObject({ label: z.string(), children: z.array(treeSchema), word: z.string().optional() }),
);
// The declared train-parser options (lib/options/parser.ts) as the spec carries them: each
// optional, never filled with its CLI default (the coordinator sends what it was given), so an
// option declared there is accepted here too. File and run options stay out (clusters travel
// as data; epochs, threads and the cache are the coordinator's).
const { clusters: _file, threads: _threads, epochs: _epochs, featureCacheMB: _cache, ...modelFields } = parserTrainFields;
const specOptionFields = Object.fromEntries(
  Object.entries(modelFields).map(([name, field]) => [name, (field instanceof z.ZodDefault ? field.unwrap() : field).optional()]),
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
    seed: z.number().int().optional(),
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
    const spec = parsePayload('parser training spec', specSchema, JSON.parse(env.store.get(specHash).toString('utf8'))) as ParserTrainingSpec;
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
export function localParserExecutor(spec: ParserTrainingSpec, shards: number, threads: number, signal?: AbortSignal): GradientExecutor {
  const handle = parserShardHandle(spec, threads);
  const ranges = sentenceRanges(spec.sentences, shards);
  return {
    shards: ranges.length,
    bytesMoved: 0,
    async crfGradients(w) {
      const out: CrfShardResult[] = [];
      for (const [a, b] of ranges) out.push(await handle.gradient(w, a, b, signal));
      return out;
    },
    close: async () => {},
  };
}

/**
 * L-BFGS iterations over the shards' summed objective. Sums as FullObjective: the shards'
 * losses and gradients in shard order, then the Gaussian prior (mean: the starting weights,
 * or 0), feature by feature.
 */
export function parserGradientTrainer(spec: ParserTrainingSpec, executor: GradientExecutor, stats?: GradientStats): ParserExternalTrainer {
  let lbfgs: AsyncLbfgs | undefined;
  let mean: Float64Array | undefined;
  const sigma2 = spec.sigma2;
  let gradient = new Float64Array(0); // reused: the optimizer copies it (AsyncObjective)
  const objective = async (x: Float64Array): Promise<{ value: number; gradient: Float64Array }> => {
    const t0 = Date.now();
    const parts = await executor.crfGradients(x);
    let value = 0;
    for (const p of parts) value += p.loss;
    if (gradient.length !== x.length) gradient = new Float64Array(x.length);
    for (let f = 0; f < x.length; f++) {
      const d = mean ? x[f] - mean[f] : x[f];
      value += (d * d) / (2 * sigma2);
      let g = d / sigma2;
      for (const p of parts) g += p.gradient[f];
      gradient[f] = g;
    }
    if (stats) {
      stats.evaluations++;
      stats.seconds += (Date.now() - t0) / 1000;
      stats.bytesMoved = executor.bytesMoved;
    }
    return { value, gradient };
  };
  return {
    async step(initial) {
      if (!lbfgs) {
        const x0 = initial();
        if (spec.priorAtStart) mean = Float64Array.from(x0);
        lbfgs = await AsyncLbfgs.start(objective, x0, PARSER_LBFGS);
      }
      const more = await lbfgs.iterate();
      return { loss: lbfgs.value / spec.sentences, converged: !more, weights: lbfgs.weights };
    },
    // The L-BFGS state and, after its vectors, the prior's mean (the starting weights).
    saveState() {
      if (!lbfgs) throw new InternalError('no L-BFGS state before the first distributed step');
      const p = lbfgs.saveParts();
      return encodeState('parser-lbfgs', { header: { ...p.header, priorMean: mean !== undefined }, vectors: [...p.vectors, ...(mean ? [mean] : [])] });
    },
    loadState(bytes) {
      const p = decodeState('parser-lbfgs', bytes);
      mean = p.header.priorMean === true ? p.vectors.pop() : undefined;
      lbfgs = AsyncLbfgs.fromParts(objective, p, PARSER_LBFGS);
      return lbfgs.weights;
    },
    close: () => executor.close(),
  };
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
    throw new UsageError(`${command}: --redis trains the CRF with full-batch L-BFGS (--crf --lbfgs: shard gradients summed each evaluation); AdaGrad and SGD step after every batch of sentences and stay on one machine`);
  }
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  return async (spec) =>
    parserGradientTrainer(spec, await queueExecutor(spec, v.gradientShards, { redis: target.redis, store: new ArtifactStore(target.store), signal: v.signal, log, gradientKind: 'train.parser-gradient' }));
}
