import type { Command } from '../cli/command.js';
import { intOption, numberOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { ChartParserModel } from '../parser/chart-parser.js';
import { rewrap } from '../parser/evaluate.js';
import { readParserInput } from '../parser/input.js';
import { Progress } from '../progress.js';
import { resolveThreads } from '../native.js';
import { formatTree, type Tree } from '../trees/tree.js';
import { MAX_NBEST, writeNbest, type NbestSentence } from '../io/nbest.js';
import { checkOutputPath, writeTextAtomic } from '../io/atomic-writer.js';
import { cliSignal } from '../cli/signal.js';

/** Longer sentences are not chart-parsed by default: 300 words take seconds, 3,000 an hour and tens of GB. */
const DEFAULT_MAX_LENGTH = 300;

const command: Command = {
  name: 'parse',
  summary: 'parse sentences (or a treebank\'s words) with a chart parser model; optional n-best lists',
  usage: `structrank parse --model M --input F --out F [--nbest K --out-nbest F.jsonl] [--pcfg] [--beam X] [--prune X] [--max-length N] [--threads N]
  --model M        model from train-parser
  --input F        bracketed trees (their words are parsed) or tokenized text, one sentence per line
  --out F          one tree per input sentence, in order, with exactly the input's words
  --nbest K        also write the K best parses of each sentence (exact k-best)
  --out-nbest F    JSON Lines n-best file: {"id","tokens","candidates":[{"tree","logprob"}],"gold"?}
  --pcfg           parse with the PCFG even if the model has CRF weights
  --beam X         prune each span's states more than X below its best (default: exact)
  --prune X        CRF coarse-to-fine: keep chart entries whose PCFG posterior is >= X (default: the
                   model's training value; 0 = exhaustive)
  --max-length N   longer sentences get the flat fallback instead of a chart (default ${DEFAULT_MAX_LENGTH};
                   0 = no limit; time grows with the cube of the length, memory with its square)
  --threads N      threads (default all cores)
  --redis URL --store DIR [--shard-size N]
                   parse in shards of N sentences (default 2000) as jobs on a Redis queue
                   ('structrank worker' runs them); the output equals a local run's`,
  async run(args) {
    // --redis/--store: sentence shards on a queue (lib/distributed/shards.ts, docs/scaling.md).
    if (args.some((a) => /^--(redis|store)(=|$)/.test(a))) return (await import('../distributed/shards.js')).runSharded('parse', args, cliSignal());
    const { values } = parseCommandArgs(
      'parse',
      args,
      {
        model: { type: 'string' },
        input: { type: 'string' },
        out: { type: 'string' },
        nbest: { type: 'string' },
        'out-nbest': { type: 'string' },
        pcfg: { type: 'boolean' },
        beam: { type: 'string' },
        prune: { type: 'string' },
        'max-length': { type: 'string' },
        threads: { type: 'string' },
      },
      false,
    );
    const modelFile = requireOption('parse', values.model, 'model');
    const inputFile = requireOption('parse', values.input, 'input');
    const outFile = requireOption('parse', values.out, 'out');
    const k = intOption('parse', values.nbest, 'nbest', 1, 1);
    if (k > MAX_NBEST) throw new UsageError(`parse: --nbest is at most ${MAX_NBEST}, not ${k}`);
    if (values.nbest !== undefined && values['out-nbest'] === undefined) throw new UsageError('parse: --nbest needs --out-nbest F');
    if (values['out-nbest'] !== undefined && values.nbest === undefined) throw new UsageError('parse: --out-nbest needs --nbest K');
    const threads = resolveThreads(intOption('parse', values.threads, 'threads', 0));
    const beam = numberOption('parse', values.beam, 'beam', Number.POSITIVE_INFINITY, (x) => x > 0);
    const maxLength = intOption('parse', values['max-length'], 'max-length', DEFAULT_MAX_LENGTH, 0);
    const prune = values.prune === undefined ? undefined : numberOption('parse', values.prune, 'prune', 0, (x) => x >= 0 && x < 1);
    checkOutputPath(outFile);
    if (values['out-nbest']) checkOutputPath(values['out-nbest']);
    const model = ChartParserModel.load(modelFile);
    const input = readParserInput(inputFile);
    const n = input.sentences.length;
    const progress = new Progress({ label: 'parse', total: n, unit: 'sentences' });
    const trees: string[] = new Array(n);
    const nbestOut: NbestSentence[] = [];
    const chunk = Math.max(threads * 4, 16);
    const signal = cliSignal();
    let fallbacks = 0;
    let tooLong = 0;
    for (let start = 0; start < n; start += chunk) {
      const end = Math.min(n, start + chunk);
      const sentences = input.sentences.slice(start, end);
      const results = await model.parseNbest(sentences, k, { threads, pcfg: values.pcfg, beam, maxLength, signal, ...(prune !== undefined ? { prune } : {}) });
      results.forEach((r, off) => {
        const s = start + off;
        const shape = (t: Tree): Tree => (input.shapes ? rewrap(t, input.shapes[s]) : t);
        const best = r.candidates[0].tree;
        if (maxLength > 0 && sentences[off].length > maxLength) tooLong++;
        else if (r.fallback) fallbacks++;
        trees[s] = formatTree(shape(best));
        if (values['out-nbest']) {
          const entry: NbestSentence = {
            id: input.ids[s],
            line: 0,
            tokens: input.sentences[s],
            candidates: r.candidates.map((c) => ({
              tree: formatTree(shape(c.tree)),
              logprob: c.logprob,
            })),
          };
          if (input.gold) entry.gold = formatTree(input.gold[s]);
          nbestOut.push(entry);
        }
      });
      progress.update(end);
    }
    progress.finish();
    await writeTextAtomic(outFile, trees.map((t) => t + '\n'));
    if (values['out-nbest']) await writeNbest(values['out-nbest'], nbestOut);
    if (fallbacks > 0) console.error(`parse: ${fallbacks} sentence(s) not covered by the grammar got the flat fallback (X over the best tags)`);
    if (tooLong > 0) console.error(`parse: ${tooLong} sentence(s) longer than --max-length ${maxLength} words got the flat fallback (X over the best tags)`);
  },
};
export default command;
