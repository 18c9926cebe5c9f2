/**
 * Boosting reranker benchmark (issue 5). Run: npx tsx bench/boost.ts [--sentences 36000]
 *   [--rounds 100000] [--naive-rounds 1000] [--threads 0] [--xgboost nbest-train.jsonl,nbest-test.jsonl]
 * a. the shape of Collins & Koo (2005)'s data (36,000 sentences, ~27 candidates each, 500,000 Zipf features, a few
 *    hundred active per candidate): time and peak RSS of `rounds` sparse rounds, Savings.
 * b. sparse vs naive (figure 4 vs figure 3) wall clock over the first `naive-rounds` rounds;
 *    the naive algorithm is the in-run baseline.
 * c. with --xgboost: see bench/boost-xgboost.ts.
 * Timings come from a shared 2-core machine.
 */
import { parseArgs } from 'node:util';
import { syntheticRerankData, trainBoost } from '../lib/rerank/boost.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const { values } = parseArgs({
  options: {
    sentences: { type: 'string', default: '36000' },
    rounds: { type: 'string', default: '100000' },
    'naive-rounds': { type: 'string', default: '1000' },
    threads: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    'skip-full': { type: 'boolean', default: false },
    'logloss-rounds': { type: 'string', default: '0' },
  },
});
const sentences = Number(values.sentences);
const rounds = Number(values.rounds);
const naiveRounds = Number(values['naive-rounds']);
const threads = Number(values.threads);

const peakMb = (): number => process.resourceUsage().maxRSS / 1024;
const t0 = performance.now();
const data = await syntheticRerankData({ sentences, seed: Number(values.seed), threads });
const tGen = (performance.now() - t0) / 1000;
console.log(
  `synthetic: ${data.sentences} sentences, ${data.candidates} candidates, ${data.numFeatures} features, ` +
    `${(data.nnz / data.candidates).toFixed(0)} active per candidate, generated in ${tGen.toFixed(1)} s`,
);

// CPU seconds of this process (the machine is shared: wall clock alone is noisy).
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// a. the full run
const t1 = performance.now();
const c1 = cpu();
let initSeconds = 0;
const full = values['skip-full']
  ? undefined
  : await trainBoost(data, {
      rounds,
      method: 'sparse',
      threads,
      chunk: 5000,
      onProgress: (s) => {
        if (s.rounds === 0) {
          initSeconds = (performance.now() - t1) / 1000;
          console.log(
            `  pairs ${s.pairs}, T = ${s.totalCost}, a0 = ${s.a0.toFixed(3)}, set-up ${initSeconds.toFixed(1)} s`,
          );
        } else if (s.rounds % 20000 === 0)
          console.log(
            `  ${s.rounds} rounds  ${((performance.now() - t1) / 1000).toFixed(1)} s  loss ${s.loss.toPrecision(6)}  Work ${s.work.toFixed(2)}  Savings ${s.savings.toFixed(0)}`,
          );
      },
    });
const tFull = (performance.now() - t1) / 1000;
if (full) {
  console.log(
    `a. ${full.stats.rounds} sparse rounds: ${tFull.toFixed(1)} s wall, ${(cpu() - c1).toFixed(1)} s CPU (set-up ${initSeconds.toFixed(1)} s), peak RSS ${peakMb().toFixed(0)} MB, ` +
      `Work = ${full.stats.work.toFixed(1)} passes, Savings = ${full.stats.savings.toFixed(0)}  (Collins & Koo 2005: 100,000 rounds in 3-4 h, Work 37.1, Savings 2,692)`,
  );
}

// b. sparse vs naive, first naiveRounds rounds
const timeRounds = async (
  method: 'sparse' | 'naive',
): Promise<{ seconds: number; cpuSeconds: number; features: Int32Array }> => {
  let start = 0;
  let startCpu = 0;
  const r = await trainBoost(data, {
    rounds: naiveRounds,
    method,
    threads,
    chunk: 100,
    onProgress: (s) => {
      if (s.rounds === 0) ((start = performance.now()), (startCpu = cpu()));
    },
  });
  return { seconds: (performance.now() - start) / 1000, cpuSeconds: cpu() - startCpu, features: r.model.features };
};
if (naiveRounds > 0) {
  const sparse = await timeRounds('sparse');
  const naive = await timeRounds('naive');
  const same =
    sparse.features.length === naive.features.length && sparse.features.every((k, i) => k === naive.features[i]);
  console.log(
    `b. first ${naiveRounds} rounds: naive ${naive.seconds.toFixed(1)} s wall / ${naive.cpuSeconds.toFixed(1)} s CPU (baseline), ` +
      `sparse ${sparse.seconds.toFixed(2)} s wall / ${sparse.cpuSeconds.toFixed(2)} s CPU, speed-up ${(naive.seconds / sparse.seconds).toFixed(0)}x wall, ` +
      `${(naive.cpuSeconds / sparse.cpuSeconds).toFixed(0)}x CPU; same features picked: ${same}`,
  );
}

// c. LogLoss feature selection (Collins & Koo 2005, section 4.6) against sparse ExpLoss, per round.
const loglossRounds = Number(values['logloss-rounds']);
if (loglossRounds > 0) {
  const perRound = async (method: 'sparse' | 'logloss', n: number): Promise<number> => {
    let startCpu = 0;
    const r = await trainBoost(data, {
      rounds: n,
      method,
      threads,
      chunk: n,
      onProgress: (s) => {
        if (s.rounds === 0) startCpu = cpu();
      },
    });
    return (cpu() - startCpu) / Math.max(1, r.model.features.length);
  };
  const ll = await perRound('logloss', loglossRounds);
  const sp = await perRound('sparse', loglossRounds);
  console.log(
    `c. first ${loglossRounds} rounds, CPU s per round: LogLoss selection ${ll.toFixed(2)}, sparse ExpLoss ${sp.toFixed(4)} (${(ll / sp).toFixed(0)}x; ` +
      `over 100,000 sparse rounds the mean is ${full ? ((tFull / full.stats.rounds) * 1000).toFixed(2) + ' ms wall' : 'n/a'})  (Collins & Koo 2005: LogLoss ~85x slower)`,
  );
}
