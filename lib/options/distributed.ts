/** Option fields of the distributed runs: the Redis queue, the artifact store, shard sizes. */
import { z } from 'zod';
import { option } from './field.js';

/** Sentences per shard by default: big enough that a job's queue round trip is small beside it. */
export const DEFAULT_SHARD_SENTENCES = 2000;

/** The Redis server of the job queue. */
export const redis = option(z.string().min(1), 'redis://[user:pass@]host[:port][/db] or rediss://... (TLS)', { value: 'URL' });

/** The artifact store folder every host sees. */
export const store = option(z.string().min(1), 'the artifact store folder shared by coordinator and workers', { value: 'DIR' });

/** The sharded `parse` / `tag` (both or neither of --redis and --store). */
export const shardFields = {
  redis: option(redis.optional(), "run in shards as jobs on this Redis queue (needs --store; 'structrank worker' runs them; the output equals a local run's)", { value: 'URL' }),
  store: option(store.optional(), 'the artifact store folder of the sharded run, shared with the workers', { value: 'DIR' }),
  shardSize: option(z.number().int().min(1).default(DEFAULT_SHARD_SENTENCES), 'sentences per shard of a --redis run', { value: 'N' }),
};

/** `rerank` and `features` on an n-best file: shards of whole sentences (n-best lists). */
export const nbestShardFields = {
  redis: shardFields.redis,
  store: shardFields.store,
  shardSize: option(z.number().int().min(1).default(DEFAULT_SHARD_SENTENCES), 'n-best lists per shard of a --redis run', { value: 'N' }),
};

/** Rows of the Gram matrix per job by default: a block costs rows x items kernel values. */
export const DEFAULT_KERNEL_ROWS = 500;

/** `kernel trees` / `kernel tags`: blocks of rows of the Gram matrix. */
export const kernelShardFields = {
  redis: option(redis.optional(), "compute the matrix in row blocks as jobs on this Redis queue (needs --store; 'structrank worker' runs them; the output equals a local run's)", { value: 'URL' }),
  store: shardFields.store,
  shardSize: option(z.number().int().min(1).default(DEFAULT_KERNEL_ROWS), 'rows of the matrix per job of a --redis run', { value: 'N' }),
};
