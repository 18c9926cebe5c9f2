/**
 * Tagging-kernel perceptron benchmark on real CRF n-best lists: npx tsx bench/tag-perceptron.ts
 * A CRF tagger (`ner` templates, SGD) trained on the rest of CoNLL-2002 esp.train gives
 * 20-best lists for its first BENCH_TRAIN sentences (default 3000) and for the first
 * BENCH_DEV sentences of esp.testa (default 500). Figures: one training epoch and voted
 * prediction with one kernel call per (support, candidate) pair on 1 thread (the
 * baseline), against the shared-suffix scoring (perceptron/tag_suffix_scoring.h) on 1 and
 * 2 threads. Both make identical decisions; the bench checks that too.
 */
import { readConllSync } from '../lib/io/conll.js';
import type { NbestSentence } from '../lib/io/nbest.js';
import { PerceptronReranker } from '../lib/rerank/perceptron.js';
import { Tagger } from '../lib/tagger/tagger.js';
import { dataFile } from '../test-support/shared-data.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const nTrain = Number(process.env.BENCH_TRAIN ?? 3000);
const nDev = Number(process.env.BENCH_DEV ?? 500);
const k = 20;

const read = (name: string): string[][][] => readConllSync(dataFile('conll2002-esp', name)).map((s) => s.rows);
const all = read('esp.train');
const devRows = read('esp.testa').slice(0, nDev);
const trainRows = all.slice(0, nTrain);
const t0 = performance.now();
const tagger = await Tagger.train(all.slice(nTrain), {
  algo: 'crf',
  optimizer: 'sgd',
  epochs: 5,
  templates: 'ner',
  columns: ['word', 'pos', 'ne'],
  label: 'ne',
  threads: 0,
});
const lists = async (rows: string[][][], prefix: string): Promise<NbestSentence[]> => {
  const tagged = await tagger.tagNbest(rows, k, { threads: 0 });
  return rows.map((r, i) => ({
    id: `${prefix}${i + 1}`,
    tokens: r.map((t) => t[0]),
    gold: r.map((t) => t[2]),
    candidates: tagged[i].map((c) => ({ tags: c.tags, logprob: c.logprob })),
    line: i + 1,
  }));
};
const train = await lists(trainRows, 't');
const dev = await lists(devRows, 'd');
const count = (s: NbestSentence[]): number => s.reduce((n, x) => n + x.candidates.length, 0);
console.log(
  `CRF 20-best lists (base trained on ${all.length - nTrain} sentences in ${((performance.now() - t0) / 1000).toFixed(1)} s): ` +
    `train ${train.length} sentences / ${count(train)} candidates, dev ${dev.length} / ${count(dev)}`,
);

let lastCpu = 0;
async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const c0 = process.cpuUsage();
  const start = performance.now();
  const r = await f();
  const c = process.cpuUsage(c0);
  lastCpu = (c.user + c.system) / 1e6;
  return [r, (performance.now() - start) / 1000];
}

const options = { kernel: 'tags' as const, lambda: 0.5, beta: 0.2, epochs: 1 };
const [plain, plainSec] = await timed(() =>
  PerceptronReranker.train(train, { ...options, threads: 1, compressed: false }),
);
const [fast1, fast1Sec] = await timed(() => PerceptronReranker.train(train, { ...options, threads: 1 }));
const [fast2, fast2Sec] = await timed(() => PerceptronReranker.train(train, { ...options, threads: 2 }));
const fast2Cpu = lastCpu;
const same = (a: PerceptronReranker, b: PerceptronReranker): boolean =>
  a.info().mistakes === b.info().mistakes && a.info().support === b.info().support;
if (!same(plain, fast1) || !same(plain, fast2))
  throw new Error('shared-suffix training made other decisions than kernel calls');

console.log(`| step | time | speed-up | note |`);
console.log(`|---|---|---|---|`);
const info = plain.info();
console.log(
  `| training, 1 epoch, kernel call per (support, candidate), 1 thread (baseline) | ${plainSec.toFixed(1)} s | 1.00x | ${info.mistakes} mistakes, ${info.support} support sequences |`,
);
console.log(
  `| training, shared suffixes, 1 thread | ${fast1Sec.toFixed(1)} s | ${(plainSec / fast1Sec).toFixed(2)}x | same mistakes |`,
);
console.log(
  `| training, shared suffixes, 2 threads | ${fast2Sec.toFixed(1)} s | ${(plainSec / fast2Sec).toFixed(2)}x | ${(fast2Cpu / fast2Sec).toFixed(2)} cores busy; ${(fast1Sec / fast2Sec).toFixed(2)}x over 1 thread |`,
);

const prepared = plain.prepare(dev);
const [a, vPlainSec] = await timed(() =>
  plain.choose(prepared, { prediction: 'voted', compressed: false, threads: 1 }),
);
const [b, v1Sec] = await timed(() => plain.choose(prepared, { prediction: 'voted', threads: 1 }));
const [c, v2Sec] = await timed(() => plain.choose(prepared, { prediction: 'voted', threads: 2 }));
const key = (x: { chosen: ArrayLike<number> }): string => Array.from(x.chosen).join(',');
if (key(a) !== key(b) || key(a) !== key(c)) throw new Error('shared-suffix voting chose differently from kernel calls');
const cands = count(dev);
console.log(
  `| voted prediction on dev, kernel call per pair, 1 thread (baseline) | ${(cands / vPlainSec).toFixed(0)} cand/s | 1.00x | |`,
);
console.log(
  `| voted prediction, shared suffixes, 1 thread | ${(cands / v1Sec).toFixed(0)} cand/s | ${(vPlainSec / v1Sec).toFixed(2)}x | same choices |`,
);
console.log(
  `| voted prediction, shared suffixes, 2 threads | ${(cands / v2Sec).toFixed(0)} cand/s | ${(vPlainSec / v2Sec).toFixed(2)}x | ${(v1Sec / v2Sec).toFixed(2)}x over 1 thread |`,
);
const ev = await plain.evaluate(dev, { prediction: 'voted' });
console.log(
  `dev (first ${nDev} of esp.testa): base ${ev.baselineF1.toFixed(2)}, voted perceptron ${ev.f1.toFixed(2)}, oracle ${ev.oracleF1.toFixed(2)} (trained on ${nTrain} sentences only: a speed run, not the accuracy result)`,
);
