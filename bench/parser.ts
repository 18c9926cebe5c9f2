/**
 * Chart parser benchmark: `npx tsx bench/parser.ts` (env: CRF_MAX_LEN=25 CRF_EPOCHS=6
 * CRF_ETA=0.03 DATASETS=ptb-sample,gum-open CRF_DATASETS=ptb-sample).
 * Per data set: the PCFG on all training trees; F1 (EVALB, COLLINS.prm, lib/eval/evalb.ts)
 * on test sentences <= 15, <= 40 words and all; parsing speed with 1 thread (the baseline)
 * and all threads; k-best oracle F1 at k = 1, 10, 50 on test <= 40. Then the CRF-CFG and
 * the PCFG trained on the same trees (training trees of <= CRF_MAX_LEN words, same grammar):
 * F1, training time per pass, peak memory; and the F1 effect of PCFG-beam prefiltering.
 * PEERS.md has only Finkel, Kleeman & Manning (2008)'s own figures (WSJ15, 2007 hardware): printed for reference.
 * Shared 2-core machine: timings are noisy.
 */
import { join } from 'node:path';
import { repoRoot as root, sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { evalbCorpus, evalbSentence } from '../lib/eval/evalb.js';
import { ChartParserModel } from '../lib/parser/chart-parser.js';
import { withRootOf } from '../lib/trees/transforms.js';
import { treeWords } from '../lib/parser/input.js';
import type { Tree } from '../lib/trees/tree.js';
import { defaultThreads } from '../lib/native.js';
import { processorLine } from './processor.js';
import { LEGACY_CRF } from './legacy-crf.js';

console.log(processorLine());

const dataDir = (name: string): string => (name === 'gum-open' ? join(root, 'data', 'gum-open') : join(shared, name));
const threads = defaultThreads();
const crfMaxLen = Number(process.env.CRF_MAX_LEN ?? 25);
const crfEpochs = Number(process.env.CRF_EPOCHS ?? 6);
const crfEta = Number(process.env.CRF_ETA ?? 0.03);
const datasets = (process.env.DATASETS ?? 'ptb-sample,gum-open').split(',');
const crfDatasets = (process.env.CRF_DATASETS ?? 'ptb-sample').split(',');
const crfBeams = (process.env.CRF_BEAMS ?? 'inf')
  .split(',')
  .map((b) => (b === 'inf' ? Number.POSITIVE_INFINITY : Number(b)));
const skipBase = process.env.SKIP_BASE === '1';

const len = (t: Tree): number => treeWords(t).length;
const f = (x: number): string => x.toFixed(2);
const mb = (): string => (process.resourceUsage().maxRSS / 1024).toFixed(0);

async function scores(
  model: ChartParserModel,
  test: Tree[],
  pcfg = false,
): Promise<{ f15: number; f40: number; all: number; rate: number }> {
  const t0 = performance.now();
  const parses = await model.parse(
    test.map((t) => treeWords(t)),
    { threads, pcfg },
  );
  const seconds = (performance.now() - t0) / 1000;
  const pairs = test.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const);
  const pick = (max: number) => evalbCorpus(pairs.filter(([g]) => len(g) <= max)).all.f1;
  return { f15: pick(15), f40: pick(40), all: pick(Infinity), rate: test.length / seconds };
}

async function oracle(model: ChartParserModel, test: Tree[], ks: number[]): Promise<Record<number, number>> {
  const kmax = Math.max(...ks);
  const nbest = await model.parseNbest(
    test.map((t) => treeWords(t)),
    kmax,
    { threads },
  );
  const out: Record<number, number> = {};
  for (const k of ks) {
    let match = 0,
      gold = 0,
      testB = 0;
    test.forEach((g, i) => {
      let best = { m: 0, g: 0, t: 0, score: -1 };
      for (const c of nbest[i].candidates.slice(0, k)) {
        const s = evalbSentence(g, withRootOf(c.tree, g));
        const score = s.goldBrackets + s.testBrackets > 0 ? (2 * s.matched) / (s.goldBrackets + s.testBrackets) : 0;
        if (score > best.score) best = { m: s.matched, g: s.goldBrackets, t: s.testBrackets, score };
      }
      ((match += best.m), (gold += best.g), (testB += best.t));
    });
    const p = match / testB,
      r = match / gold;
    out[k] = (200 * p * r) / (p + r);
  }
  return out;
}

console.log(`chart parser benchmark: ${threads} threads; shared 2-core machine (timings noisy)`);
console.log(
  'PEERS.md (Finkel, Kleeman & Manning 2008, WSJ15, one 2007 Opteron core): 12 min/pass rules-only, 35 min/pass all features; 90.9 F1',
);
for (const name of datasets) {
  const dir = dataDir(name);
  const train = readTreesSync(join(dir, 'train.mrg'));
  const test = readTreesSync(join(dir, 'test.mrg')).filter((t) => len(t) > 0);
  console.log(`\n== ${name}: ${train.length} train, ${test.length} test trees`);
  let t0 = performance.now();
  if (!skipBase) {
    const pcfg = await ChartParserModel.train(train, { threads });
    const trainSeconds = (performance.now() - t0) / 1000;
    const s = await scores(pcfg, test);
    const info = pcfg.info();
    console.log(
      `PCFG (all train, markov 2): ${info.symbols} states, ${info.binaryRules}+${info.unaryRules} rules, trained in ${trainSeconds.toFixed(1)} s`,
    );
    console.log(`  F1 test <=15 ${f(s.f15)}  <=40 ${f(s.f40)}  all ${f(s.all)}`);
    t0 = performance.now();
    const one = test.slice(0, 100);
    await pcfg.parse(
      one.map((t) => treeWords(t)),
      { threads: 1 },
    );
    const rate1 = one.length / ((performance.now() - t0) / 1000);
    t0 = performance.now();
    await pcfg.parse(
      one.map((t) => treeWords(t)),
      { threads },
    );
    const rateN = one.length / ((performance.now() - t0) / 1000);
    console.log(
      `  speed (first 100 test sentences): 1 thread ${rate1.toFixed(1)} sent/s (baseline), ${threads} threads ${rateN.toFixed(1)} sent/s (x${(rateN / rate1).toFixed(2)})`,
    );
    for (const beam of [10, 6]) {
      t0 = performance.now();
      const parses = await pcfg.parse(
        test.map((t) => treeWords(t)),
        { threads, beam },
      );
      const rate = test.length / ((performance.now() - t0) / 1000);
      const pairs = test.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const);
      console.log(
        `  parse-time beam ${beam}: F1 <=40 ${f(evalbCorpus(pairs.filter(([g]) => len(g) <= 40)).all.f1)}  all ${f(evalbCorpus(pairs).all.f1)}; ${rate.toFixed(1)} sent/s vs exact ${s.rate.toFixed(1)} sent/s (${threads} threads)`,
      );
    }
    const short = test.filter((t) => len(t) <= 40);
    const o = await oracle(pcfg, short, [1, 10, 50]);
    console.log(
      `  k-best oracle F1 (test <=40): k=1 ${f(o[1])}  k=10 ${f(o[10])}  k=50 ${f(o[50])}; peak RSS ${mb()} MB`,
    );
  }

  if (!crfDatasets.includes(name)) continue;
  const sub = train.filter((t) => len(t) <= crfMaxLen);
  const same = await ChartParserModel.train(sub, { threads });
  const sp = await scores(same, test);
  console.log(`PCFG on the CRF's training trees (<= ${crfMaxLen} words, ${sub.length} trees):`);
  console.log(`  F1 test <=15 ${f(sp.f15)}  <=40 ${f(sp.f40)}  all ${f(sp.all)}`);
  for (const beam of crfBeams) {
    const passTimes: number[] = [];
    let last = performance.now();
    let kept = 1;
    const crf = await ChartParserModel.train(sub, {
      ...LEGACY_CRF,
      crf: true,
      epochs: crfEpochs,
      eta0: crfEta,
      beam,
      threads,
      onProgress: (p) => {
        kept = p.keptFraction;
        if (p.step === p.stepsPerEpoch) {
          const now = performance.now();
          passTimes.push((now - last) / 1000);
          last = now;
          console.log(
            `  CRF pass ${p.epoch}: ${passTimes[passTimes.length - 1].toFixed(1)} s, objective ${p.objective.toFixed(3)}`,
          );
        }
      },
    });
    const sc = await scores(crf, test);
    console.log(
      `CRF-CFG (same trees and grammar, ${crfEpochs} passes, eta0 ${crfEta}, prefilter ${beam === Infinity ? 'boolean (exact)' : `beam ${beam}`}, ${(100 * kept).toFixed(1)}% of chart entries kept):`,
    );
    console.log(
      `  F1 test <=15 ${f(sc.f15)}  <=40 ${f(sc.f40)}  all ${f(sc.all)}   (vs PCFG: ${(sc.f40 - sp.f40 >= 0 ? '+' : '') + f(sc.f40 - sp.f40)} on <=40)`,
    );
    console.log(
      `  pass 1 (includes prefiltering) ${passTimes[0].toFixed(1)} s, later passes ${(passTimes.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, passTimes.length - 1)).toFixed(1)} s; parse ${sc.rate.toFixed(1)} sent/s; peak RSS ${mb()} MB`,
    );
  }
}
