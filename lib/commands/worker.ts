import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { checkRedisUrl } from '../distributed/connection.js';
import { startWorker } from '../distributed/worker.js';

const command: Command = {
  name: 'worker',
  summary: 'take jobs from a Redis queue (pipeline steps, parse/tag shards) and run them; any number per host',
  usage: `structrank worker --redis URL --store DIR [--threads N] [--concurrency N] [--lock-seconds S]

Runs queued jobs until stopped (Ctrl-C or SIGTERM: finishes the running jobs, then exits).
Every worker of a run uses the same Redis and the same artifact store (a folder all hosts
see, e.g. an NFS mount). A worker killed mid-job loses nothing: its job is taken over by
another worker once its lock expires.

  --redis URL         redis://[user:pass@]host[:port][/db] or rediss://... (TLS)
  --store DIR         the artifact store folder shared by coordinator and workers
  --threads N         threads per job (default all cores)
  --concurrency N     jobs run at the same time (default 1)
  --lock-seconds S    a job's lock; a dead worker's job is retried this long after its
                      last renewal (default 30)`,
  async run(args) {
    const { values } = parseCommandArgs('worker', args, {
      redis: { type: 'string' }, store: { type: 'string' }, threads: { type: 'string' }, concurrency: { type: 'string' }, 'lock-seconds': { type: 'string' },
    }, false);
    const redis = checkRedisUrl('worker', requireOption('worker', values.redis, 'redis'));
    const store = requireOption('worker', values.store, 'store');
    const threads = intOption('worker', values.threads, 'threads', 0);
    const concurrency = intOption('worker', values.concurrency, 'concurrency', 1, 1);
    const lockSeconds = intOption('worker', values['lock-seconds'], 'lock-seconds', 30, 1);
    const log = (line: string): void => {
      process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    };
    const running = await startWorker({ redis, store, threads, concurrency, lockMs: lockSeconds * 1000, log });
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
};
export default command;
