/**
 * Chart parser extras: the F1 effect of word clusters, grammar relaxation and verb-lexicalized
 * rule features, each added alone to the README's quick CRF setting (ptb-sample, training
 * trees <= 25 words, PCFG-beam 6 prefilter, SGD batch 20, eta0 0.03, 6 passes).
 * `npx tsx bench/parser-extras.ts` (env: VARIANTS=base,verb,clusters,relax,all CRF_EPOCHS=6
 * FEATURE_CACHE_MB=1024 PREFILTER_BEAM=6|inf DATASET=ptb-sample|gum-open; `base` has no extras, each other variant adds one, `all` adds the three).
 *
 * There is no cluster file in ../shared/data; the clusters are derived here (written to a
 * temporary `word<TAB>cluster` file): for every word type of the raw train, dev and test
 * text (words only, no dev/test trees), cluster = (the most frequent training tag of its
 * left neighbours, the same for its right neighbours), where a neighbour's tag is its most
 * frequent tag in the training trees (`UNK` if it has none, `<s>`/`</s>` at the edges).
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { repoRoot as root, sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { evalbCorpus } from '../lib/eval/evalb.js';
import { ChartParserModel, type ParserTrainOptions } from '../lib/parser/chart-parser.js';
import { withRootOf } from '../lib/trees/transforms.js';
import { treeWords } from '../lib/parser/input.js';
import { preterminals, type Tree } from '../lib/trees/tree.js';
import { defaultThreads } from '../lib/native.js';
import { processorLine } from './processor.js';
import { LEGACY_CRF } from './legacy-crf.js';

console.log(processorLine());

const dataset = process.env.DATASET ?? 'ptb-sample';
const dir = dataset === 'gum-open' ? join(root, 'data', 'gum-open') : join(shared, dataset);
const threads = defaultThreads();
const epochs = Number(process.env.CRF_EPOCHS ?? 6);
const variants = (process.env.VARIANTS ?? 'base,verb,clusters,relax').split(',');
const cacheMB = Number(process.env.FEATURE_CACHE_MB ?? 1024);
const prefilterBeam =
  process.env.PREFILTER_BEAM === 'inf' ? Number.POSITIVE_INFINITY : Number(process.env.PREFILTER_BEAM ?? 6);
const len = (t: Tree): number => treeWords(t).length;
const f = (x: number): string => x.toFixed(2);

const train = readTreesSync(join(dir, 'train.mrg'));
const dev = readTreesSync(join(dir, 'dev.mrg'));
const test = readTreesSync(join(dir, 'test.mrg')).filter((t) => len(t) > 0);
const sub = train.filter((t) => len(t) <= 25);

function deriveClusters(): string {
  const tagCounts = new Map<string, Map<string, number>>();
  for (const t of train)
    for (const p of preterminals(t)) {
      if (p.label === '-NONE-') continue;
      const m = tagCounts.get(p.word as string) ?? new Map<string, number>();
      m.set(p.label, (m.get(p.label) ?? 0) + 1);
      tagCounts.set(p.word as string, m);
    }
  const argmax = (m: Map<string, number>): string =>
    [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
  const major = new Map<string, string>();
  for (const [w, m] of tagCounts) major.set(w, argmax(m));
  const left = new Map<string, Map<string, number>>();
  const right = new Map<string, Map<string, number>>();
  const bump = (map: Map<string, Map<string, number>>, w: string, c: string): void => {
    const m = map.get(w) ?? new Map<string, number>();
    m.set(c, (m.get(c) ?? 0) + 1);
    map.set(w, m);
  };
  for (const t of [...train, ...dev, ...test]) {
    const ws = treeWords(t);
    ws.forEach((w, i) => {
      bump(left, w, i === 0 ? '<s>' : (major.get(ws[i - 1]) ?? 'UNK'));
      bump(right, w, i === ws.length - 1 ? '</s>' : (major.get(ws[i + 1]) ?? 'UNK'));
    });
  }
  const lines: string[] = [];
  for (const [w, m] of left) lines.push(`${w}\t${argmax(m)}|${argmax(right.get(w) as Map<string, number>)}`);
  const folder = mkdtempSync(join(tmpdir(), 'structrank-clusters-'));
  const file = join(folder, 'clusters.txt');
  writeFileSync(file, lines.join('\n') + '\n');
  const ids = new Set(lines.map((l) => l.split('\t')[1]));
  console.log(`derived clusters: ${lines.length} words in ${ids.size} clusters -> ${file}`);
  return file;
}

async function score(
  model: ChartParserModel,
  pcfg = false,
): Promise<{ f15: number; f40: number; all: number; rate: number; fallback: number }> {
  const t0 = performance.now();
  const parses = await model.parse(
    test.map((t) => treeWords(t)),
    { threads, pcfg },
  );
  const rate = test.length / ((performance.now() - t0) / 1000);
  const pairs = test.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const);
  const pick = (max: number): number => evalbCorpus(pairs.filter(([g]) => len(g) <= max)).all.f1;
  return { f15: pick(15), f40: pick(40), all: pick(Infinity), rate, fallback: parses.filter((p) => p.fallback).length };
}

console.log(
  `chart parser extras: ${dataset}, ${sub.length} training trees <= 25 words, ${test.length} test; prefilter beam ${prefilterBeam}; ${threads} threads; shared 2-core machine under load`,
);
const clusterFile = variants.includes('clusters') || variants.includes('all') ? deriveClusters() : undefined;
for (const v of variants) {
  const extra: ParserTrainOptions =
    v === 'verb'
      ? { verbFeatures: true }
      : v === 'clusters'
        ? { clusters: clusterFile, verbFeatures: false }
        : v === 'relax'
          ? { relax: true, verbFeatures: false }
          : v === 'all'
            ? { verbFeatures: true, clusters: clusterFile, relax: true }
            : { verbFeatures: false };
  let t0 = performance.now();
  // Verb features are the CRF's: the PCFG takes the grammar's options only.
  const { verbFeatures: _crfOnly, ...grammarExtra } = extra;
  const pcfg = await ChartParserModel.train(sub, { ...grammarExtra, threads });
  const ps = await score(pcfg);
  const info = pcfg.info();
  console.log(
    `\n[${v}] PCFG: ${info.binaryRules}+${info.unaryRules} rules (relaxed ${info.relaxedBinaryRules}+${info.relaxedUnaryRules}); F1 <=15 ${f(ps.f15)} <=40 ${f(ps.f40)} all ${f(ps.all)}; ${ps.rate.toFixed(1)} sent/s; ${ps.fallback} flat fallbacks`,
  );
  t0 = performance.now();
  let last = t0;
  let lastCpu = process.cpuUsage();
  const passes: number[] = [];
  const cpu: number[] = [];
  let cache = '';
  const crf = await ChartParserModel.train(sub, {
    ...LEGACY_CRF,
    ...extra,
    crf: true,
    epochs,
    eta0: 0.03,
    beam: prefilterBeam,
    threads,
    featureCacheMB: cacheMB,
    onProgress: (p) => {
      cache = `feature-id cache ${(p.featureCacheBytes / 1048576).toFixed(0)} MB for ${p.cachedSentences} sentences`;
      if (p.step === p.stepsPerEpoch) {
        const now = performance.now();
        passes.push((now - last) / 1000);
        last = now;
        const c = process.cpuUsage(lastCpu);
        cpu.push((c.user + c.system) / 1e6);
        lastCpu = process.cpuUsage();
      }
    },
  });
  const cs = await score(crf);
  console.log(
    `[${v}] CRF: ${crf.info().weights} weights; F1 <=15 ${f(cs.f15)} <=40 ${f(cs.f40)} all ${f(cs.all)}; pass 1 ${passes[0].toFixed(1)} s, later ${(passes.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, passes.length - 1)).toFixed(1)} s wall, ${(cpu.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, cpu.length - 1)).toFixed(1)} s CPU; ${cache}; parse ${cs.rate.toFixed(1)} sent/s; ${cs.fallback} flat fallbacks; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
}
if (clusterFile) rmSync(dirname(clusterFile), { recursive: true, force: true });
