import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { pipelineJsonSchema, readPipelineConfig } from '../pipeline/config.js';
import { runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { resolveThreads } from '../native.js';

const command: Command = {
  name: 'pipeline',
  summary: 'jackknifed n-best candidates, rerankers tuned on dev, test evaluation and an HTML report',
  usage: `structrank pipeline --config pipeline.json [--threads N] [--output DIR]
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
  --schema       print the config's JSON Schema and exit`,
  async run(args) {
    const { values } = parseCommandArgs('pipeline', args, {
      config: { type: 'string' }, threads: { type: 'string' }, output: { type: 'string' }, schema: { type: 'boolean' },
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
    try {
      await runAndReport(config, cliSignal(), `structrank pipeline: ${file}`);
    } catch (err) {
      const missing = unavailableMessage(err);
      if (missing === undefined) throw err;
      console.error(`structrank: ${missing}`);
      return 1;
    }
    return 0;
  },
};
export default command;
