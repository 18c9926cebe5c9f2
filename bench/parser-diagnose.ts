/**
 * Where a parser model loses F1 on dev: `MODEL=ptb.crf DS=ptb-sample npx tsx bench/parser-diagnose.ts`.
 * Parses dev.mrg (1 thread), prints EVALB F1, the POS accuracy of the parser's output
 * (labels cut as EVALB cuts them: `v-fin` is `v`; words seen in train.mrg vs unknown ones), the most frequent gold tag -> output tag
 * confusions and per-label bracket recall / precision / F1 for the frequent labels.
 * Env: DECODE (viterbi | mbr; default the model's), PRUNE (coarse-to-fine threshold; default the model's), TOP (labels and confusions listed, 15).
 */
import { join } from 'node:path';
import { sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { ChartParserModel } from '../lib/parser/chart-parser.js';
import type { ParserDecode } from '../lib/options/parser.js';
import { evalbCorpus, evalbLabel } from '../lib/eval/evalb.js';
import { tagAccuracy, formatTagAccuracy } from '../lib/eval/tags.js';
import { preterminals } from '../lib/trees/tree.js';
import { withRootOf } from '../lib/trees/transforms.js';
import { treeWords } from '../lib/parser/input.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const env = process.env;
const ds = env.DS ?? 'ptb-sample';
const top = Number(env.TOP ?? 15);
if (!env.MODEL) throw new Error('MODEL=<model file> is required');
const model = await ChartParserModel.load(env.MODEL);
const known = new Set(readTreesSync(join(shared, ds, 'train.mrg')).flatMap((t) => treeWords(t)));
const dev = readTreesSync(join(shared, ds, 'dev.mrg')).filter((t) => treeWords(t).length > 0);
const decode: { decode?: ParserDecode } =
  env.DECODE === 'mbr' || env.DECODE === 'viterbi' ? { decode: env.DECODE } : {};
const prune: { prune?: number } = env.PRUNE !== undefined ? { prune: Number(env.PRUNE) } : {};
const c0 = process.cpuUsage();
const parses = await model.parse(
  dev.map((t) => treeWords(t)),
  { threads: 1, ...decode, ...prune },
);
const c = process.cpuUsage(c0);
const pairs = dev.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const);
const report = evalbCorpus(pairs);
console.log(
  `${ds} dev: F1 all ${report.all.f1.toFixed(2)}, <= 40 ${report.cutoff.f1.toFixed(2)}; ${dev.length} sentences in ${((c.user + c.system) / 1e6).toFixed(1)} CPU s`,
);
const tagged = pairs.map(([g, p]) => {
  const gold = preterminals(g).filter((x) => x.label !== '-NONE-');
  return {
    words: gold.map((x) => x.word as string),
    gold: gold.map((x) => evalbLabel(x.label)),
    predicted: preterminals(p).map((x) => evalbLabel(x.label)),
  };
});
console.log(`POS of the parser's output: ${formatTagAccuracy(tagAccuracy(tagged, known))}`);
const confusions = new Map<string, number>();
for (const s of tagged) {
  s.gold.forEach((g, i) => {
    if (g !== s.predicted[i])
      confusions.set(`${g} -> ${s.predicted[i]}`, (confusions.get(`${g} -> ${s.predicted[i]}`) ?? 0) + 1);
  });
}
console.log(
  `tag confusions: ${[...confusions]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
);
const labels = Object.entries(report.byLabel)
  .sort((a, b) => b[1].gold - a[1].gold)
  .slice(0, top);
console.log('label gold test matched recall precision F1 (missed = gold - matched)');
for (const [label, s] of labels) {
  console.log(
    `${label.padEnd(8)} ${String(s.gold).padStart(5)} ${String(s.test).padStart(5)} ${String(s.matched).padStart(5)} ${s.recall.toFixed(1).padStart(6)} ${s.precision.toFixed(1).padStart(6)} ${s.f1.toFixed(1).padStart(6)} missed ${s.gold - s.matched}`,
  );
}
