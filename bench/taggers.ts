/**
 * Tagger benchmarks: CoNLL-2000 chunking (perceptron, CRF by L-BFGS and SGD, vs CRFsuite in
 * ../shared/PEERS.md), CoNLL-2002 Spanish NER, UD EWT UPOS, tagging throughput and peak
 * memory, 1 vs 2 threads. Training uses the train files only (dev is not added; no early
 * stopping unless a row says so). Each task runs in its own process so its peak RSS is its own.
 *   npx tsx bench/taggers.ts            all tasks
 *   npx tsx bench/taggers.ts chunk-crf  one task
 * BENCH_SENTENCES=N reads only the first N sentences of every file (a quick run: CI's smoke).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readConllSync } from '../lib/io/conll.js';
import { scoreTags } from '../lib/tagger/dev-score.js';
import { Tagger, type TaggerTrainOptions, type TokenRows } from '../lib/tagger/tagger.js';
import { dataFile } from '../test-support/shared-data.js';
import { processorLine } from './processor.js';

interface Result {
  task: string;
  score: string;
  trainWall: number;
  trainCpu: number;
  peer?: string;
  extra?: string;
  rssMb: number;
}

const chunkCols = ['word', 'pos', 'chunk'];

const sentenceCap = Number(process.env.BENCH_SENTENCES ?? 0);
/** The first BENCH_SENTENCES sentences when it is set, else all. */
function capped(rows: TokenRows[]): TokenRows[] {
  return sentenceCap > 0 ? rows.slice(0, sentenceCap) : rows;
}

function conll(file: string): TokenRows[] {
  return capped(readConllSync(file).map((s) => s.rows));
}

/** CoNLL-U -> rows [form, upos]; comments, multiword ranges and empty nodes skipped. */
function conllu(file: string): TokenRows[] {
  const out: TokenRows[] = [];
  let cur: string[][] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') {
      if (cur.length > 0) out.push(cur);
      cur = [];
      continue;
    }
    if (line.startsWith('#')) continue;
    const f = line.split('\t');
    if (f[0].includes('-') || f[0].includes('.')) continue;
    cur.push([f[1], f[3]]);
  }
  if (cur.length > 0) out.push(cur);
  return capped(out);
}

async function timedTrain(
  train: TokenRows[],
  options: TaggerTrainOptions,
): Promise<{ tagger: Tagger; wall: number; cpu: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const tagger = await Tagger.train(train, options);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return { tagger, wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

async function evaluate(tagger: Tagger, test: TokenRows[], labelIndex: number, chunked: boolean): Promise<number> {
  const guess = await tagger.tag(test, { threads: 1 });
  return scoreTags(
    test.map((s) => s.map((r) => r[labelIndex])),
    guess,
    chunked,
  ).value;
}

const rss = (): number => process.resourceUsage().maxRSS / 1024;

const tasks: Record<string, () => Promise<Result>> = {
  async 'chunk-perceptron'() {
    const train = conll(dataFile('conll2000', 'train.txt'));
    const test = conll(dataFile('conll2000', 'test.txt'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'perceptron',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: 10,
      threads: 1,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: 'CoNLL-2000 chunking, averaged perceptron, 10 epochs, 1 thread',
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite AP 10 it.: 8.6 s, F1 93.48',
      rssMb: rss(),
    };
  },
  async 'chunk-crf-lbfgs'() {
    const iters = Number(process.env.BENCH_CRF_ITERS ?? 50);
    const train = conll(dataFile('conll2000', 'train.txt'));
    const test = conll(dataFile('conll2000', 'test.txt'));
    const c2 = Number(process.env.BENCH_CRF_C2 ?? 0.125);
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'crf',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: iters,
      c2,
      threads: 2,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: `CoNLL-2000 chunking, CRF L-BFGS c2=${c2}, ${iters} it., 2 threads`,
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite L-BFGS 50 it.: 33.2 s, F1 93.46',
      rssMb: rss(),
    };
  },
  async 'chunk-crf-hybrid'() {
    const train = conll(dataFile('conll2000', 'train.txt'));
    const test = conll(dataFile('conll2000', 'test.txt'));
    const steps = Number(process.env.BENCH_HYBRID_STEPS ?? 60);
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'crf',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: steps,
      sgdWarmup: 5,
      c2: 0.125,
      threads: 2,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: `CoNLL-2000 chunking, CRF c2=0.125: 5 SGD epochs then ${steps - 5} L-BFGS it., 2 threads`,
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite L-BFGS 50 it.: 33.2 s, F1 93.46',
      rssMb: rss(),
    };
  },
  async 'chunk-crf-sgd'() {
    const epochs = Number(process.env.BENCH_SGD_EPOCHS ?? 20);
    const c2 = Number(process.env.BENCH_SGD_C2 ?? 1);
    const train = conll(dataFile('conll2000', 'train.txt'));
    const test = conll(dataFile('conll2000', 'test.txt'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'crf',
      optimizer: 'sgd',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs,
      c2,
      threads: 1,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: `CoNLL-2000 chunking, CRF SGD c2=${c2}, ${epochs} epochs, 1 thread`,
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite L-BFGS 50 it.: 33.2 s, F1 93.46',
      rssMb: rss(),
    };
  },
  async 'chunk-threads'() {
    // The CRF gradient on 1 vs 2 threads: 10 L-BFGS iterations each.
    const train = conll(dataFile('conll2000', 'train.txt'));
    const one = await timedTrain(train, {
      algo: 'crf',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: 10,
      threads: 1,
    });
    const two = await timedTrain(train, {
      algo: 'crf',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: 10,
      threads: 2,
    });
    return {
      task: 'CoNLL-2000 CRF, 10 L-BFGS it., 1 vs 2 threads',
      score: '-',
      trainWall: two.wall,
      trainCpu: two.cpu,
      extra: `1 thread ${one.wall.toFixed(1)} s wall; 2 threads ${two.wall.toFixed(1)} s: x${(one.wall / two.wall).toFixed(2)}`,
      rssMb: rss(),
    };
  },
  async 'ner-esp'() {
    const cols = ['word', 'pos', 'ne'];
    const train = conll(dataFile('conll2002-esp', 'esp.train'));
    const test = conll(dataFile('conll2002-esp', 'esp.testb'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'perceptron',
      columns: cols,
      label: 'ne',
      templates: 'ner',
      epochs: 10,
      threads: 1,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: 'CoNLL-2002 Spanish NER (testb), averaged perceptron, ner template, 10 epochs',
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      rssMb: rss(),
    };
  },
  async 'ner-esp-crf'() {
    const cols = ['word', 'pos', 'ne'];
    const train = conll(dataFile('conll2002-esp', 'esp.train'));
    const test = conll(dataFile('conll2002-esp', 'esp.testb'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'crf',
      optimizer: 'sgd',
      columns: cols,
      label: 'ne',
      templates: 'ner',
      epochs: 10,
      threads: 1,
    });
    const f1 = await evaluate(tagger, test, 2, true);
    return {
      task: 'CoNLL-2002 Spanish NER (testb), CRF SGD, ner template, 10 epochs',
      score: `F1 ${f1.toFixed(2)}`,
      trainWall: wall,
      trainCpu: cpu,
      rssMb: rss(),
    };
  },
  async 'upos-ewt'() {
    const train = conllu(dataFile('ud-ewt', 'en_ewt-ud-train.conllu'));
    const test = conllu(dataFile('ud-ewt', 'en_ewt-ud-test.conllu'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'perceptron',
      columns: ['word', 'upos'],
      label: 'upos',
      templates: 'pos',
      epochs: 10,
      threads: 1,
    });
    const acc = await evaluate(tagger, test, 1, false);
    return {
      task: 'UD EWT UPOS (test), averaged perceptron, pos template, 10 epochs',
      score: `acc ${acc.toFixed(2)}%`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite AP (simple features): 92.98% in 4.3 s',
      rssMb: rss(),
    };
  },
  async 'upos-ewt-crf'() {
    const train = conllu(dataFile('ud-ewt', 'en_ewt-ud-train.conllu'));
    const test = conllu(dataFile('ud-ewt', 'en_ewt-ud-test.conllu'));
    const { tagger, wall, cpu } = await timedTrain(train, {
      algo: 'crf',
      columns: ['word', 'upos'],
      label: 'upos',
      templates: 'pos',
      epochs: 40,
      sgdWarmup: 5,
      c2: 0.5,
      threads: 2,
    });
    const acc = await evaluate(tagger, test, 1, false);
    return {
      task: 'UD EWT UPOS (test), CRF c2=0.5: 5 SGD epochs + 35 L-BFGS it., pos template, 2 threads',
      score: `acc ${acc.toFixed(2)}%`,
      trainWall: wall,
      trainCpu: cpu,
      peer: 'CRFsuite L-BFGS (simple features): 93.25% in 68.6 s',
      rssMb: rss(),
    };
  },
  async throughput() {
    const train = conll(dataFile('conll2000', 'train.txt'));
    const test = conll(dataFile('conll2000', 'test.txt'));
    const { tagger } = await timedTrain(train, {
      algo: 'crf',
      optimizer: 'sgd',
      columns: chunkCols,
      label: 'chunk',
      templates: 'chunk',
      epochs: 3,
      threads: 1,
    });
    const big: TokenRows[] = [];
    for (let r = 0; r < 10; r++) big.push(...test);
    const tokens = big.reduce((a, s) => a + s.length, 0);
    await tagger.tag(test, { threads: 1 }); // warm-up
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await tagger.tag(big, { threads: 1 });
    const one = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    const oneCpu = (c.user + c.system) / 1e6;
    const t1 = performance.now();
    await tagger.tag(big, { threads: 2 });
    const two = (performance.now() - t1) / 1000;
    return {
      task: 'Tagging throughput, first-order CRF, chunk template (test x10)',
      score: `${(tokens / oneCpu / 1e3).toFixed(0)}k tokens per CPU second (1 thread; wall ${(tokens / one / 1e3).toFixed(0)}k/s)`,
      trainWall: 0,
      trainCpu: 0,
      peer: 'CRFsuite 120-140k tokens/s',
      extra: `2 threads: ${(tokens / two / 1e3).toFixed(0)}k tokens/s wall; ${tokens} tokens incl. feature extraction and the JS-side encoding`,
      rssMb: rss(),
    };
  },
};

async function main(): Promise<void> {
  const wanted = process.argv[2];
  if (wanted && wanted !== '--all') {
    const task = tasks[wanted];
    if (!task) throw new Error(`unknown task ${wanted}; tasks: ${Object.keys(tasks).join(', ')}`);
    console.log(JSON.stringify(await task()));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  console.log(processorLine());
  console.log('| task | score | train wall s | train CPU s | peak RSS MB | peer (PEERS.md) | notes |');
  console.log('|---|---|---|---|---|---|---|');
  for (const name of Object.keys(tasks)) {
    const r = spawnSync(process.execPath, [...process.execArgv, self, name], { encoding: 'utf8', env: process.env });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      const res = JSON.parse(line) as Result;
      console.log(
        `| ${res.task} | ${res.score} | ${res.trainWall ? res.trainWall.toFixed(1) : '-'} | ${res.trainCpu ? res.trainCpu.toFixed(1) : '-'} | ${res.rssMb.toFixed(0)} | ${res.peer ?? ''} | ${res.extra ?? ''} |`,
      );
    } catch {
      console.log(`| ${name} | failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')} | | | | | |`);
      process.exitCode = 1;
    }
  }
}

await main();
