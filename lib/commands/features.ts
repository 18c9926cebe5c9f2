import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { json, requiredFile, threads } from '../options/common.js';
import { headRules, linearRerankerFields } from '../options/rerank.js';
import { loadHeadRules } from '../io/head-rules-file.js';
import { cliSignal } from './signal.js';
import { saveFeatureTable } from '../rerank/feature-table.js';
import { loadFeatureRows, trainingTable } from '../rerank/inputs.js';
import { claimOutputs } from './claim.js';
import { resolveThreads } from '../native.js';
import { nbestShardFields } from '../options/distributed.js';
import { UsageError } from '../errors.js';
import type { FeatureTable } from '../rerank/feature-table.js';

const command = defineCommand({
  description: `Extracts reranking features for every candidate of an n-best file: the candidates' own
"features" objects and, for parse trees without them, the tree feature templates on
head-annotated trees (counts become threshold features), with the head rules and word
classes learned from the gold trees as train-reranker learns them. Keeps features seen on a
candidate of at least --cutoff different sentences. Writes a checksummed binary table
(dictionary of readable names + CSR of feature ids per candidate + L(x) + Score(x), and the
learned settings, which a reranker trained on the table keeps).`,
  options: {
    input: requiredFile('n-best file (JSON Lines)', 'nbest.jsonl'),
    out: requiredFile('binary feature table to write', 'feats.bin'),
    cutoff: linearRerankerFields.cutoff,
    treeFeatures: option(z.boolean().default(true), "no tree feature templates: only the candidates' own features"),
    headRules,
    threads,
    json: option(json, 'print the table summary as JSON'),
    ...nbestShardFields,
  },
  examples: [
    'structrank features --input train.nbest.jsonl --out train.feats --cutoff 5',
    'structrank features --input big.nbest.jsonl --out big.feats --redis redis://queue-host:6379 --store /mnt/shared/store',
  ],
  async run(values, { given }) {
    const { input, out } = values;
    const threads = resolveThreads(values.threads);
    claimOutputs('features', { '--input': input, '--head-rules': values.headRules }, { '--out': out });
    const save = (table: FeatureTable): void => saveTable(table, values);
    // --redis/--store: extraction in shards on a queue (lib/distributed/nbest-shards.ts, docs/scaling.md).
    if (values.redis !== undefined || values.store !== undefined)
      return (await import('../distributed/nbest-shards.js')).runFeaturesSharded(values, save, cliSignal());
    if (given.has('--shard-size')) throw new UsageError('features: --shard-size needs --redis and --store');
    const signal = cliSignal();
    const learned: string[] = [];
    const { rows, settings } = await loadFeatureRows(input, {
      threads,
      signal,
      treeFeatures: values.treeFeatures,
      learn: { table: loadHeadRules(values.headRules), log: (line) => learned.push(line) },
    });
    save({ ...(await trainingTable(rows, values.cutoff, signal)), ...(settings ? { settings } : {}) });
    for (const line of learned) console.error(line);
  },
});

/** Saves the table and prints its summary (local and sharded runs). */
function saveTable(table: FeatureTable, values: { out: string; cutoff: number; json?: boolean }): void {
  const { out, cutoff } = values;
  saveFeatureTable(out, table);
  const perCandidate = table.cols.length / Math.max(1, table.logprob.length);
  if (values.json) {
    console.log(
      JSON.stringify({
        out,
        sentences: table.ids.length,
        candidates: table.logprob.length,
        features: table.names.length,
        cutoff,
        activePerCandidate: perCandidate,
      }),
    );
    return;
  }
  console.log(
    `${table.ids.length} sentences, ${table.logprob.length} candidates, ${table.names.length} features (cutoff ${cutoff}), ` +
      `${perCandidate.toFixed(1)} active per candidate -> ${out}`,
  );
}
export default command;
