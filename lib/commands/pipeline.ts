import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { pipelineJsonSchema, readPipelineConfig } from '../pipeline/config.js';
import { progressBars, runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { resolveThreads } from '../native.js';
import type { PipelineConfig } from '../pipeline/config.js';
import { UsageError } from '../errors.js';
import { checkRedisUrl, probeRedis } from '../distributed/connection.js';
import { isQuiet } from '../progress.js';

/** The candidate steps as queued jobs; Redis is probed first so a bad URL fails at once. */
async function queuedExecutor(config: PipelineConfig, redis: string, store: string, signal: AbortSignal) {
  await probeRedis(redis);
  const { QueuedCandidates } = await import('../distributed/pipeline-executor.js');
  const log = (line: string): void => {
    if (!isQuiet()) process.stderr.write(`${line}\n`);
  };
  return new QueuedCandidates(config, { redis, store, signal, log, progress: progressBars() });
}

const command: Command = {
  name: 'pipeline',
  summary: 'jackknifed n-best candidates, rerankers tuned on dev, test evaluation and an HTML report',
  usage: `structrank pipeline --config pipeline.json [--threads N] [--output DIR] [--redis URL --store DIR]
structrank pipeline --schema

Runs the reranking pipeline a config file describes (see README, "Pipeline config"):
candidates for train by jackknifing (k folds), for dev and test from a base model trained
on all of train; the rerankers trained and tuned on dev; the test table (base F1, oracle
F1, each reranker's F1 and relative error reduction, times). Each step is cached under a
content hash in <output>/cache: a rerun skips finished steps, a killed run resumes.
Writes <output>/results.json and <output>/report.html.

  --config FILE  the pipeline config (JSON)
  --threads N    worker threads (default: the config's, 0 = all cores)
  --output DIR   overrides the config's output folder
  --redis URL    run the jackknife folds, dev/test candidates and rerankers as jobs on
                 this Redis queue ('structrank worker' runs them; see docs/scaling.md)
  --store DIR    the artifact store shared with the workers (needs --redis)
  --schema       print the config's JSON Schema and exit`,
  async run(args) {
    const { values } = parseCommandArgs('pipeline', args, {
      config: { type: 'string' }, threads: { type: 'string' }, output: { type: 'string' }, schema: { type: 'boolean' },
      redis: { type: 'string' }, store: { type: 'string' },
    }, false);
    if (values.schema) {
      console.log(JSON.stringify(pipelineJsonSchema(), null, 2));
      return 0;
    }
    const file = requireOption('pipeline', values.config, 'config');
    const config = readPipelineConfig(file);
    if (values.threads !== undefined) config.threads = resolveThreads(intOption('pipeline', values.threads, 'threads', 0));
    if (values.output !== undefined) {
      const { resolve } = await import('node:path');
      config.output = resolve(values.output);
      config.cache = resolve(config.output, 'cache');
    }
    if ((values.redis === undefined) !== (values.store === undefined)) throw new UsageError('pipeline: --redis and --store go together');
    const signal = cliSignal();
    const executor = values.redis !== undefined
      ? await queuedExecutor(config, checkRedisUrl('pipeline', values.redis), values.store as string, signal)
      : undefined;
    try {
      await runAndReport(config, signal, `structrank pipeline: ${file}`, executor);
    } catch (err) {
      const missing = unavailableMessage(err);
      if (missing === undefined) throw err;
      console.error(`structrank: ${missing}`);
      return 1;
    } finally {
      await executor?.close();
    }
    return 0;
  },
};
export default command;
