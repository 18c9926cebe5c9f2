/**
 * Boosting (structrank, ExpLoss with sparse updates) against XGBoost's `rank:pairwise` and
 * `rank:ndcg` on the same features, every hyper-parameter chosen on dev only:
 *   npx tsx bench/boost-xgboost.ts --pipeline DIR [--rounds 5000] [--xgb-rounds 200] [--threads 1]
 *     real n-best lists from the cache of a `structrank pipeline` run (its jackknifed train
 *     folds' nbest.jsonl, dev.jsonl and test.jsonl; e.g. ptb-sample 20-best of the PCFG chart
 *     parser, bench/ptb20-pipeline.json), features as the pipeline extracts them (tree features
 *     of Collins & Koo (2005), count cutoff 5 on train);
 *   npx tsx bench/boost-xgboost.ts --synthetic 3600
 *     timing scale only: train, dev and test are cut from one synthetic problem (one hidden
 *     model); its "% of oracle Score" is not an accuracy result.
 * structrank: eps in --eps (default 0.001,0.0025,0.005), rounds N chosen on dev from the
 * prefix curve (every rounds/100). XGBoost: objective x max_depth x eta (--xgb-depth 4,6,
 * --xgb-eta 0.1,0.3), the number of trees chosen on dev among 25, 50, 100, ... up to
 * --xgb-rounds (predictions with ntree_limit). Test figures are computed once, for the
 * dev-chosen setting. CPU seconds: structrank from process.cpuUsage around training,
 * XGBoost from /usr/bin/time (user + sys) of the `xgboost` CLI; both on --threads threads.
 * Needs the Debian package `xgboost`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readNbestSync, type NbestSentence } from '../lib/io/nbest.js';
import { featureTables } from '../lib/rerank/candidate-sets.js';
import { corpusF1, scoreSet, type ScoredSet } from '../lib/pipeline/evaluate.js';
import {
  boostPrefixCurve,
  boostWeights,
  rerankScores,
  syntheticRerankData,
  trainBoost,
  type RerankDataHandle,
} from '../lib/rerank/boost.js';
import { type FeatureTable } from '../lib/rerank/feature-table.js';
import { libsvmLines } from '../lib/rerank/libsvm.js';
import { tableData } from '../lib/rerank/table-data.js';
import { BOOST_EPS } from '../lib/options/rerank.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const { values } = parseArgs({
  options: {
    pipeline: { type: 'string' },
    synthetic: { type: 'string' },
    rounds: { type: 'string', default: '5000' },
    eps: { type: 'string', default: `0.001,${BOOST_EPS},0.005` },
    'xgb-rounds': { type: 'string', default: '200' },
    'xgb-depth': { type: 'string', default: '4,6' },
    'xgb-eta': { type: 'string', default: '0.1,0.3' },
    'xgb-objective': { type: 'string', default: 'rank:pairwise,rank:ndcg' },
    threads: { type: 'string', default: '1' },
    cutoff: { type: 'string', default: '5' },
  },
});
const threads = Number(values.threads);
const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const outDir = join('bench', 'out', 'xgboost');
mkdirSync(outDir, { recursive: true });
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};

/** One split: the feature table and how a choice of one candidate per sentence is scored. */
interface Split {
  table: FeatureTable;
  data: RerankDataHandle;
  /** Quality of a choice (candidate index within each list): F1, or % of the oracle Score. */
  quality: (chosen: number[]) => number;
}

function sliceTable(t: FeatureTable, from: number, to: number): FeatureTable {
  const c0 = t.sentencePtr[from];
  const c1 = t.sentencePtr[to];
  const r0 = t.rowPtr[c0];
  return {
    names: t.names,
    ids: t.ids.slice(from, to),
    cutoff: t.cutoff,
    sentencePtr: Float64Array.from(t.sentencePtr.subarray(from, to + 1), (x) => x - c0),
    rowPtr: Float64Array.from(t.rowPtr.subarray(c0, c1 + 1), (x) => x - r0),
    cols: t.cols.slice(r0, t.rowPtr[c1]),
    logprob: t.logprob.slice(c0, c1),
    score: t.score.slice(c0, c1),
  };
}

const argmax = (t: FeatureTable, value: (c: number) => number): number[] =>
  t.ids.map((_, i) => {
    let best = t.sentencePtr[i];
    for (let c = best; c < t.sentencePtr[i + 1]; c++) if (value(c) > value(best)) best = c;
    return best - t.sentencePtr[i];
  });

function scoreShare(t: FeatureTable): (chosen: number[]) => number {
  const sum = (chosen: number[]): number => chosen.reduce((a, j, i) => a + t.score[t.sentencePtr[i] + j], 0);
  const oracle = sum(argmax(t, (c) => t.score[c]));
  return (chosen) => (100 * sum(chosen)) / oracle;
}

/** Files of a pipeline cache: every train fold's nbest.jsonl, and dev.jsonl / test.jsonl. */
function pipelineLists(dir: string): { train: string[]; dev: string; test: string } {
  const found: Record<string, string[]> = { 'nbest.jsonl': [], 'dev.jsonl': [], 'test.jsonl': [] };
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (found[f]) found[f].push(p);
    }
  };
  walk(dir);
  if (found['dev.jsonl'].length !== 1 || found['test.jsonl'].length !== 1 || found['nbest.jsonl'].length === 0) {
    throw new Error(
      `${dir}: expected the train folds' nbest.jsonl and one dev.jsonl and test.jsonl (one pipeline run's cache); found ${JSON.stringify(found)}`,
    );
  }
  return { train: found['nbest.jsonl'].sort(), dev: found['dev.jsonl'][0], test: found['test.jsonl'][0] };
}

async function realSplits(dir: string): Promise<Record<'train' | 'dev' | 'test', Split>> {
  const files = pipelineLists(dir);
  const read = (fs: string[]): NbestSentence[] => fs.flatMap((f) => readNbestSync(f));
  const sets: Record<string, ScoredSet> = {
    train: scoreSet(read(files.train)),
    dev: scoreSet(read([files.dev])),
    test: scoreSet(read([files.test])),
  };
  const ctx = { threads, seed: 1 };
  const [train, dev, test] = await featureTables(
    sets.train,
    [sets.train, sets.dev, sets.test],
    Number(values.cutoff),
    'collins',
    ctx,
  );
  const tables = { train, dev, test };
  const split = async (k: 'train' | 'dev' | 'test'): Promise<Split> => ({
    table: tables[k],
    data: await tableData(tables[k], threads),
    quality: (chosen) => corpusF1(sets[k], chosen),
  });
  console.log(`lists: ${files.train.length} train folds, ${dir}`);
  return { train: await split('train'), dev: await split('dev'), test: await split('test') };
}

async function syntheticSplits(n: number): Promise<Record<'train' | 'dev' | 'test', Split>> {
  const d = await syntheticRerankData({ sentences: Math.round(n * 1.4), seed: 1, threads });
  const a = d.arrays();
  const all: FeatureTable = {
    names: Array.from({ length: a.numFeatures }, (_, k) => `f${k}`),
    ids: Array.from({ length: d.sentences }, (_, i) => String(i)),
    sentencePtr: Float64Array.from(a.sentencePtr),
    rowPtr: Float64Array.from(a.rowPtr),
    cols: a.cols,
    logprob: a.logprob,
    score: a.score,
    cutoff: 0,
  };
  const split = async (from: number, to: number): Promise<Split> => {
    const table = sliceTable(all, from, to);
    return { table, data: await tableData(table, threads), quality: scoreShare(table) };
  };
  return {
    train: await split(0, n),
    dev: await split(n, Math.round(n * 1.2)),
    test: await split(Math.round(n * 1.2), d.sentences),
  };
}

const splits = values.pipeline
  ? await realSplits(values.pipeline)
  : values.synthetic
    ? await syntheticSplits(Number(values.synthetic))
    : undefined;
if (!splits) throw new Error('give --pipeline DIR (a structrank pipeline output folder) or --synthetic N');
const qualityName = values.pipeline ? 'F1' : '% of oracle Score (synthetic: timing only)';
const { train, dev, test } = splits;
console.log(
  `# boosting vs XGBoost, ${new Date().toISOString()}; load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${threads} thread(s)`,
);
console.log(
  `train ${train.table.ids.length} sentences / ${train.table.logprob.length} candidates / ${train.table.names.length} features; dev ${dev.table.ids.length}; test ${test.table.ids.length}`,
);
const baseTest = test.quality(test.table.ids.map(() => 0));
const oracleTest = test.quality(argmax(test.table, (c) => test.table.score[c]));

// structrank: every eps, rounds chosen on dev.
const rounds = Number(values.rounds);
let ours = { devScore: -Infinity, eps: 0, n: 0, cpu: 0, test: 0 };
let oursCpuTotal = 0;
for (const eps of list(values.eps).map(Number)) {
  const c0 = cpu();
  const { model } = await trainBoost(train.data, { rounds, eps, threads });
  const used = cpu() - c0;
  oursCpuTotal += used;
  const checkpoints: number[] = [];
  for (let n = 0; n <= model.features.length; n += Math.max(1, Math.floor(rounds / 100))) checkpoints.push(n);
  const curve = boostPrefixCurve(dev.data, model, checkpoints, threads);
  let best = 0;
  for (let i = 1; i < curve.length; i++) if (curve[i] > curve[best]) best = i;
  console.log(
    `structrank eps ${eps}: ${model.features.length} rounds in ${used.toFixed(1)} CPU s; best on dev at N = ${checkpoints[best]}`,
  );
  if (curve[best] > ours.devScore) {
    const w = boostWeights(model, checkpoints[best]);
    const chosen = Array.from(rerankScores(test.data, model.a0, w, threads).chosen);
    ours = { devScore: curve[best], eps, n: checkpoints[best], cpu: used, test: test.quality(chosen) };
  }
}

// XGBoost: objective x depth x eta, trees chosen on dev.
const file = (name: string): string => join(outDir, name);
function writeLibsvm(t: FeatureTable, name: string, ndcg: boolean): string {
  // rank:ndcg uses 2^label - 1 as the gain: it gets the candidate's rank-free F1 in tenths (0..10).
  const lines = libsvmLines(t);
  if (ndcg) {
    let k = 0;
    for (let i = 0; i < t.ids.length; i++) {
      let top = 0;
      for (let c = t.sentencePtr[i]; c < t.sentencePtr[i + 1]; c++) top = Math.max(top, t.score[c]);
      for (let c = t.sentencePtr[i]; c < t.sentencePtr[i + 1]; c++, k++) {
        const rel = top > 0 ? Math.round((10 * t.score[c]) / top) : 0;
        lines[k] = `${rel}${lines[k].slice(lines[k].indexOf(' '))}`;
      }
    }
  }
  writeFileSync(file(name), lines.join('\n') + '\n');
  return file(name);
}
function xgboost(args: string[]): number {
  const timeFile = file('time.txt');
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, 'xgboost', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`xgboost ${args.join(' ')}: ${r.stderr.slice(-1000)}`);
  const [u, s] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return u + s;
}
const predict = (conf: string, model: string, data: string, trees: number): number[] => {
  xgboost([
    conf,
    'task=pred',
    `model_in=${model}`,
    `test:data=${data}?format=libsvm`,
    `name_pred=${file('pred.txt')}`,
    `ntree_limit=${trees}`,
  ]);
  return readFileSync(file('pred.txt'), 'utf8').trim().split('\n').map(Number);
};
const xgbRounds = Number(values['xgb-rounds']);
const treeCounts = [25, 50, 100, 200, 400, 800].filter((n) => n < xgbRounds).concat(xgbRounds);
let theirs = { devScore: -Infinity, setting: '', cpu: 0, test: 0 };
let theirsCpuTotal = 0;
for (const objective of list(values['xgb-objective'])) {
  const ndcg = objective === 'rank:ndcg';
  const trainFile = writeLibsvm(train.table, `train-${objective}.libsvm`, ndcg);
  const devFile = writeLibsvm(dev.table, 'dev.libsvm', false);
  const testFile = writeLibsvm(test.table, 'test.libsvm', false);
  for (const depth of list(values['xgb-depth'])) {
    for (const eta of list(values['xgb-eta'])) {
      const conf = file('train.conf');
      const model = file('xgb.model');
      writeFileSync(
        conf,
        [
          'booster = gbtree',
          `objective = ${objective}`,
          `eta = ${eta}`,
          `max_depth = ${depth}`,
          `num_round = ${xgbRounds}`,
          `nthread = ${threads}`,
          'tree_method = hist',
          `data = "${trainFile}?format=libsvm"`,
          `model_out = "${model}"`,
          'silent = 1',
          '',
        ].join('\n'),
      );
      const used = xgboost([conf]);
      theirsCpuTotal += used;
      let best = { score: -Infinity, trees: 0 };
      for (const trees of treeCounts) {
        const pred = predict(conf, model, devFile, trees);
        const score = dev.quality(argmax(dev.table, (c) => pred[c]));
        if (score > best.score) best = { score, trees };
      }
      const setting = `${objective}, depth ${depth}, eta ${eta}, ${best.trees} trees`;
      console.log(
        `XGBoost ${objective} depth ${depth} eta ${eta}: ${xgbRounds} trees in ${used.toFixed(1)} CPU s; best on dev: ${best.trees} trees (${best.score.toFixed(2)})`,
      );
      if (best.score > theirs.devScore) {
        const pred = predict(conf, model, testFile, best.trees);
        theirs = { devScore: best.score, setting, cpu: used, test: test.quality(argmax(test.table, (c) => pred[c])) };
      }
    }
  }
}

console.log(
  `\n| system (setting chosen on dev) | test ${qualityName} | training CPU s of the chosen setting | CPU s of the whole dev search |`,
);
console.log('|---|---|---|---|');
console.log(`| base (first candidate) | ${baseTest.toFixed(2)} | - | - |`);
console.log(`| oracle | ${oracleTest.toFixed(2)} | - | - |`);
console.log(
  `| structrank boosting, eps ${ours.eps}, N = ${ours.n} of ${rounds} rounds | ${ours.test.toFixed(2)} | ${ours.cpu.toFixed(1)} (all ${rounds} rounds) | ${oursCpuTotal.toFixed(1)} |`,
);
console.log(
  `| XGBoost ${theirs.setting} | ${theirs.test.toFixed(2)} | ${theirs.cpu.toFixed(1)} (all ${xgbRounds} trees) | ${theirsCpuTotal.toFixed(1)} |`,
);
console.log(
  `CPU ratio XGBoost / structrank: ${(theirs.cpu / ours.cpu).toFixed(1)}x for the chosen settings, ${(theirsCpuTotal / oursCpuTotal).toFixed(1)}x for the searches. Load average at the end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}.`,
);
