import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { buildFeatureTable, saveFeatureTable, selectFeatures } from '../rerank/feature-table.js';
import { loadSentenceFeatures } from '../rerank/inputs.js';
import { checkOutputPath } from '../io/atomic-writer.js';
import { resolveThreads } from '../native.js';

const usage = `structrank features --input nbest.jsonl --out feats.bin [--cutoff 5] [--no-tree-features] [--threads N]

Extracts reranking features for every candidate of an n-best file: the candidates' own
"features" objects and, for parse trees without them, the SPEC section 7 templates on
head-annotated trees (counts become threshold features). Keeps features seen on a
candidate of at least --cutoff different sentences. Writes a checksummed binary table
(dictionary of readable names + CSR of feature ids per candidate + L(x) + Score(x)).`;

const command: Command = {
  name: 'features',
  summary: 'extract reranking features from an n-best file into a binary feature table',
  usage,
  async run(args) {
    const { values } = parseCommandArgs('features', args, {
      input: { type: 'string' }, out: { type: 'string' }, cutoff: { type: 'string' },
      'no-tree-features': { type: 'boolean' }, threads: { type: 'string' },
    }, false);
    const input = requireOption('features', values.input, 'input');
    const out = requireOption('features', values.out, 'out');
    checkOutputPath(out);
    const cutoff = intOption('features', values.cutoff, 'cutoff', 5, 1);
    const threads = resolveThreads(intOption('features', values.threads, 'threads', 0));
    const { features } = await loadSentenceFeatures(input, {
      threads, signal: cliSignal(), treeFeatures: values['no-tree-features'] ? 'never' : 'auto',
    });
    const dictionary = selectFeatures(features, cutoff);
    const table = buildFeatureTable(features, dictionary, cutoff);
    saveFeatureTable(out, table);
    console.log(`${table.ids.length} sentences, ${table.logprob.length} candidates, ${dictionary.length} features (cutoff ${cutoff}), ` +
      `${(table.cols.length / Math.max(1, table.logprob.length)).toFixed(1)} active per candidate -> ${out}`);
  },
};
export default command;
