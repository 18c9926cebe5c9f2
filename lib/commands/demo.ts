import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { json, threads } from '../options/common.js';
import { cliSignal } from './signal.js';
import { runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { demoConfig, DEMO_SIZES } from '../pipeline/demo.js';
import { resolveThreads } from '../native.js';

const command = defineCommand({
  description: `Parses the embedded GUM data (data/gum-open) with the chart parser, jackknifed, and reranks
its n-best lists with boosting, the tree-kernel voted perceptron and the log-linear model;
prints the test table and writes report.html into structrank-demo/ under the current folder
(or --output). Rerunning reuses the finished steps cached there.`,
  options: {
    threads,
    output: option(z.string().min(1).optional(), 'output folder (default structrank-demo under the current folder)', {
      value: 'DIR',
    }),
    json: option(json, 'print the results as JSON instead of the table (the plan lines go to stderr)'),
  },
  examples: ['structrank demo', 'structrank demo --threads 2 --output /tmp/demo'],
  async run(values) {
    const config = demoConfig(values.output, resolveThreads(values.threads));
    const s = DEMO_SIZES;
    // With --json, stdout holds the results alone.
    const say = values.json ? (line: string) => console.error(line) : (line: string) => console.log(line);
    say(
      `structrank demo: parsing reranking on data/gum-open (GUM, CC BY), 100-200 CPU seconds by processor (bench/demo-time.ts):`,
    );
    say(
      `  sentences of at most ${s.maxLength} words; train: the first ${s.trainLimit}, jackknifed in ${s.folds} folds; dev: ${s.devLimit}; test: up to ${s.testLimit}`,
    );
    say(
      `  ${s.nbest}-best lists from the PCFG chart parser; rerankers: ${config.rerankers.map((r) => r.name).join(', ')}`,
    );
    say(`  writing into ${config.output} (cached steps there are reused)\n`);
    try {
      await runAndReport(config, cliSignal(), 'structrank demo: reranking parses of GUM', values.json);
    } catch (err) {
      const missing = unavailableMessage(err);
      if (missing === undefined) throw err;
      console.error(`structrank demo: ${missing}; nothing was run.`);
      return 1;
    }
    return 0;
  },
});
export default command;
