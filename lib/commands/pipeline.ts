import { z } from 'zod';
import { defineCommand } from './command.js';
import { join, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { checkOutputs } from '../io/outputs.js';
import { option } from '../options/field.js';
import { json, optionalFile } from '../options/common.js';
import { cliSignal } from './signal.js';
import { pipelineJsonSchema, readPipelineConfig } from '../pipeline/config.js';
import { progressBars, runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { resolveThreads } from '../native.js';
import type { PipelineConfig } from '../pipeline/config.js';
import { checkRedisUrl, probeRedis } from '../distributed/connection.js';
import { isQuiet } from '../progress.js';
import { redis, store } from '../options/distributed.js';

/** The candidate steps as queued jobs; Redis is probed first so a bad URL fails at once. */
async function queuedExecutor(config: PipelineConfig, redis: string, store: string, signal: AbortSignal) {
  await probeRedis(redis);
  const { QueuedCandidates } = await import('../distributed/pipeline-executor.js');
  const log = (line: string): void => {
    if (!isQuiet()) process.stderr.write(`${line}\n`);
  };
  return new QueuedCandidates(config, { redis, store, signal, log, progress: progressBars() });
}

/**
 * The pipeline writes results.json, report.html and its step cache into the output folder:
 * none of them may be an input (the config, a data file, a head-rule file).
 */
function checkPipelineOutputs(file: string, config: PipelineConfig): void {
  const inputs: Record<string, string | undefined> = {
    '--config': file,
    'data.train': config.data.train,
    'data.dev': config.data.dev,
    'data.test': config.data.test,
  };
  config.rerankers.forEach((r, i) => {
    if ('headRules' in r && typeof r.headRules === 'string') inputs[`rerankers[${i}].headRules`] = r.headRules;
  });
  checkOutputs(
    'pipeline',
    inputs,
    { 'results.json': join(config.output, 'results.json'), 'report.html': join(config.output, 'report.html') },
    { writable: false },
  );
  const cache = resolve(config.cache) + sep;
  for (const [name, input] of Object.entries(inputs)) {
    if (input !== undefined && resolve(input).startsWith(cache))
      throw new UsageError(
        `pipeline: ${name} ${input} is inside the step cache ${config.cache}, which the pipeline rewrites; move it out`,
      );
  }
}

const command = defineCommand({
  description: `Runs the reranking pipeline a config file describes (docs/pipeline.md; --schema prints the
config's JSON Schema): candidates for train by jackknifing (k folds), for dev and test from a
base model trained on all of train; the rerankers trained and tuned on dev; the test table
(base F1, oracle F1, each reranker's F1 and relative error reduction, times). Each step is
cached under a content hash in <output>/cache: a rerun skips finished steps, a killed run
resumes. Writes <output>/results.json and <output>/report.html.`,
  options: {
    config: optionalFile('the pipeline config (JSON); required unless --schema', 'FILE'),
    threads: option(z.number().int().min(0).optional(), "worker threads (default: the config's; 0 = all cores)", {
      value: 'N',
    }),
    output: option(z.string().min(1).optional(), "overrides the config's output folder", { value: 'DIR' }),
    schema: option(z.boolean().default(false), "print the config's JSON Schema and exit"),
    json: option(json, 'print the results (as in results.json, plus the report path) as JSON instead of the table'),
    redis: option(
      redis.optional(),
      "run the jackknife folds, dev/test candidates and rerankers as jobs on this Redis queue ('structrank worker' runs them; see docs/scaling.md)",
      { value: 'URL' },
    ),
    store: option(store.optional(), 'the artifact store shared with the workers (needs --redis)', { value: 'DIR' }),
  },
  examples: [
    'structrank pipeline --config pipeline.json --threads 2',
    'structrank pipeline --schema > pipeline.schema.json',
    'structrank pipeline --config pipeline.json --redis redis://queue-host:6379 --store /mnt/shared/store',
  ],
  async run(values) {
    if (values.schema) {
      console.log(JSON.stringify(pipelineJsonSchema(), null, 2));
      return 0;
    }
    if (values.config === undefined) throw new UsageError('pipeline: missing required option --config');
    const file = values.config;
    const config = readPipelineConfig(file);
    if (values.threads !== undefined) config.threads = resolveThreads(values.threads);
    if (values.output !== undefined) {
      config.output = resolve(values.output);
      config.cache = resolve(config.output, 'cache');
    }
    checkPipelineOutputs(file, config);
    if ((values.redis === undefined) !== (values.store === undefined))
      throw new UsageError('pipeline: --redis and --store go together');
    const signal = cliSignal();
    const executor =
      values.redis !== undefined
        ? await queuedExecutor(config, checkRedisUrl('pipeline', values.redis), values.store as string, signal)
        : undefined;
    try {
      await runAndReport(config, signal, `structrank pipeline: ${file}`, values.json, executor);
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
});
export default command;
