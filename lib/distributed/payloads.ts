/**
 * Job payloads: plain JSON data checked by a zod schema before a worker acts on it. A payload
 * names files only by SHA-256 (resolved inside the artifact store) and steps only by their
 * cache id, so a job can carry no code and no path: a worker refuses anything else.
 */
import { z } from 'zod';
import { formatPath, rerankerSchema } from '../pipeline/config.js';
import { CONLLU_FIELDS, type ConlluField } from '../io/conllu.js';
import { HASH_PATTERN, STEP_ID_PATTERN } from './store.js';
import { PARSER_DECODES, PARSER_RETRIES } from '../options/parser.js';
import { KBEST_TAG_MODES } from '../trees/kbest-modes.js';
import { isTreeSettings, type TreeSettings } from '../rerank/tree-settings.js';

const hash = z
  .string()
  .regex(HASH_PATTERN, { message: 'expected a SHA-256 naming an artifact in the store (paths are refused)' });
const stepId = z
  .string()
  .regex(STEP_ID_PATTERN, { message: 'expected a step id (letters, digits, . _ -; paths are refused)' });
const option = z.union([z.string().max(200), z.number(), z.boolean()]);

/** The pipeline's data options that decide what a step sees (stepDataOptions, lib/pipeline/data.ts), checked as they arrive. */
const dataOptions = z.strictObject({
  format: z.enum(['trees', 'conll', 'conllu']),
  columns: z.array(z.string().max(100)).min(2).max(100),
  label: z.string().max(100),
  trainLimit: z.number().int().positive().optional(),
  devLimit: z.number().int().positive().optional(),
  testLimit: z.number().int().positive().optional(),
  maxLength: z.number().int().positive().optional(),
});

/** One candidate step of the pipeline: a jackknife fold (fold >= 0) or dev-test (fold null). */
export const candidatesPayload = z.strictObject({
  step: stepId,
  task: z.enum(['parse', 'tag']),
  data: dataOptions,
  // clusterText: the base's cluster text (base.clusterText names a file only on the client).
  inputs: z.strictObject({ train: hash, dev: hash, test: hash, clusterText: hash.optional() }),
  base: z.record(z.string().max(100), option),
  nbest: z.number().int().positive(),
  folds: z.number().int().min(2),
  fold: z.number().int().min(0).nullable(),
  seed: z.number().int(),
});
export type CandidatesPayload = z.output<typeof candidatesPayload>;

/** The parent of a flow: done when all its children are. */
export const collectPayload = z.strictObject({
  steps: z.array(stepId).max(100_000),
});
export type CollectPayload = z.output<typeof collectPayload>;

/** A job that does nothing but its queue round trip (bench/distributed.ts: per-job overhead). */
export const emptyPayload = z.strictObject({ n: z.number().int().optional() });

/** Thrown for a payload that fails its schema; the worker fails such a job once, without retries. */
export class PayloadError extends Error {
  constructor(kind: string, message: string) {
    super(`${kind} job: ${message}`);
    this.name = 'PayloadError';
  }
}

/** Parses a payload or throws PayloadError naming the first bad field. */
export function parsePayload<S extends z.ZodType>(kind: string, schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new PayloadError(kind, `${formatPath(issue.path)}: ${issue.message}`);
}

/** One shard of a `parse` or `tag` run: the shard's text and the model, by hash, and the command's options. */
export const shardPayload = z.strictObject({
  step: stepId,
  command: z.enum(['parse', 'tag']),
  model: hash,
  input: hash,
  /** Added to the n-best ids of the shard (sentences or lines before it), so merged ids equal a local run's. */
  idOffset: z.number().int().min(0),
  options: z.strictObject({
    nbest: z.number().int().positive().optional(),
    /** tag */
    separator: z.enum(['whitespace', 'tab']).optional(),
    format: z.enum(['conll', 'conllu']).optional(),
    /** parse */
    pcfg: z.boolean().optional(),
    beam: z.number().positive().optional(),
    maxLength: z.number().int().min(0).optional(),
    prune: z.number().min(0).lt(1).optional(),
    decode: z.enum(PARSER_DECODES).optional(),
    retry: z.enum(PARSER_RETRIES).optional(),
    pcfgWeight: z.number().min(0).lt(1).optional(),
    headModel: z.boolean().optional(),
    kbestTags: z.enum(KBEST_TAG_MODES).optional(),
    kbestPool: z.number().int().min(1).optional(),
  }),
});
export type ShardPayload = z.output<typeof shardPayload>;

/** One reranker of the pipeline, trained on the jackknifed lists and tuned on dev. */
export const rerankerPayload = z.strictObject({
  step: stepId,
  task: z.enum(['parse', 'tag']),
  /** The reranker's config as the pipeline validated it (lib/pipeline/config.ts). */
  reranker: rerankerSchema.and(z.object({ name: z.string().min(1).max(200) })),
  seed: z.number().int(),
  inputs: z.strictObject({ folds: z.array(hash).min(1).max(1000), dev: hash, test: hash }),
});
export type RerankerPayload = z.output<typeof rerankerPayload>;

/**
 * One shard of an n-best file for `rerank` (the chosen candidates of its sentences) or
 * `features` (its sentences' feature names, as a feature table with every name kept).
 */
export const nbestShardPayload = z.strictObject({
  step: stepId,
  command: z.enum(['rerank', 'features']),
  input: hash,
  /** rerank: the reranker model. */
  model: hash.optional(),
  options: z.strictObject({
    /** rerank: write token<TAB>tag lines (the local run's choice for its --out name). */
    conll: z.boolean().optional(),
    rounds: z.number().int().min(0).optional(),
    voted: z.boolean().optional(),
    averaged: z.boolean().optional(),
    last: z.boolean().optional(),
    compress: z.boolean().optional(),
    /** features */
    treeFeatures: z.boolean().optional(),
    /** features: the tree settings the coordinator learned from the whole input's gold trees. */
    settings: z.custom<TreeSettings>(isTreeSettings, 'tree settings').optional(),
    /** features: how gold tags are scored, detected on the whole input by the coordinator. */
    scoring: z.enum(['accuracy', 'iob1', 'iob2', 'iobes', 'bilou']).optional(),
  }),
});
export type NbestShardPayload = z.output<typeof nbestShardPayload>;

/**
 * One row block of a `kernel trees` / `kernel tags` Gram matrix: rows [from, to) of A against
 * B, or, for A against itself, against A's items from `from` on (the upper triangle the local
 * run computes; the coordinator mirrors it).
 */
export const kernelStripPayload = z.strictObject({
  step: stepId,
  kind: z.enum(['trees', 'tags']),
  a: hash,
  b: hash.optional(),
  from: z.number().int().min(0),
  to: z.number().int().min(1),
  options: z.strictObject({
    lambda: z.number().gt(0).lte(1),
    normalize: z.boolean(),
    plain: z.boolean(),
    /** trees */
    depth: z.number().int().min(1).optional(),
    strip: z.boolean().optional(),
    /** tags */
    columns: z.array(z.string().max(100)).min(2).max(100).optional(),
    sim2: z.string().max(50).optional(),
    format: z.enum(['conll', 'conllu']).optional(),
    tagField: z.enum(Object.keys(CONLLU_FIELDS) as [ConlluField, ...ConlluField[]]).optional(),
  }),
});
export type KernelStripPayload = z.output<typeof kernelStripPayload>;
