/** Option fields of the distributed runs: the Redis queue, the artifact store, shard sizes. */
import { z } from 'zod';
import { option } from './field.js';

/** Sentences per shard by default: big enough that a job's queue round trip is small beside it. */
export const DEFAULT_SHARD_SENTENCES = 2000;

/** The Redis server of the job queue. */
export const redis = option(z.string().min(1), 'redis://[user:pass@]host[:port][/db] or rediss://... (TLS)', {
  value: 'URL',
});

/** The artifact store folder every host sees. */
export const store = option(z.string().min(1), 'the artifact store folder shared by coordinator and workers', {
  value: 'DIR',
});

/** The sharded `parse` / `tag` (both or neither of --redis and --store). */
export const shardFields = {
  redis: option(
    redis.optional(),
    "run in shards as jobs on this Redis queue (needs --store; 'structrank worker' runs them; the output equals a local run's)",
    { value: 'URL' },
  ),
  store: option(store.optional(), 'the artifact store folder of the sharded run, shared with the workers', {
    value: 'DIR',
  }),
  shardSize: option(z.number().int().min(1).default(DEFAULT_SHARD_SENTENCES), 'sentences per shard of a --redis run', {
    value: 'N',
  }),
};

/** `rerank` and `features` on an n-best file: shards of whole sentences (n-best lists). */
export const nbestShardFields = {
  redis: shardFields.redis,
  store: shardFields.store,
  shardSize: option(
    z.number().int().min(1).default(DEFAULT_SHARD_SENTENCES),
    'n-best lists per shard of a --redis run',
    { value: 'N' },
  ),
};

/** Rows of the Gram matrix per job by default: a block costs rows x items kernel values. */
export const DEFAULT_KERNEL_ROWS = 500;

/** `kernel trees` / `kernel tags`: blocks of rows of the Gram matrix. */
export const kernelShardFields = {
  redis: option(
    redis.optional(),
    "compute the matrix in row blocks as jobs on this Redis queue (needs --store; 'structrank worker' runs them; the output equals a local run's)",
    { value: 'URL' },
  ),
  store: shardFields.store,
  shardSize: option(
    z.number().int().min(1).default(DEFAULT_KERNEL_ROWS),
    'rows of the matrix per job of a --redis run',
    { value: 'N' },
  ),
};

/** Distributed training (`train-tagger`; `train-reranker` for the perceptron). */
export const MIX_WEIGHTINGS = ['uniform', 'updates'] as const;
export const DEFAULT_GRADIENT_SHARDS = 2;
export const trainFields = {
  redis: option(
    redis.optional(),
    "train as jobs on this Redis queue (needs --store; 'structrank worker' runs them): CRF gradients over sentence shards, perceptron parameter mixing",
    { value: 'URL' },
  ),
  store: option(store.optional(), 'the artifact store folder of a --redis run, shared with the workers', {
    value: 'DIR',
  }),
  gradientShards: option(
    z.number().int().min(1).default(DEFAULT_GRADIENT_SHARDS),
    'CRF (L-BFGS) with --redis: sentence shards whose gradients are summed every evaluation',
    { value: 'N' },
  ),
  mixShards: option(
    z.number().int().min(1).optional(),
    'perceptron: train by iterative parameter mixing over N sentence shards, one epoch each per round (in-process, or as jobs with --redis; default 2 there)',
    { value: 'N' },
  ),
  mixWeighting: option(
    z.enum(MIX_WEIGHTINGS).default('uniform'),
    'parameter mixing: average the shards uniformly or weighted by their updates',
  ),
};

/** `train-parser --crf --lbfgs` over workers: the objective summed over sentence shards. */
export const parserTrainDistributedFields = {
  redis: option(
    redis.optional(),
    "train the CRF (--crf --lbfgs) as jobs on this Redis queue (needs --store; 'structrank worker' runs them): every L-BFGS evaluation sums the gradients of sentence shards",
    { value: 'URL' },
  ),
  store: trainFields.store,
  gradientShards: option(
    z.number().int().min(1).default(DEFAULT_GRADIENT_SHARDS),
    'with --redis: sentence shards whose gradients are summed every evaluation (at least the number of workers)',
    { value: 'N' },
  ),
};
