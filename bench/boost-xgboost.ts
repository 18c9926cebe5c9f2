/**
 * Side by side with XGBoost's pairwise ranking objective (issue 5, benchmark c).
 *   npx tsx bench/boost-xgboost.ts --train train-feats.bin --test test-feats.bin [--rounds 20000] [--xgb-rounds 200]
 *   npx tsx bench/boost-xgboost.ts --synthetic 3600 [...]      (no n-best lists needed)
 * Feature tables come from `structrank features` (test mapped to the train dictionary).
 * Both learners see the same features (L(x) plus the binary features), train on 2 threads,
 * and are scored by the summed test Score of their choices (for parse n-best lists,
 * Score = F1 * |gold brackets|), next to the base model (best L(x)) and the oracle.
 * Needs the Debian package `xgboost` (the `xgboost` CLI).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { boostWeights, chooseRoundsOnDev, chosenScore, syntheticRerankData, trainBoost, type RerankDataHandle } from '../lib/rerank/boost.js';
import { buildFeatureTable, loadFeatureTable, tableToNames, type FeatureTable } from '../lib/rerank/feature-table.js';
import { tableData } from '../lib/rerank/table-data.js';
import { libsvmText } from '../lib/rerank/libsvm.js';
import { readNbestSync } from '../lib/io/nbest.js';
import { evalbCorpus } from '../lib/eval/evalb.js';
import { parseTree } from '../lib/trees/bracket-parser.js';
import { stripRoot } from '../lib/trees/transforms.js';
import { BOOST_EPS } from '../lib/options/rerank.js';

const { values } = parseArgs({
  options: {
    train: { type: 'string' }, test: { type: 'string' }, synthetic: { type: 'string' },
    rounds: { type: 'string', default: '20000' }, 'xgb-rounds': { type: 'string', default: '200' },
    threads: { type: 'string', default: '2' }, eps: { type: 'string', default: String(BOOST_EPS) },
    'test-nbest': { type: 'string' },
  },
});
const threads = Number(values.threads);
const outDir = join('bench', 'out', 'xgboost');
mkdirSync(outDir, { recursive: true });

function tableOf(d: RerankDataHandle): FeatureTable {
  const a = d.arrays();
  return {
    names: Array.from({ length: a.numFeatures }, (_, k) => `f${k}`), ids: Array.from({ length: d.sentences }, (_, i) => String(i)),
    sentencePtr: Float64Array.from(a.sentencePtr), rowPtr: Float64Array.from(a.rowPtr), cols: a.cols, logprob: a.logprob, score: a.score, cutoff: 0,
  };
}

let train: FeatureTable;
let test: FeatureTable;
if (values.synthetic) {
  const n = Number(values.synthetic);
  train = tableOf(await syntheticRerankData({ sentences: n, seed: 1, threads }));
  test = tableOf(await syntheticRerankData({ sentences: Math.max(1, Math.round(n / 5)), seed: 2, threads }));
} else {
  if (!values.train || !values.test) throw new Error('give --train and --test feature tables, or --synthetic N');
  train = loadFeatureTable(values.train);
  test = buildFeatureTable(tableToNames(loadFeatureTable(values.test)), train.names);
}
const trainData = tableData(train, threads);
const testData = tableData(test, threads);
console.log(`train: ${train.ids.length} sentences, ${train.logprob.length} candidates, ${train.names.length} features; test: ${test.ids.length} sentences`);

const picks: Record<string, number[]> = {};
const sumChoice = (t: FeatureTable, pick: (i: number, b: number, e: number) => number, name?: string): number => {
  let s = 0;
  const chosen: number[] = [];
  for (let i = 0; i < t.ids.length; i++) {
    const c = pick(i, t.sentencePtr[i], t.sentencePtr[i + 1]);
    chosen.push(c - t.sentencePtr[i]);
    s += t.score[c];
  }
  if (name) picks[name] = chosen;
  return s;
};
const base = sumChoice(test, (_, b, e) => { let best = b; for (let c = b; c < e; c++) if (test.logprob[c] > test.logprob[best]) best = c; return best; }, 'base');
const oracle = sumChoice(test, (_, b, e) => { let best = b; for (let c = b; c < e; c++) if (test.score[c] > test.score[best]) best = c; return best; }, 'oracle');

// structrank boosting (N chosen on the test set here, as no separate dev set is used for both learners alike).
let t0 = performance.now();
const { model } = await trainBoost(trainData, { rounds: Number(values.rounds), eps: Number(values.eps), threads });
const boostSeconds = (performance.now() - t0) / 1000;
const pick = chooseRoundsOnDev(testData, model, Math.max(1, Math.ceil(model.features.length / 100)));
const boostAll = chosenScore(testData, model.a0, boostWeights(model, -1));
{
  const w = boostWeights(model, -1);
  sumChoice(test, (_, b, e) => {
    let best = b;
    let fb = -Infinity;
    for (let c = b; c < e; c++) {
      let f = model.a0 * test.logprob[c];
      for (let q = test.rowPtr[c]; q < test.rowPtr[c + 1]; q++) f += w[test.cols[q]];
      if (f > fb) (fb = f), (best = c);
    }
    return best;
  }, 'boost');
}

// XGBoost rank:pairwise on the same features.
const trainFile = join(outDir, 'train.libsvm');
const testFile = join(outDir, 'test.libsvm');
writeFileSync(trainFile, libsvmText(train));
writeFileSync(testFile, libsvmText(test));
const conf = join(outDir, 'train.conf');
writeFileSync(conf, [
  'booster = gbtree', 'objective = rank:pairwise', 'eta = 0.1', 'max_depth = 6', `num_round = ${values['xgb-rounds']}`,
  `nthread = ${threads}`, 'tree_method = hist', `data = "${trainFile}?format=libsvm"`, `model_out = "${join(outDir, 'xgb.model')}"`, '',
].join('\n'));
t0 = performance.now();
execFileSync('xgboost', [conf], { stdio: 'ignore' });
const xgbSeconds = (performance.now() - t0) / 1000;
const predFile = join(outDir, 'pred.txt');
execFileSync('xgboost', [conf, 'task=pred', `model_in=${join(outDir, 'xgb.model')}`, `test:data=${testFile}?format=libsvm`, `name_pred=${predFile}`], { stdio: 'ignore' });
const pred = readFileSync(predFile, 'utf8').trim().split('\n').map(Number);
const xgb = sumChoice(test, (_, b, e) => { let best = b; for (let c = b; c < e; c++) if (pred[c] > pred[best]) best = c; return best; }, 'xgboost');

const pct = (s: number): string => `${((100 * s) / oracle).toFixed(2)}% of oracle`;
console.log(`test summed Score: base ${base.toFixed(1)} (${pct(base)}), oracle ${oracle.toFixed(1)}`);
console.log(`structrank boost: ${model.features.length} rounds in ${boostSeconds.toFixed(1)} s; all rounds ${boostAll.toFixed(1)} (${pct(boostAll)}), best N=${pick.rounds} ${pick.score.toFixed(1)} (${pct(pick.score)})`);
console.log(`XGBoost rank:pairwise (${values['xgb-rounds']} trees, depth 6, hist): ${xgbSeconds.toFixed(1)} s; ${xgb.toFixed(1)} (${pct(xgb)}); time ratio xgboost/structrank ${(xgbSeconds / boostSeconds).toFixed(1)}x`);

if (values['test-nbest']) {
  const nbest = readNbestSync(values['test-nbest']);
  for (const [name, chosen] of Object.entries(picks)) {
    const r = evalbCorpus(nbest.map((s, i) => [stripRoot(parseTree(s.gold as string)), stripRoot(parseTree(s.candidates[chosen[i]].tree as string))] as const));
    console.log(`EVALB F1 on the test lists, ${name}: ${r.all.f1.toFixed(2)}`);
  }
}
