/**
 * structrank and its peers in the same run, on the same data with the same features:
 *   npm run bench -- peers [crf|ap|tag|kernel ...] [--reps N] [--iters N] [--threads 1,2] [--baseline REF|none]
 * Installs what is missing (bench/peers/install.ts), then for each workload runs every peer
 * and structrank interleaved (peer, structrank, structrank, peer, ...) and prints CPU seconds
 * (user + sys, from getrusage of the child), max RSS, quality and the ratio
 * peer CPU / structrank CPU (> 1: structrank cheaper), best of N repetitions per tool.
 *
 * Held equal, and printed with each table:
 *   features  the CoNLL-2000 chunk template expanded by bench/peers/features.ts into the
 *             same attribute strings for every tool (the attribute count is printed);
 *   objective L2-regularized CRF log-likelihood, c2 |w|^2 (c2 = 1); structrank is run with
 *             its default objective and with CRFsuite's (`startWeights: false`: no
 *             start-of-sentence weights), both printed;
 *   work      the same number of L-BFGS iterations (per-iteration CPU = (CPU at the end of
 *             the last - at the end of the first) / (iterations - 1), which leaves out file
 *             reading and set-up on both sides), or perceptron epochs;
 *   threads   CRFsuite has one; structrank runs with 1 and with all cores.
 * Regression guard (crf, ap): the build of --baseline REF (default: the last release,
 * bench/peers/baseline.ts) runs interleaved with today's, 1 thread, and the ratio of their
 * per-iteration CPU is printed; today's more than 10% slower is flagged REGRESSION.
 * SVM-Light-TK and Wapiti (the CRF toolkit) cannot be had here (in no registry reachable;
 * Debian's `wapiti` is an unrelated web scanner): their PEERS.md figures are printed beside
 * ours and labelled so.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { readConllSync } from '../lib/io/conll.js';
import { scoreTags } from '../lib/tagger/dev-score.js';
import type { TokenRows } from '../lib/tagger/tagger.js';
import { DEFAULT_TEMPLATES } from '../lib/tagger/templates.js';
import { dataFile } from '../test-support/shared-data.js';
import { writeAttributeFiles } from './peers/features.js';
import { ensurePeers, PEERS_DIR, type Peers } from './peers/install.js';
import { defaultBaselineRef, ensureBaseline, REGRESSION_TOLERANCE, type Baseline } from './peers/baseline.js';
import { processorLine } from './processor.js';
import { measure as measureProcess, type Measure } from './peers/process-time.js';

/** A command's whole-process cost (bench/peers/process-time.ts), its time report in PEERS_DIR. */
const measure = (cmd: string, args: string[], options: { stdout?: string } = {}): Measure =>
  measureProcess(cmd, args, { ...options, timeFile: join(PEERS_DIR, 'time.txt') });

const best = (xs: Measure[], key?: string): Measure =>
  xs.reduce((a, b) => ((key ? a.json![key] <= b.json![key] : a.cpu <= b.cpu) ? a : b));
/** The median repetition by CPU (the upper middle one of an even count). */
const median = (xs: Measure[]): Measure => [...xs].sort((a, b) => a.cpu - b.cpu)[Math.floor(xs.length / 2)];
const range = (xs: number[], digits = 2): string => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}-${hi}`;
};

const args = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
const reps = Number(flag('reps', '2'));
const iters = Number(flag('iters', '30'));
const cores = availableParallelism();
const threadList = flag('threads', `1,${cores}`)
  .split(',')
  .map(Number)
  .filter((t, i, a) => a.indexOf(t) === i);
const baselineRef = flag('baseline', '');
const workloads = args.length > 0 ? args : ['crf', 'ap', 'tag', 'kernel'];

const cli = resolve('dist/cli.js');
const chunkColumns = ['word', 'pos', 'chunk'];
const dataDir = join(PEERS_DIR, 'data');

function header(): void {
  console.log(`# structrank vs peers, ${new Date().toISOString()}`);
  console.log(
    `machine: ${cores} cores; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ` + `${reps} interleaved repetitions per tool, the best CPU figure kept (ranges in the tables)`,
  );
  console.log(processorLine());
}

let baseline: Baseline | undefined | null = null; // null: not looked for yet
function findBaseline(): Baseline | undefined {
  if (baseline === null)
    baseline = baselineRef === 'none' ? undefined : ensureBaseline(baselineRef || defaultBaselineRef());
  return baseline;
}

const goldOf = (s: TokenRows[]): string[][] => s.map((r) => r.map((t) => t[2]));

/** Label columns written by a tool: one label per token line (last field), blank between sentences. */
function readLabels(file: string): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') {
      if (cur.length > 0) out.push(cur);
      cur = [];
    } else cur.push(line.trim().split(/\s+/).pop()!);
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

function prepareChunkData(): { train: TokenRows[]; test: TokenRows[]; attributes: number } {
  mkdirSync(dataDir, { recursive: true });
  const train = readConllSync(dataFile('conll2000', 'train.txt')).map((s) => s.rows);
  const test = readConllSync(dataFile('conll2000', 'test.txt')).map((s) => s.rows);
  const files = (n: string): string => join(dataDir, `${n}.crfsuite`);
  const a = writeAttributeFiles(train, DEFAULT_TEMPLATES.chunk, chunkColumns, 2, files('train'));
  writeAttributeFiles(test, DEFAULT_TEMPLATES.chunk, chunkColumns, 2, files('test'));
  return { train, test, attributes: a.attributes };
}

function f1Of(file: string, test: TokenRows[]): string {
  return scoreTags(goldOf(test), readLabels(file), true).value.toFixed(2);
}

/** Tags conll2000 test with a structrank model through the CLI (whole process). */
function structrankTag(model: string, input: string, out: string): Measure {
  return measure(process.execPath, [cli, 'tag', '--model', model, '--input', input, '--out', out, '--threads', '1']);
}

interface Row {
  cells: string[];
}
function table(head: string[], rows: Row[]): void {
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.cells.join(' | ')} |`);
}

function crf(peers: Peers, algo: 'crf' | 'ap'): void {
  const { test, attributes } = prepareChunkData();
  const n = algo === 'crf' ? iters : 10;
  const c2 = 1;
  console.log(
    `\n## ${algo === 'crf' ? `CRF, L-BFGS, L2 c2 = ${c2}, ${n} iterations` : 'averaged perceptron, 10 epochs'}, CoNLL-2000 chunking`,
  );
  console.log(
    `Held equal: ${attributes} attributes from the chunk template (the same strings for every tool), ` +
      `${n} ${algo === 'crf' ? 'iterations' : 'epochs'}, per-iteration CPU leaves out reading and set-up on both sides. ` +
      (algo === 'crf'
        ? 'CRFsuite: lbfgs, c2=1, max_iterations, no convergence test (delta=0, epsilon=0); structrank: c2=1, objective as stated.'
        : 'CRFsuite: averaged-perceptron, max_iterations=10; structrank: perceptron, 10 epochs.'),
  );
  const rows: Row[] = [];
  const runs: Record<string, Measure[]> = {};
  const add = (name: string, m: Measure): void => {
    (runs[name] ??= []).push(m);
  };
  const model = (name: string): string => join(PEERS_DIR, `model.${name.replace(/\W+/g, '_')}`);
  const crfsuiteName = 'CRFsuite 0.12 (1 thread)';
  const ours = (threads: number, objective: string): string =>
    `structrank, ${threads} thread${threads > 1 ? 's' : ''}${algo === 'crf' ? `, ${objective} objective` : ''}`;
  const objectives = algo === 'crf' ? ['structrank', 'crfsuite'] : ['structrank'];
  const base = findBaseline();
  const baseName = base
    ? `structrank ${base.ref} (baseline build), 1 thread${algo === 'crf' ? ', structrank objective' : ''}`
    : '';
  for (let r = 0; r < reps; r++) {
    const order: (() => void)[] = [];
    if (peers.crfsuite) {
      order.push(() => {
        const params =
          algo === 'crf'
            ? [
                'lbfgs',
                model(crfsuiteName),
                join(dataDir, 'train.crfsuite'),
                `c2=${c2}`,
                `max_iterations=${n}`,
                'delta=0',
                'epsilon=0',
              ]
            : [
                'averaged-perceptron',
                model(crfsuiteName),
                join(dataDir, 'train.crfsuite'),
                `max_iterations=${n}`,
                'epsilon=0',
              ];
        add(crfsuiteName, measure(peers.crfsuite!, ['learn', ...params]));
      });
    }
    for (const threads of threadList) {
      for (const objective of objectives) {
        const name = ours(threads, objective);
        order.push(() =>
          add(
            name,
            measure(process.execPath, [
              'bench/peers/structrank-run.mjs',
              'learn',
              algo === 'crf' ? 'crf' : 'perceptron',
              String(n),
              String(threads),
              String(c2),
              objective,
              model(name),
            ]),
          ),
        );
      }
    }
    if (base) {
      order.push(() =>
        add(
          baseName,
          measure(process.execPath, [
            base.runner,
            'learn',
            algo === 'crf' ? 'crf' : 'perceptron',
            String(n),
            '1',
            String(c2),
            'structrank',
            model(baseName),
          ]),
        ),
      );
    }
    // Interleave: odd repetitions run in reverse order.
    (r % 2 === 0 ? order : order.reverse()).forEach((f) => f());
  }
  // Quality: tag the test set with each tool's last model.
  const quality: Record<string, string> = {};
  for (const name of Object.keys(runs)) {
    const out = join(PEERS_DIR, 'out.txt');
    if (name === baseName) {
      quality[name] = '-'; // its model format may be older than today's reader
      continue;
    }
    if (name.startsWith('CRFsuite'))
      measure(peers.crfsuite!, ['tag', model(name), join(dataDir, 'test.crfsuite'), out]);
    else structrankTag(model(name), dataFile('conll2000', 'test.txt'), out);
    quality[name] = f1Of(out, test);
  }
  const perIter = (name: string): number[] => runs[name].map((m) => m.json?.perIteration ?? NaN);
  const best1 = runs[crfsuiteName] ? Math.min(...perIter(crfsuiteName)) : NaN;
  const mid = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const baseMedian = runs[crfsuiteName] ? mid(perIter(crfsuiteName)) : NaN;
  const baseTotal = runs[crfsuiteName] ? best(runs[crfsuiteName]).cpu : NaN;
  for (const name of Object.keys(runs)) {
    const b = best(runs[name]);
    const pi = perIter(name);
    const tot = runs[name].map((m) => m.cpu);
    const ratio =
      name === crfsuiteName ? '1.00x' : Number.isNaN(pi[0]) ? '-' : `${(best1 / Math.min(...pi)).toFixed(2)}x`;
    const medianRatio =
      name === crfsuiteName ? '1.00x' : Number.isNaN(pi[0]) ? '-' : `${(baseMedian / mid(pi)).toFixed(2)}x`;
    rows.push({
      cells: [
        name,
        Number.isNaN(pi[0]) ? '-' : range(pi, 3),
        ratio,
        Number.isNaN(pi[0]) ? '-' : mid(pi).toFixed(3),
        medianRatio,
        range(tot, 1),
        `${(baseTotal / b.cpu).toFixed(2)}x`,
        b.rssMb.toFixed(0),
        quality[name],
      ],
    });
  }
  const unit = algo === 'crf' ? 'iteration' : 'epoch';
  table(
    [
      `tool`,
      `CPU s per ${unit}`,
      'ratio (CRFsuite / tool, best)',
      `median CPU s per ${unit}`,
      'ratio of medians',
      'whole process CPU s',
      'ratio',
      'max RSS MB',
      'test F1',
    ],
    rows,
  );
  console.log(
    algo === 'crf'
      ? "Wapiti (the CRF toolkit) is in no registry reachable here (Debian's `wapiti` package is an unrelated web scanner), so it is not run; " +
          'PEERS.md, same machine type, same template: L-BFGS pure L2, 50 iterations, 2 threads: 79.7 s wall, 923 MB, F1 93.49.'
      : 'Whole-process CPU includes reading the training file: CRFsuite its pre-expanded attribute file, structrank the CoNLL columns plus its own feature extraction.',
  );
  if (base && runs[baseName] && runs[ours(1, 'structrank')])
    regressionGuard(base, mid(perIter(baseName)), mid(perIter(ours(1, 'structrank'))), unit);
}

/** Today's build against the baseline's, median CPU per iteration, one line: the guard. */
function regressionGuard(base: Baseline, then: number, now: number, unit: string): void {
  const slower = now / then - 1;
  const verdict =
    slower > REGRESSION_TOLERANCE
      ? `REGRESSION: today's build is ${(100 * slower).toFixed(0)}% slower per ${unit} than ${base.ref} on this processor (tolerance ${100 * REGRESSION_TOLERANCE}%)`
      : `ok (within ${100 * REGRESSION_TOLERANCE}% or faster)`;
  console.log(
    `Regression guard, 1 thread, median CPU s per ${unit}: ${base.ref} (${base.commit.slice(0, 12)}) ${then.toFixed(3)}, ` +
      `today ${now.toFixed(3)}: ratio ${base.ref} / today ${(then / now).toFixed(2)}x; ${verdict}`,
  );
}

function tag(peers: Peers): void {
  const { test } = prepareChunkData();
  console.log(
    '\n## Tagging conll2000 test (47,377 tokens, and x10), whole process: start-up, model load, reading, tagging, writing',
  );
  console.log(
    'Held equal: a first-order CRF over the same chunk-template attributes (models from a 30-iteration L-BFGS run), 1 thread, Viterbi output to a file. ' +
      'CRFsuite reads its pre-expanded attribute file; structrank reads the CoNLL columns and extracts the features itself.',
  );
  const ourModel = join(PEERS_DIR, 'tag.structrank.model');
  const theirModel = join(PEERS_DIR, 'tag.crfsuite.model');
  // Trained again every run (a few seconds): a model kept from an older build would be in its
  // older file format, which loads by conversion and would not measure this build's loading.
  measure(process.execPath, [
    'bench/peers/structrank-run.mjs',
    'learn',
    'crf',
    '30',
    String(cores),
    '1',
    'structrank',
    ourModel,
  ]);
  if (peers.crfsuite && !existsSync(theirModel))
    measure(peers.crfsuite, ['learn', 'lbfgs', theirModel, join(dataDir, 'train.crfsuite'), 'max_iterations=30']);
  const x10 = (src: string, dst: string): string => {
    const text = readFileSync(src, 'utf8');
    writeFileSync(dst, text.repeat(10));
    return dst;
  };
  const inputs = {
    x1: { ours: dataFile('conll2000', 'test.txt'), theirs: join(dataDir, 'test.crfsuite'), tokens: 47377 },
    x10: {
      ours: x10(dataFile('conll2000', 'test.txt'), join(dataDir, 'test10.txt')),
      theirs: x10(join(dataDir, 'test.crfsuite'), join(dataDir, 'test10.crfsuite')),
      tokens: 473770,
    },
  };
  const rows: Row[] = [];
  for (const [size, input] of Object.entries(inputs)) {
    const ours: Measure[] = [];
    const theirs: Measure[] = [];
    const out = join(PEERS_DIR, 'out.txt');
    for (let r = 0; r < reps; r++) {
      const a = (): void => void ours.push(structrankTag(ourModel, input.ours, out));
      const b = (): void =>
        void (peers.crfsuite && theirs.push(measure(peers.crfsuite, ['tag', theirModel, input.theirs, out])));
      if (r % 2 === 0) {
        a();
        b();
      } else {
        b();
        a();
      }
    }
    const o = median(ours);
    let f1 = '-';
    if (size === 'x1' && peers.crfsuite) {
      measure(peers.crfsuite, ['tag', theirModel, input.theirs, out]);
      f1 = f1Of(out, test);
    }
    structrankTag(ourModel, input.ours, out);
    const ourF1 = size === 'x1' ? f1Of(out, test) : '-';
    if (theirs.length > 0) {
      const t = median(theirs);
      rows.push({
        cells: [
          `CRFsuite, test ${size}`,
          `${t.cpu.toFixed(2)} (${range(theirs.map((m) => m.cpu))})`,
          `${(input.tokens / t.cpu / 1e3).toFixed(0)}k`,
          t.rssMb.toFixed(0),
          '1.00x',
          f1,
        ],
      });
      rows.push({
        cells: [
          `structrank, test ${size}`,
          `${o.cpu.toFixed(2)} (${range(ours.map((m) => m.cpu))})`,
          `${(input.tokens / o.cpu / 1e3).toFixed(0)}k`,
          o.rssMb.toFixed(0),
          `${(t.cpu / o.cpu).toFixed(2)}x`,
          ourF1,
        ],
      });
    } else {
      rows.push({
        cells: [
          `structrank, test ${size}`,
          `${o.cpu.toFixed(2)} (${range(ours.map((m) => m.cpu))})`,
          `${(input.tokens / o.cpu / 1e3).toFixed(0)}k`,
          o.rssMb.toFixed(0),
          'CRFsuite missing',
          ourF1,
        ],
      });
    }
  }
  table(
    [
      'tool',
      'CPU s, median (range)',
      'tokens per CPU s (median)',
      'max RSS MB (median run)',
      'ratio (CRFsuite / structrank)',
      'test F1',
    ],
    rows,
  );
  // structrank's x1 process by phase (bench/peers/tag-phases.mjs), medians over the repetitions.
  const phases = Array.from(
    { length: reps },
    () =>
      measure(process.execPath, ['bench/peers/tag-phases.mjs', ourModel, inputs.x1.ours, join(PEERS_DIR, 'out.txt')])
        .json!,
  );
  const mid = (k: string): string =>
    [...phases.map((p) => p[k])].sort((a, b) => a - b)[Math.floor(phases.length / 2)].toFixed(1);
  console.log(
    `\nstructrank, test x1, CPU ms by phase (median of ${reps}): Node start-up ${mid('startup')}, imports and addon ${mid('imports')}, ` +
      `model load ${mid('load')}, reading + tagging + writing ${mid('tag')}; max RSS ${mid('maxRssMb')} MB`,
  );
}

function kernel(): void {
  console.log(
    '\n## Subset-tree kernel, first 500 trees of ptb-sample train.mrg, lambda 0.4, whole process (`structrank kernel trees`), 1 thread',
  );
  console.log(
    'SVM-Light-TK is not in any registry reachable here, so it is not run: its figures are the ones measured on this machine type ' +
      'with a C harness around the SVM-Light-TK 1.5 library (PEERS.md): whole process 0.18-0.20 CPU s, 8-9 MB; loading a tree 31-36 us; Gram only 0.144-0.151 s.',
  );
  const trees = join(PEERS_DIR, 'trees500.mrg');
  if (!existsSync(trees)) writeFileSync(trees, firstTrees(500).join('\n') + '\n');
  const out = join(PEERS_DIR, 'gram.txt');
  const ms: Measure[] = [];
  for (let r = 0; r < reps; r++)
    ms.push(
      measure(process.execPath, [cli, 'kernel', 'trees', '--lambda', '0.4', '--threads', '1', trees], { stdout: out }),
    );
  const b = best(ms);
  table(
    ['tool', 'CPU s', 'max RSS MB', 'ratio (SVM-Light-TK 0.18-0.20 s / structrank)'],
    [
      { cells: ['SVM-Light-TK 1.5 (PEERS.md, not run here)', '0.18-0.20', '8-9', '1.00x'] },
      {
        cells: [
          'structrank',
          range(ms.map((m) => m.cpu)),
          b.rssMb.toFixed(0),
          `${(0.18 / b.cpu).toFixed(2)}-${(0.2 / b.cpu).toFixed(2)}x`,
        ],
      },
    ],
  );
}

/** The first n trees of ptb-sample train.mrg with the outer unlabeled bracket removed. */
function firstTrees(n: number): string[] {
  const text = readFileSync(dataFile('ptb-sample', 'train.mrg'), 'utf8');
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length && out.length < n; i++) {
    const c = text[i];
    if (c === '(') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === ')') {
      depth--;
      if (depth === 0) {
        const tree = text.slice(start, i + 1).replace(/\s+/g, ' ');
        const inner = /^\(\s*(\(.*\))\s*\)$/.exec(tree);
        out.push(inner ? inner[1] : tree);
      }
    }
  }
  return out;
}

header();
const peers = ensurePeers();
console.log(
  `peers: CRFsuite ${peers.crfsuite ? 'built from npm crfsuite@1.0.1 sources' : 'MISSING'}; XGBoost ${peers.xgboost ?? 'MISSING'}`,
);
for (const w of workloads) {
  if (w === 'crf') crf(peers, 'crf');
  else if (w === 'ap') crf(peers, 'ap');
  else if (w === 'tag') tag(peers);
  else if (w === 'kernel') kernel();
  else throw new Error(`unknown workload ${w}; workloads: crf, ap, tag, kernel`);
}
console.log(
  `\nload average at the end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
