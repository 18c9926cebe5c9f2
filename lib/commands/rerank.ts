import { z } from 'zod';
import { defineCommand } from './command.js';
import { firstGivenFlag } from './options.js';
import { option } from '../options/field.js';
import { json, requiredFile, threads } from '../options/common.js';
import { perceptronFields } from '../options/rerank.js';
import { cliSignal } from './signal.js';
import { InputError, UsageError } from '../errors.js';
import { boostWeights, rerankScores } from '../rerank/boost.js';
import { isContainerFile, loadFeatureRows, tableData, tableOver } from '../rerank/inputs.js';
import { loadReranker } from '../rerank/reranker.js';
import { evalbCorpus } from '../eval/evalb.js';
import { parseTree } from '../trees/bracket-parser.js';
import { withRootOf } from '../trees/transforms.js';
import { loadModel } from '../io/model-file.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { claimOutputs } from './claim.js';
import { nbestKind, nbestKindName } from '../io/nbest.js';
import { rerankPerceptronCli } from './rerank-perceptron.js';
import { resolveThreads } from '../native.js';
import { baseIndex, oracleIndex } from '../rerank/candidate-order.js';
import { nbestShardFields } from '../options/distributed.js';

const perceptronOnly = {
  voted: option(perceptronFields.voted, 'predict with the voted perceptron (default: as the model was trained)'),
  averaged: option(perceptronFields.averaged, 'predict with the averaged perceptron'),
  last: option(perceptronFields.last, 'predict with the last weight vector'),
  compress: perceptronFields.compress,
};

const command = defineCommand({
  description: `Picks argmax F(x) = a0 L(x) + sum_k w_k h_k(x) in every n-best list and writes the chosen
parse trees (one per line) or, for tag candidates or a .conll output, token<TAB>tag lines
with a blank line after each sentence. With gold in the input, prints the summed Score
of the base model's first choice, the reranked choice and the oracle (and for trees, EVALB F1).
Perceptron models (train-reranker --method perceptron) predict as trained unless
--voted, --averaged or --last is given.`,
  options: {
    model: requiredFile('model from train-reranker', 'M'),
    input: requiredFile('n-best file (JSON Lines)', 'nbest.jsonl'),
    out: requiredFile(
      'the chosen candidates: trees, or token<TAB>tag lines for tags or a .conll name',
      'best.mrg|best.conll',
    ),
    rounds: option(
      z.number().int().min(0).optional(),
      'boosting / LogLoss model: use its first N rounds instead of the N chosen on dev',
      { value: 'N' },
    ),
    ...perceptronOnly,
    threads,
    json: option(json, 'print the counts and scores as JSON'),
    ...nbestShardFields,
  },
  optionGroups: { 'perceptron models:': Object.keys(perceptronOnly) },
  examples: [
    'structrank rerank --model boost.model --input test.nbest.jsonl --out test.best.mrg',
    'structrank rerank --model perceptron.model --input test.nbest.jsonl --out test.best.conll --voted',
  ],
  async run(values, { given }) {
    claimOutputs('rerank', { '--model': values.model, '--input': values.input }, { '--out': values.out });
    // --redis/--store: shards of the n-best file on a queue (lib/distributed/nbest-shards.ts, docs/scaling.md).
    const sharded = values.redis !== undefined || values.store !== undefined;
    const shards = sharded ? await import('../distributed/nbest-shards.js') : undefined;
    if (shards) (await import('../distributed/shards.js')).queueOptions('rerank', values);
    if (!sharded && given.has('--shard-size')) throw new UsageError('rerank: --shard-size needs --redis and --store');
    if (sharded && values.json)
      throw new UsageError('rerank: --json needs a local run (a sharded run writes the choices; score them with eval)');
    // The model file says which reranker it is; perceptron models have their own options
    // (checked here for a sharded run too, before any job is queued).
    const perceptron = loadModel(values.model).kind === 'perceptron-reranker';
    if (perceptron && given.has('--rounds'))
      throw new UsageError('rerank: --rounds applies to boosting and LogLoss models');
    const wrong = perceptron ? undefined : firstGivenFlag(perceptronOnly, given);
    if (wrong !== undefined) throw new UsageError(`rerank: ${wrong} applies to perceptron models`);
    if (shards) return shards.runRerankSharded(values, cliSignal());
    if (perceptron) return rerankPerceptronCli(values);
    const model = loadReranker(values.model);
    const { input, out } = values;
    const threads = resolveThreads(values.threads);
    if (isContainerFile(input))
      throw new InputError(input, undefined, 'rerank needs the n-best file itself (it writes the chosen candidates)');
    let weights = model.weights;
    if (values.rounds !== undefined) {
      if (!model.rounds)
        throw new UsageError(`rerank: --rounds needs a boosting or LogLoss model (this one is '${model.method}')`);
      weights = boostWeights(model.rounds, values.rounds);
    }
    // Trees get the head rules and word classes learned at training (legacy models: Collins / PTB).
    const signal = cliSignal();
    const { sentences, rows } = await loadFeatureRows(input, { threads, signal, settings: model.treeSettings });
    const list = sentences ?? [];
    const kind = model.info.candidates;
    if (list.length > 0 && (kind === 'trees' || kind === 'tags') && nbestKind(list[0]) !== kind) {
      throw new InputError(input, undefined, `the model reranks ${nbestKindName(kind)}`);
    }
    const table = await tableOver(rows, model.names, signal);
    const data = await tableData(table, threads);
    const { chosen } = rerankScores(data, model.a0, weights, threads);
    const asConll = out.endsWith('.conll') || list[0]?.candidates[0]?.tags !== undefined;
    const lines: string[] = [];
    let base = 0,
      reranked = 0,
      oracle = 0;
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
    const f1 = (pick: number[]): number =>
      evalbCorpus(
        list.map((s, i) => {
          const gold = parseTree(s.gold as string);
          return [gold, withRootOf(parseTree(s.candidates[pick[i]].tree as string), gold)] as const;
        }),
      ).all.f1;
    // With --out - the chosen candidates are standard output: the summary goes to stderr.
    const say = out === '-' ? console.error : console.log;
    if (values.json) {
      const score = scored ? { base, reranked, oracle } : undefined;
      const evalbF1 =
        scored && !asConll
          ? { base: f1(picks.base), reranked: f1(picks.reranked), oracle: f1(picks.oracle) }
          : undefined;
      say(
        JSON.stringify({
          sentences: list.length,
          method: model.method,
          features: model.names.length,
          out,
          score,
          evalbF1,
        }),
      );
      return;
    }
    say(`reranked ${list.length} sentences with ${model.method} (${model.names.length} features) -> ${out}`);
    if (scored)
      say(`summed Score: base ${base.toFixed(2)}, reranked ${reranked.toFixed(2)}, oracle ${oracle.toFixed(2)}`);
    if (scored && !asConll) {
      // EVALB F1, each candidate under its gold tree's root wrapper (as `parse` writes trees).
      say(
        `EVALB F1: base ${f1(picks.base).toFixed(2)}, reranked ${f1(picks.reranked).toFixed(2)}, oracle ${f1(picks.oracle).toFixed(2)}`,
      );
    }
  },
});
export default command;
