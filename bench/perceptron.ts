/**
 * Perceptron reranker benchmark: npx tsx bench/perceptron.ts
 * Candidates are SYNTHETIC (perturbed ptb-sample gold trees, bench/nbest-synthetic.ts):
 * the chart parser's k-best lists are not available yet. Figures: training time per epoch
 * (plain = no kernel cache, 1 thread, is the baseline), test scoring throughput, the
 * shared-subtree DAG's compression ratio and scoring speed-up over the uncompressed dual
 * model on >= 5,000 support trees, and the chunk-parallel speed-up on 2 threads.
 * Environment: BENCH_TRAIN (sentences, default 600), BENCH_SUPPORT (default 6000),
 * BENCH_NBEST=parser to use real n-best lists from the chart parser's exact k-best (PCFG,
 * 2-fold jackknife on the training sentences; slow: about 0.5 s per sentence here).
 */
import { readTreesSync } from '../lib/io/treebank.js';
import { PerceptronReranker } from '../lib/rerank/perceptron.js';
import { dualTreeScores } from '../lib/rerank/perceptron-forest.js';
import { parseTree } from '../lib/trees/bracket-parser.js';
import { dataFile } from '../test-support/shared-data.js';
import { prepareGold, syntheticNbest } from './nbest-synthetic.js';
import type { NbestSentence } from '../lib/io/nbest.js';
import { type ChartParserModel, trainParser } from '../lib/parser/chart-parser.js';
import { stripRoot } from '../lib/trees/transforms.js';
import { formatTree, words, type Tree } from '../lib/trees/tree.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const nTrain = Number(process.env.BENCH_TRAIN ?? 600);
const nSupport = Number(process.env.BENCH_SUPPORT ?? 6000);
const lambda = 0.4;

const trainTrees = readTreesSync(dataFile('ptb-sample', 'train.mrg'));
const devTrees = readTreesSync(dataFile('ptb-sample', 'dev.mrg'));
const fromParser = process.env.BENCH_NBEST === 'parser';
const nDev = Number(process.env.BENCH_DEV ?? devTrees.length);
const [train, dev] = fromParser
  ? await parserNbest(trainTrees.slice(0, nTrain), devTrees.slice(0, nDev), trainTrees.slice(nTrain))
  : [
      syntheticNbest(trainTrees.slice(0, nTrain), { candidates: 10, seed: 1 }),
      syntheticNbest(devTrees.slice(0, nDev), { candidates: 10, seed: 2 }),
    ];
const count = (s: typeof train): number => s.reduce((n, x) => n + x.candidates.length, 0);
console.log(
  `${fromParser ? 'chart parser (PCFG) 10-best lists' : 'SYNTHETIC n-best lists (perturbed ptb-sample gold, not parser output)'}: ` +
    `train ${train.length} sentences / ${count(train)} candidates, dev ${dev.length} / ${count(dev)}`,
);

/** 10-best lists from the chart parser: each half of `train` parsed by a PCFG trained on the other half plus `extra`; dev by one trained on all. */
async function parserNbest(train: Tree[], dev: Tree[], extra: Tree[]): Promise<[NbestSentence[], NbestSentence[]]> {
  const golds = (ts: Tree[]): Tree[] =>
    ts.map(prepareGold).filter((t): t is Tree => t !== undefined && t.word === undefined);
  const toNbest = async (model: ChartParserModel, ts: Tree[], prefix: string): Promise<NbestSentence[]> => {
    const gold = golds(ts);
    const parsed = await model.parseNbest(gold.map(words), 10, { threads: 2 });
    return parsed.map((p, i) => ({
      id: `${prefix}${i + 1}`,
      tokens: words(gold[i]),
      candidates: p.candidates.map((c) => ({ tree: formatTree(stripRoot(c.tree)), logprob: c.logprob })),
      gold: formatTree(gold[i]),
      line: i + 1,
    }));
  };
  const half = Math.floor(train.length / 2);
  const a = train.slice(0, half);
  const b = train.slice(half);
  const out: NbestSentence[] = [];
  out.push(...(await toNbest(await trainParser([...b, ...extra], { threads: 2 }), a, 'a')));
  out.push(...(await toNbest(await trainParser([...a, ...extra], { threads: 2 }), b, 'b')));
  return [out, await toNbest(await trainParser([...train, ...extra], { threads: 2 }), dev, 'd')];
}

const rows: string[][] = [];
const row = (...cells: (string | number)[]): void => {
  rows.push(cells.map(String));
  console.log(cells.join(' | '));
};

let lastCpu = 0;
/** Runs f; returns its result and wall seconds, and leaves its CPU seconds in lastCpu. */
async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await f();
  const c = process.cpuUsage(c0);
  lastCpu = (c.user + c.system) / 1e6;
  return [r, (performance.now() - t0) / 1000];
}
const cores = (wall: number): string => `${(lastCpu / wall).toFixed(2)} cores busy on average`;

// 1. Training time per epoch (tree kernel, dual form).
const epochs = 2;
const [plain, plainSec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, threads: 1, cacheMB: 0, compressed: false }),
);
const [cached, cachedSec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, threads: 1, compressed: false }),
);
const [dagModel, dagSec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, threads: 1 }),
);
const plainCalls = plain.stats?.kernelCalls ?? 0;
row(
  'training, kernel sums, no cache, 1 thread (baseline)',
  `${(plainSec / epochs).toFixed(2)} s/epoch`,
  '1.00x',
  `${(plainCalls / plainSec / 1e6).toFixed(2)} M kernel evals/s (SVM-Light-TK: 0.50 M/s)`,
);
row(
  'training, kernel sums + kernel cache, 1 thread',
  `${(cachedSec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / cachedSec).toFixed(2)}x`,
  `${cached.stats?.kernelCalls} evals computed, ${cached.stats?.cacheHits} cache hits`,
);
row(
  'training, growing DAG, 1 thread',
  `${(dagSec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / dagSec).toFixed(2)}x`,
  `${dagModel.info().support} support trees, ${dagModel.info().mistakes} mistakes (same as kernel sums: ${dagModel.info().mistakes === plain.info().mistakes})`,
);

// Chunk-parallel: the same 2-chunk training on 1 and on 2 threads.
const [, chunk1Sec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, chunks: 2, threads: 1 }),
);
const chunk1Cpu = lastCpu;
const [chunked, chunk2Sec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, chunks: 2, threads: 2 }),
);
const chunk2Cores = `${cores(chunk2Sec)}; CPU ${lastCpu.toFixed(2)} s vs ${chunk1Cpu.toFixed(2)} s on 1 thread`;
row(
  'training, growing DAG, 2 chunks, 1 thread',
  `${(chunk1Sec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / chunk1Sec).toFixed(2)}x`,
  '',
);
row(
  'training, growing DAG, 2 chunks, 2 threads',
  `${(chunk2Sec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / chunk2Sec).toFixed(2)}x`,
  `chunk-parallel speed-up ${(chunk1Sec / chunk2Sec).toFixed(2)}x on 2 threads (${chunk2Cores})`,
);
const [, kchunk1Sec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, chunks: 2, threads: 1, compressed: false }),
);
const kchunk1Cpu = lastCpu;
const [, kchunk2Sec] = await timed(() =>
  PerceptronReranker.train(train, { kernel: 'tree', lambda, epochs, chunks: 2, threads: 2, compressed: false }),
);
const kchunk2Cores = `${cores(kchunk2Sec)}; CPU ${lastCpu.toFixed(2)} s vs ${kchunk1Cpu.toFixed(2)} s on 1 thread`;
row(
  'training, kernel sums + cache, 2 chunks, 1 thread',
  `${(kchunk1Sec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / kchunk1Sec).toFixed(2)}x`,
  '',
);
row(
  'training, kernel sums + cache, 2 chunks, 2 threads',
  `${(kchunk2Sec / epochs).toFixed(2)} s/epoch`,
  `${(plainSec / kchunk2Sec).toFixed(2)}x`,
  `chunk-parallel speed-up ${(kchunk1Sec / kchunk2Sec).toFixed(2)}x on 2 threads (${kchunk2Cores})`,
);

// 2. Test scoring throughput on dev, and dev F1.
const devCandidates = count(dev);
for (const [label, model] of [
  ['1 chunk', dagModel],
  ['2 chunks', chunked],
] as const) {
  const prepared = model.prepare(dev);
  const [, uSec] = await timed(() => model.choose(prepared, { prediction: 'averaged', compressed: false, threads: 1 }));
  const [, cSec] = await timed(() => model.choose(prepared, { prediction: 'averaged', compressed: true, threads: 1 }));
  const [, vpSec] = await timed(() => model.choose(prepared, { prediction: 'voted', compressed: false, threads: 1 }));
  const [, vSec] = await timed(() => model.choose(prepared, { prediction: 'voted', threads: 1 }));
  const averaged = await model.evaluate(dev, { prediction: 'averaged' });
  const voted = await model.evaluate(dev, { prediction: 'voted' });
  const support = model.info().support;
  row(
    `dev scoring, ${label} (${support} support), averaged, per support tree, 1 thread (baseline)`,
    `${(devCandidates / uSec).toFixed(0)} cand/s`,
    '1.00x',
    `F1 ${averaged.f1.toFixed(2)} (base model ${averaged.baselineF1.toFixed(2)}, oracle ${averaged.oracleF1.toFixed(2)})`,
  );
  row(
    `dev scoring, ${label}, averaged, DAG, 1 thread`,
    `${(devCandidates / cSec).toFixed(0)} cand/s`,
    `${(uSec / cSec).toFixed(2)}x`,
    '',
  );
  row(
    `dev scoring, ${label}, voted, kernel per support tree, 1 thread`,
    `${(devCandidates / vpSec).toFixed(0)} cand/s`,
    `${(uSec / vpSec).toFixed(2)}x`,
    `F1 ${voted.f1.toFixed(2)}`,
  );
  row(
    `dev scoring, ${label}, voted, kernel columns from the DAG, 1 thread`,
    `${(devCandidates / vSec).toFixed(0)} cand/s`,
    `${(uSec / vSec).toFixed(2)}x`,
    '',
  );
}

// 3. DAG compression on a large weighted forest: nSupport candidate trees, coefficients +-1..3.
const bigTrain = syntheticNbest(trainTrees, { candidates: 10, seed: 3 });
const support = bigTrain.flatMap((s) => s.candidates.map((c) => parseTree(c.tree as string))).slice(0, nSupport);
let x = 12345;
const coef = support.map(() => {
  x = (x * 1103515245 + 12345) % 2147483648;
  return ((x >> 8) % 7) - 3 || 1;
});
const query = syntheticNbest(devTrees, { candidates: 10, seed: 2 })
  .flatMap((s) => s.candidates.map((c) => parseTree(c.tree as string)))
  .slice(0, 1000);
const direct = await dualTreeScores(support, coef, query, { lambda, compressed: false, threads: 1 });
const dag = await dualTreeScores(support, coef, query, { lambda, compressed: true, threads: 1 });
let maxRel = 0;
for (let i = 0; i < query.length; i++) {
  maxRel = Math.max(maxRel, Math.abs(dag.scores[i] - direct.scores[i]) / Math.max(1, Math.abs(direct.scores[i])));
}
row(
  `scoring vs ${support.length} support trees, per support tree, 1 thread (baseline)`,
  `${(query.length / direct.scoreSeconds).toFixed(0)} cand/s`,
  '1.00x',
  '',
);
row(
  `scoring vs ${support.length} support trees, DAG, 1 thread`,
  `${(query.length / dag.scoreSeconds).toFixed(0)} cand/s`,
  `${(direct.scoreSeconds / dag.scoreSeconds).toFixed(2)}x`,
  `DAG ${dag.dagNodes} nodes for ${dag.forestNodes} tree nodes (compression ${(dag.forestNodes / dag.dagNodes).toFixed(2)}x), built in ${dag.buildSeconds.toFixed(2)} s, max rel. diff ${maxRel.toExponential(1)}`,
);
const dag2 = await dualTreeScores(support, coef, query, { lambda, compressed: true, threads: 2 });
row(
  `scoring vs ${support.length} support trees, DAG, 2 threads`,
  `${(query.length / dag2.scoreSeconds).toFixed(0)} cand/s`,
  `${(direct.scoreSeconds / dag2.scoreSeconds).toFixed(2)}x`,
  '',
);

console.log('\n| measurement | figure | vs baseline | notes |\n|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
