/**
 * `structrank train-reranker --method <m> ...`: each reranking method parses its own
 * options; this module only dispatches on --method.
 */
import type { Command } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { perceptronTrainUsage } from '../rerank/perceptron-cli.js';

type MethodRunner = (args: string[]) => Promise<number>;

const methods: Record<string, { usage: () => Promise<string>; run: () => Promise<MethodRunner> }> = {
  perceptron: {
    usage: async () => (await import('../rerank/perceptron-cli.js')).perceptronTrainUsage,
    run: async () => (await import('../rerank/perceptron-cli.js')).trainPerceptronCli,
  },
};

function methodOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--method') return args[i + 1];
    if (args[i].startsWith('--method=')) return args[i].slice('--method='.length);
  }
  return undefined;
}

const command: Command = {
  name: 'train-reranker',
  summary: 'train a reranker on n-best lists (--method perceptron)',
  usage: `structrank train-reranker --method ${Object.keys(methods).join('|')} --train nbest.jsonl --model M [options]

${perceptronTrainUsage}`,
  async run(args) {
    const method = methodOf(args);
    if (method === undefined) throw new UsageError(`train-reranker: missing required option --method (${Object.keys(methods).join(', ')})`);
    const entry = methods[method];
    if (!entry) throw new UsageError(`train-reranker: unknown method '${method}' (${Object.keys(methods).join(', ')})`);
    return (await entry.run())(args);
  },
};
export default command;
