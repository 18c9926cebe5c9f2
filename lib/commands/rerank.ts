/**
 * `structrank rerank --model M --input nbest.jsonl --out best`: picks the reranker by the
 * kind recorded in the model file and lets it parse its own options.
 */
import type { Command } from '../cli/command.js';
import { requireOption } from '../cli/args.js';
import { InputError, UsageError } from '../errors.js';
import { loadModel } from '../io/model-file.js';

type Runner = (args: string[]) => Promise<number>;

const byKind: Record<string, () => Promise<Runner>> = {
  'perceptron-reranker': async () => (await import('../rerank/perceptron-cli.js')).rerankPerceptronCli,
};

function optionValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${flag}`) return args[i + 1];
    if (args[i].startsWith(`--${flag}=`)) return args[i].slice(flag.length + 3);
  }
  return undefined;
}

const command: Command = {
  name: 'rerank',
  summary: 'choose the best candidate of each n-best list with a trained reranker',
  usage: `structrank rerank --model M --input nbest.jsonl --out best.mrg|best.conll [--voted|--averaged|--last] [--threads N]
writes one chosen tree per line (tree candidates) or one CoNLL sentence per chosen tag sequence, in input order`,
  async run(args) {
    const modelFile = requireOption('rerank', optionValue(args, 'model'), 'model');
    const { kind } = loadModel(modelFile);
    const load = byKind[kind];
    if (!load) throw new InputError(modelFile, undefined, `'${kind}' models cannot rerank (known: ${Object.keys(byKind).join(', ')})`);
    if (args.includes('--method')) throw new UsageError('rerank: the method comes from the model file; drop --method');
    return (await load())(args);
  },
};
export default command;
