import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { InputError, UsageError } from '../errors.js';
import { boostWeights, rerankScores } from '../rerank/boost.js';
import { buildFeatureTable } from '../rerank/feature-table.js';
import { isContainerFile, loadSentenceFeatures, tableData } from '../rerank/inputs.js';
import { loadReranker } from '../rerank/reranker.js';
import { evalbCorpus } from '../eval/evalb.js';
import { parseTree } from '../trees/bracket-parser.js';
import { stripRoot } from '../trees/transforms.js';
import { loadModel } from '../io/model-file.js';
import { checkOutputPath, writeTextAtomic } from '../io/atomic-writer.js';
import { nbestKind, nbestKindName } from '../io/nbest.js';
import { perceptronRerankUsage, rerankPerceptronCli } from '../rerank/perceptron-cli.js';
import { resolveThreads } from '../native.js';
import { baseIndex, oracleIndex } from '../rerank/candidate-order.js';

const usage = `structrank rerank --model M --input nbest.jsonl --out best.mrg|best.conll [--rounds N] [--threads N]

Picks argmax F(x) = a0 L(x) + sum_k w_k h_k(x) in every n-best list and writes the chosen
parse trees (one per line) or, for tag candidates or a .conll output, token<TAB>tag lines
with a blank line after each sentence. --rounds evaluates a boosting model after its first
N rounds instead of the N chosen on dev. With gold in the input, prints the summed Score
of the base model's first choice, the reranked choice and the oracle.

Perceptron models (train-reranker --method perceptron) take their own options:
${perceptronRerankUsage}`;

function optionValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${flag}`) return args[i + 1];
    if (args[i].startsWith(`--${flag}=`)) return args[i].slice(flag.length + 3);
  }
  return undefined;
}

const command: Command = {
  name: 'rerank',
  summary: 'rerank n-best lists with a trained reranker',
  usage,
  async run(args) {
    // The model file says which reranker it is; perceptron models parse their own options.
    const modelFile = optionValue(args, 'model');
    if (modelFile !== undefined && loadModel(modelFile).kind === 'perceptron-reranker') return rerankPerceptronCli(args);
    const { values } = parseCommandArgs('rerank', args, {
      model: { type: 'string' }, input: { type: 'string' }, out: { type: 'string' }, rounds: { type: 'string' }, threads: { type: 'string' },
    }, false);
    const model = loadReranker(requireOption('rerank', values.model, 'model'));
    const input = requireOption('rerank', values.input, 'input');
    const out = requireOption('rerank', values.out, 'out');
    checkOutputPath(out);
    const threads = resolveThreads(intOption('rerank', values.threads, 'threads', 0));
    if (isContainerFile(input)) throw new InputError(input, undefined, 'rerank needs the n-best file itself (it writes the chosen candidates)');
    let weights = model.weights;
    if (values.rounds !== undefined) {
      if (!model.rounds) throw new UsageError(`rerank: --rounds needs a boosting or LogLoss model (this one is '${model.method}')`);
      weights = boostWeights(model.rounds, intOption('rerank', values.rounds, 'rounds', 0, 0));
    }
    const { sentences, features } = await loadSentenceFeatures(input, { threads, signal: cliSignal() });
    const list = sentences ?? [];
    const kind = model.info.candidates;
    if (list.length > 0 && (kind === 'trees' || kind === 'tags') && nbestKind(list[0]) !== kind) {
      throw new InputError(input, undefined, `the model reranks ${nbestKindName(kind)}`);
    }
    const table = buildFeatureTable(features, model.names);
    const data = tableData(table, threads);
    const { chosen } = rerankScores(data, model.a0, weights, threads);
    const asConll = out.endsWith('.conll') || list[0]?.candidates[0]?.tags !== undefined;
    const lines: string[] = [];
    let base = 0, reranked = 0, oracle = 0;
    const picks = { base: [] as number[], reranked: [] as number[], oracle: [] as number[] };
    const scored = table.score.every((v) => !Number.isNaN(v));
    list.forEach((s, i) => {
      const c = s.candidates[chosen[i]];
      if (asConll) {
        const tags = c.tags ?? [];
        s.tokens.forEach((tok, k) => lines.push(`${tok}\t${tags[k] ?? '_'}`));
        lines.push('');
      } else lines.push(c.tree ?? '');
      if (scored) {
        const p0 = table.sentencePtr[i];
        const p1 = table.sentencePtr[i + 1];
        const first = p0 + baseIndex(table.logprob.subarray(p0, p1));
        const best = p0 + oracleIndex(table.score.subarray(p0, p1), table.logprob.subarray(p0, p1));
        base += table.score[first];
        reranked += table.score[p0 + chosen[i]];
        oracle += table.score[best];
        picks.base.push(first - p0);
        picks.reranked.push(chosen[i]);
        picks.oracle.push(best - p0);
      }
    });
    await writeTextAtomic(out, [lines.join('\n') + (lines.length ? '\n' : '')]);
    // With --out - the chosen candidates are standard output: the summary goes to stderr.
    const say = out === '-' ? console.error : console.log;
    say(`reranked ${list.length} sentences with ${model.method} (${model.names.length} features) -> ${out}`);
    if (scored) say(`summed Score: base ${base.toFixed(2)}, reranked ${reranked.toFixed(2)}, oracle ${oracle.toFixed(2)}`);
    if (scored && !asConll) {
      // EVALB F1 (trivial roots stripped from gold and candidates alike).
      const f1 = (pick: number[]): string => evalbCorpus(list.map((s, i) => [stripRoot(parseTree(s.gold as string)), stripRoot(parseTree(s.candidates[pick[i]].tree as string))] as const)).all.f1.toFixed(2);
      say(`EVALB F1: base ${f1(picks.base)}, reranked ${f1(picks.reranked)}, oracle ${f1(picks.oracle)}`);
    }
  },
};
export default command;
