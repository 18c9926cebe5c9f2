/**
 * Tree- and tagging-kernel throughput: kernel evaluations per second over all pairs i <= j
 * of the first 500 / 1,000 trees of ptb-sample/train.mrg (outer wrapper removed, labels as
 * given, lambda 0.4) and of conll2000/train.txt sentences (lambda 0.5), with the checksums of
 * ../shared/PEERS.md. Baseline: our plain algorithm on 1 thread, measured in the same run.
 * Also: loading a tree (file bytes to bank: the native reader, and the JS reader it replaced),
 * and the whole `structrank kernel trees` process on 500 trees, beside Node's own start-up
 * and SVM-Light-TK's PEERS.md figures (SVM-Light-TK cannot be built here: not run).
 * Run: npm run build:ts && npx tsx bench/kernels.ts [--whole-only]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTreebankSync, readTreesSync } from '../lib/io/treebank.js';
import { readConllSync } from '../lib/io/conll.js';
import { TreeBank, unwrapTree } from '../lib/kernels/tree-bank.js';
import { SequenceBank } from '../lib/kernels/sequence-bank.js';
import { gram, type Bank } from '../lib/kernels/kernel.js';
import { formatTree } from '../lib/trees/tree.js';
import { dataFile } from '../test-support/shared-data.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const PEER = {
  name: 'SVM-Light-TK 1.5',
  evalsPerCpuSecond: { 500: [0.52e6, 0.81e6], 1000: [0.5e6, 0.5e6] } as Record<number, [number, number]>,
  sums: { 500: ['503912.2589', '8440.717282'], 1000: ['2064624.455', '33632.79297'] } as Record<
    number,
    [string, string]
  >,
  loadUsPerTree: '31-36',
  /** Whole process: load 500 trees + one Gram, CPU s and max RSS (C harness around the library). */
  wholeProcess500: [0.18, 0.2] as [number, number],
  wholeRssMb: '8-9',
};

interface Timing {
  wall: number;
  cpu: number;
}

function timed(run: () => void): Timing {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  run();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e6 };
}

/** Best of `repeats` runs (the machine is shared: the best run is the least disturbed). */
function best(repeats: number, run: () => void): Timing {
  let out: Timing = { wall: Infinity, cpu: Infinity };
  for (let r = 0; r < repeats; r++) {
    const t = timed(run);
    out = { wall: Math.min(out.wall, t.wall), cpu: Math.min(out.cpu, t.cpu) };
  }
  return out;
}

/** Median of `repeats` runs, CPU and wall separately. */
function median(repeats: number, run: () => void): Timing {
  const ts: Timing[] = [];
  for (let r = 0; r < repeats; r++) ts.push(timed(run));
  const mid = (xs: number[]): number => xs.sort((a, b) => a - b)[(xs.length - 1) >> 1];
  return { wall: mid(ts.map((t) => t.wall)), cpu: mid(ts.map((t) => t.cpu)) };
}

function pairSum(g: Float64Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += g[i * n + j];
  return s;
}

const M = (x: number): string => `${(x / 1e6).toFixed(2)} M`;

function measure(
  bank: Bank,
  n: number,
  options: { lambda: number },
): { fast: Timing; plain: Timing; two: Timing; evals: number } {
  const evals = (n * (n + 1)) / 2;
  const fast = best(3, () => gram(bank, { ...options, threads: 1 }));
  const plain = best(1, () => gram(bank, { ...options, threads: 1, plain: true }));
  const two = best(3, () => gram(bank, { ...options, threads: 2 }));
  return { fast, plain, two, evals };
}

const rows: string[] = [];
function report(
  kind: string,
  n: number,
  bank: Bank,
  loadUs: number,
  m: ReturnType<typeof measure>,
  peer?: [number, number],
): void {
  const fastCpu = m.evals / m.fast.cpu;
  const fastWall = m.evals / m.fast.wall;
  const plainCpu = m.evals / m.plain.cpu;
  const twoWall = m.evals / m.two.wall;
  // On a loaded machine the wall ratio understates scaling; the CPU ratio shows the work
  // the second thread adds (1.00 = none: the speed-up is then bounded only by free cores).
  const cpuRatio = m.two.cpu / m.fast.cpu;
  const peerText = peer ? `${M(peer[0])}${peer[1] !== peer[0] ? `-${M(peer[1])}` : ''}` : 'n/a';
  const vsPeer = peer ? `${(fastCpu / peer[1]).toFixed(1)}x-${(fastCpu / peer[0]).toFixed(1)}x` : 'n/a';
  console.log(
    `${kind} ${n}: fast 1 thread ${M(fastWall)} evals/s wall, ${M(fastCpu)} evals/CPU s; plain 1 thread ${M(plainCpu)} evals/CPU s` +
      ` (fast/plain ${(fastCpu / plainCpu).toFixed(1)}x); 2 threads ${M(twoWall)}/s (${(twoWall / fastWall).toFixed(2)}x of 1 thread, CPU time ${cpuRatio.toFixed(2)}x of 1 thread);` +
      ` peer ${peerText} -> ${vsPeer}; ${(bank.handle.bytes() / n).toFixed(0)} bytes/item; load ${loadUs.toFixed(1)} us/item`,
  );
  rows.push(
    `| ${kind} | ${n} | ${M(fastCpu)} | ${M(fastWall)} | ${peerText} | ${vsPeer} | ${M(plainCpu)} | ${(fastCpu / plainCpu).toFixed(1)}x | ${(twoWall / fastWall).toFixed(2)}x | ${cpuRatio.toFixed(2)}x | ${(bank.handle.bytes() / n).toFixed(0)} | ${loadUs.toFixed(1)} |`,
  );
}

// ---- trees ----
const tmp = mkdtempSync(join(tmpdir(), 'structrank-bench-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const trees = readTreesSync(dataFile('ptb-sample', 'train.mrg')).map(unwrapTree);
const wholeOnly = process.argv.includes('--whole-only');
const loadRows: string[] = [];
for (const n of wholeOnly ? [500] : [500, 1000]) {
  const subset = trees.slice(0, n);
  // The input of the load and whole-process figures: n trees, one per line, wrapper removed.
  const file = join(tmp, `trees${n}.mrg`);
  writeFileSync(file, subset.map((t) => formatTree(t)).join('\n') + '\n');
  TreeBank.fromFile(file); // warm-up (JIT)
  let bank: TreeBank | undefined;
  const load = median(7, () => {
    bank = TreeBank.fromFile(file);
  });
  // The JS path it replaced: lines, tree objects, then the bank.
  const jsLoad = median(3, () => {
    const parsed = readTreebankSync(file);
    TreeBank.fromTrees(
      parsed.map((p) => p.tree),
      { source: file, lines: parsed.map((p) => p.line) },
    );
  });
  const b = bank as TreeBank;
  loadRows.push(
    `| ${n} | ${((load.cpu * 1e6) / n).toFixed(1)} | ${((jsLoad.cpu * 1e6) / n).toFixed(1)} | ${PEER.loadUsPerTree} (PEERS.md, not run here) |`,
  );
  console.log(
    `trees ${n}: load (file bytes -> bank, native reader) ${((load.cpu * 1e6) / n).toFixed(1)} CPU us/tree; the JS reader + fromTrees ${((jsLoad.cpu * 1e6) / n).toFixed(1)} us/tree; SVM-Light-TK ${PEER.loadUsPerTree} us (PEERS.md)`,
  );
  if (n === 500) wholeProcess(file, n);
  if (wholeOnly) continue;
  const sum = pairSum(gram(b, { lambda: 0.4 }), n).toPrecision(10);
  const norm = pairSum(gram(b, { lambda: 0.4, normalize: true }), n).toPrecision(10);
  const [peerSum, peerNorm] = PEER.sums[n];
  console.log(
    `trees ${n}: sum ${sum} (PEERS ${peerSum}: ${sum === peerSum ? 'OK' : 'MISMATCH'}), normalized ${norm} (PEERS ${peerNorm}: ${norm === peerNorm ? 'OK' : 'MISMATCH'})`,
  );
  report('trees', n, b, (load.cpu * 1e6) / n, measure(b, n, { lambda: 0.4 }), PEER.evalsPerCpuSecond[n]);
}

/**
 * The whole `structrank kernel trees --lambda 0.4 --threads 1` process (start-up, module
 * loading, reading, one Gram matrix, printing it to a file), CPU s and max RSS from
 * /usr/bin/time, against `node -e 0` (Node's own start-up, the floor of any Node command).
 */
function wholeProcess(file: string, n: number): void {
  const run = (args: string[]): { cpu: number; rss: number } => {
    const timeFile = join(tmp, 'time.txt');
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed`);
    const [u, sys, m] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    return { cpu: u + sys, rss: m / 1024 };
  };
  const reps = 9;
  const ours: { cpu: number; rss: number }[] = [];
  const bare: { cpu: number; rss: number }[] = [];
  for (let r = 0; r < reps; r++) {
    bare.push(run(['-e', '0']));
    ours.push(run(['dist/cli.js', 'kernel', 'trees', '--lambda', '0.4', '--threads', '1', file]));
  }
  const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
  const o = med(ours.map((x) => x.cpu));
  const z = med(bare.map((x) => x.cpu));
  const [lo, hi] = PEER.wholeProcess500;
  console.log(
    `\nWhole process, \`structrank kernel trees --lambda 0.4 --threads 1\` on ${n} trees (stdout to /dev/null), ${reps} runs, median CPU s (range); load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}:`,
  );
  console.log('| process | CPU s | max RSS MB | SVM-Light-TK CPU s / this |');
  console.log('|---|---|---|---|');
  console.log(
    `| SVM-Light-TK 1.5, load + one Gram (PEERS.md, not run here) | ${lo.toFixed(2)}-${hi.toFixed(2)} | ${PEER.wholeRssMb} | 1.00x |`,
  );
  console.log(
    `| structrank kernel trees | ${o.toFixed(3)} (${Math.min(...ours.map((x) => x.cpu)).toFixed(2)}-${Math.max(...ours.map((x) => x.cpu)).toFixed(2)}) | ${med(ours.map((x) => x.rss)).toFixed(0)} | ${(lo / o).toFixed(2)}-${(hi / o).toFixed(2)}x |`,
  );
  console.log(
    `| node -e 0 (Node start-up alone) | ${z.toFixed(3)} (${Math.min(...bare.map((x) => x.cpu)).toFixed(2)}-${Math.max(...bare.map((x) => x.cpu)).toFixed(2)}) | ${med(bare.map((x) => x.rss)).toFixed(0)} | ${(lo / z).toFixed(2)}-${(hi / z).toFixed(2)}x |\n`,
  );
}

// ---- tag sequences ----
if (wholeOnly) process.exit(0);
const sentences = readConllSync(dataFile('conll2000', 'train.txt'));
for (const n of [500, 1000]) {
  const subset = sentences.slice(0, n);
  SequenceBank.fromConll(subset, ['word', 'pos', 'tag']);
  let bank: SequenceBank | undefined;
  const load = best(3, () => {
    bank = SequenceBank.fromConll(subset, ['word', 'pos', 'tag']);
  });
  const b = bank as SequenceBank;
  const sum = pairSum(gram(b, { lambda: 0.5 }), n);
  console.log(`tags ${n}: sum of K over i<j = ${sum.toPrecision(10)} (lambda 0.5, chunk tags + words)`);
  report('tags', n, b, (load.cpu * 1e6) / n, measure(b, n, { lambda: 0.5 }));
}

console.log(
  '\n| kind | items | fast, 1 thread, evals/CPU s | fast, 1 thread, evals/s wall | SVM-Light-TK evals/CPU s | ours vs peer | plain, 1 thread, evals/CPU s | fast / plain | 2 threads / 1 (wall) | 2 threads / 1 (CPU time) | bytes per item | load, CPU us per item |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('\n| trees | load, native reader, CPU us per tree | load, JS reader + fromTrees | SVM-Light-TK |');
console.log('|---|---|---|---|');
for (const r of loadRows) console.log(r);
