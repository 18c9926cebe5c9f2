/**
 * What boosting picks on parse n-best lists: trains the pipeline's boosting reranker once (one
 * eps, the rounds chosen on dev as the pipeline does) on given list files and prints, per
 * feature template, how many features the dictionary holds and how many of them, and how much
 * weight (sum of |weight|), the chosen rounds use; then the heaviest features, and the dev F1
 * after other numbers of rounds (ROUNDS_F1, comma-separated), against the one the Score chose.
 *
 *   EPS=0.005 ROUNDS=5000 npx tsx bench/floresta-boost-features.ts train.jsonl[,more] dev.jsonl
 */
import { readNbestSync } from '../lib/io/nbest.js';
import { featureTables } from '../lib/rerank/candidate-sets.js';
import { checkpoints } from '../lib/rerank/linear-set-reranker.js';
import { corpusF1, rescoreSet, scoreSet } from '../lib/pipeline/evaluate.js';
import { boostPrefixCurve, boostWeights, rerankScores, trainBoost } from '../lib/rerank/boost.js';
import { tableData } from '../lib/rerank/table-data.js';
import { FEATURE_CUTOFF } from '../lib/options/rerank.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const [trainFiles, devFile] = process.argv.slice(2);
if (devFile === undefined) {
  console.error('usage: EPS=<eps> ROUNDS=<n> npx tsx bench/floresta-boost-features.ts train.jsonl[,more] dev.jsonl');
  process.exit(2);
}
const eps = Number(process.env.EPS ?? 0.0025);
const rounds = Number(process.env.ROUNDS ?? 5000);
const train = rescoreSet(scoreSet(trainFiles.split(',').flatMap((f) => readNbestSync(f))), 'errors');
const dev = rescoreSet(scoreSet(readNbestSync(devFile)), 'errors');
const ctx = { threads: 1, seed: 1, log: (l: string) => console.error(l) };
const [trainTable, devTable] = await featureTables(train, [train, dev], FEATURE_CUTOFF, 'collins', ctx);
const { model } = await trainBoost(await tableData(trainTable, 1), { rounds, eps, threads: 1 });
const x = checkpoints(model.features.length);
const y = Array.from(boostPrefixCurve(await tableData(devTable, 1), model, x, 1));
let at = 0;
for (let i = 1; i < y.length; i++) if (y[i] > y[at]) at = i;
const weights = boostWeights(model, x[at]);
const devData = await tableData(devTable, 1);
const devF1 = (n: number): string =>
  corpusF1(
    dev,
    Array.from(rerankScores(devData, model.a0, boostWeights(model, n), 1).chosen, (c) => (c >= 0 ? c : 0)),
  ).toFixed(2);
const others = (process.env.ROUNDS_F1 ?? '')
  .split(',')
  .filter((v) => v !== '')
  .map(Number);
console.log(`dev F1 after ${[x[at], ...others].map((n) => `${n} rounds: ${devF1(n)}`).join(', ')}`);
const names = trainTable.names;

/** The template of a feature name: the part before the first ':' (threshold suffix dropped). */
const template = (name: string): string => name.split(':')[0].split('|')[0];
const byTemplate = new Map<string, { features: number; used: number; weight: number }>();
names.forEach((name, f) => {
  const t = template(name);
  let e = byTemplate.get(t);
  if (!e) byTemplate.set(t, (e = { features: 0, used: 0, weight: 0 }));
  e.features++;
  if (weights[f] !== 0) {
    e.used++;
    e.weight += Math.abs(weights[f]);
  }
});
const totalWeight = [...byTemplate.values()].reduce((s, e) => s + e.weight, 0);
console.log(
  `eps ${eps}: ${model.features.length} rounds trained, ${x[at]} chosen on dev; a0 ${model.a0.toFixed(3)}; ${names.length} features in the dictionary, ${[...byTemplate.values()].reduce((s, e) => s + e.used, 0)} with a weight`,
);
console.log('| template | features | with a weight | share of the summed abs weight |');
console.log('|---|---|---|---|');
for (const [t, e] of [...byTemplate].sort((a, b) => b[1].weight - a[1].weight)) {
  console.log(`| ${t} | ${e.features} | ${e.used} | ${((100 * e.weight) / totalWeight).toFixed(1)}% |`);
}
const heaviest = [...weights.keys()]
  .filter((f) => weights[f] !== 0)
  .sort((a, b) => Math.abs(weights[b]) - Math.abs(weights[a]))
  .slice(0, 25);
console.log('\nheaviest features:');
for (const f of heaviest) console.log(`  ${weights[f] > 0 ? '+' : ''}${weights[f].toFixed(3)}  ${names[f]}`);
