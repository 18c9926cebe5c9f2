import { z } from 'zod';
import { defineCommand } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { option } from '../options/field.js';
import { json, optionalFile } from '../options/common.js';
import { cliSignal } from '../cli/signal.js';
import { pipelineJsonSchema, readPipelineConfig } from '../pipeline/config.js';
import { runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { resolveThreads } from '../native.js';

const command = defineCommand({
  description: `Runs the reranking pipeline a config file describes (docs/pipeline.md; --schema prints the
config's JSON Schema): candidates for train by jackknifing (k folds), for dev and test from a
base model trained on all of train; the rerankers trained and tuned on dev; the test table
(base F1, oracle F1, each reranker's F1 and relative error reduction, times). Each step is
cached under a content hash in <output>/cache: a rerun skips finished steps, a killed run
resumes. Writes <output>/results.json and <output>/report.html.`,
  options: {
    config: optionalFile('the pipeline config (JSON); required unless --schema', 'FILE'),
    threads: option(z.number().int().min(0).optional(), "worker threads (default: the config's; 0 = all cores)", { value: 'N' }),
    output: option(z.string().min(1).optional(), "overrides the config's output folder", { value: 'DIR' }),
    schema: option(z.boolean().default(false), "print the config's JSON Schema and exit"),
    json: option(json, 'print the results (as in results.json, plus the report path) as JSON instead of the table'),
  },
  examples: ['structrank pipeline --config pipeline.json --threads 2', 'structrank pipeline --schema > pipeline.schema.json'],
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
      const { resolve } = await import('node:path');
      config.output = resolve(values.output);
      config.cache = resolve(config.output, 'cache');
    }
    try {
      await runAndReport(config, cliSignal(), `structrank pipeline: ${file}`, values.json);
    } catch (err) {
      const missing = unavailableMessage(err);
      if (missing === undefined) throw err;
      console.error(`structrank: ${missing}`);
      return 1;
    }
    return 0;
  },
});
export default command;
