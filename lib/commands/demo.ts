import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { runAndReport, unavailableMessage } from '../pipeline/cli.js';
import { demoConfig, DEMO_SIZES } from '../pipeline/demo.js';
import { resolveThreads } from '../native.js';

const command: Command = {
  name: 'demo',
  summary: 'run the parsing reranking pipeline on the embedded GUM data and write an HTML report',
  usage: `structrank demo [--threads N] [--output DIR]

Parses the embedded GUM data (data/gum-open) with the chart parser, jackknifed, and reranks
its n-best lists with boosting, the tree-kernel voted perceptron and the log-linear model;
prints the test table and writes report.html into structrank-demo/ under the current folder
(or --output). Rerunning reuses the finished steps cached there.`,
  async run(args) {
    const { values } = parseCommandArgs('demo', args, { threads: { type: 'string' }, output: { type: 'string' } }, false);
    const config = demoConfig(values.output, resolveThreads(intOption('demo', values.threads, 'threads', 0)));
    const s = DEMO_SIZES;
    console.log(`structrank demo: parsing reranking on data/gum-open (GUM, CC BY), sized for < 10 minutes on 2 cores:`);
    console.log(`  sentences of at most ${s.maxLength} words; train: the first ${s.trainLimit}, jackknifed in ${s.folds} folds; dev: ${s.devLimit}; test: up to ${s.testLimit}`);
    console.log(`  ${s.nbest}-best lists from the PCFG chart parser; rerankers: ${config.rerankers.map((r) => r.name).join(', ')}`);
    console.log(`  writing into ${config.output} (cached steps there are reused)\n`);
    try {
      await runAndReport(config, cliSignal(), 'structrank demo: reranking parses of GUM');
    } catch (err) {
      const missing = unavailableMessage(err);
      if (missing === undefined) throw err;
      console.error(`structrank demo: ${missing}; nothing was run.`);
      return 1;
    }
    return 0;
  },
};
export default command;
