import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { threads } from '../options/common.js';
import { redis, store } from '../options/distributed.js';
import { checkRedisUrl } from '../distributed/connection.js';
import { startWorker } from '../distributed/worker.js';
import { resolveThreads } from '../native.js';
import type { ShardCommands } from '../distributed/job-env.js';

/** The commands the worker's shard jobs run, handed to the distributed runtime (which imports none). */
const shardCommands: ShardCommands = {
  parse: async () => (await import('./parse.js')).default,
  tag: async () => (await import('./tag.js')).default,
  rerank: async () => (await import('./rerank.js')).default,
};

const command = defineCommand({
  description: `Runs queued jobs (pipeline steps; parse, tag, rerank, features and kernel shards)
until stopped (Ctrl-C or SIGTERM: finishes the running jobs, then exits). Every worker of a
run uses the same Redis and the same artifact store (a folder all hosts see, e.g. an NFS
mount). A worker killed mid-job loses nothing: its job is taken over by another worker once
its lock expires.`,
  options: {
    redis,
    store,
    threads: option(threads, 'threads per job (0 = all cores)'),
    concurrency: option(z.number().int().min(1).default(1), 'jobs run at the same time', { value: 'N' }),
    lockSeconds: option(
      z.number().int().min(1).default(30),
      "a job's lock; a dead worker's job is retried this long after its last renewal",
      { value: 'S' },
    ),
  },
  examples: ['structrank worker --redis redis://queue-host:6379 --store /mnt/shared/store --concurrency 2'],
  async run(values) {
    const redisUrl = checkRedisUrl('worker', values.redis);
    const { concurrency, lockSeconds } = values;
    const log = (line: string): void => {
      process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    };
    const running = await startWorker({
      redis: redisUrl,
      store: values.store,
      threads: resolveThreads(values.threads),
      concurrency,
      lockMs: lockSeconds * 1000,
      log,
      commands: shardCommands,
    });
    await new Promise<void>((resolveStop) => {
      const stop = (signal: NodeJS.Signals): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        log(`${signal}: finishing the running jobs (again to exit at once)`);
        process.once(signal, () => process.exit(130));
        resolveStop();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await running.close();
    return 0;
  },
});
export default command;
