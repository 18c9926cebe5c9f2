#!/usr/bin/env node
// Runs the benchmarks that take a small input (the list below) and fails when one does not finish.
// Benchmarks are not tests (they assert no speed), so nothing else runs them: without this,
// a benchmark broken by a change elsewhere is found only when its figures are next needed.
// Needs dist/ (npm run build:ts), the addon and ../shared/data; `distributed` needs redis-server.
// Usage: node scripts/bench-smoke.mjs [name ...]   (default: all of the list below)
import { spawnSync } from 'node:child_process';

// Each entry: the bench (run as `npm run bench` runs it), its arguments, and the environment
// that makes it small.
const BENCHES = [
  { name: 'kernels' },
  { name: 'columns' },
  { name: 'perceptron', env: { BENCH_TRAIN: '100', BENCH_SUPPORT: '500', BENCH_DEV: '50' } },
  { name: 'tag-perceptron', env: { BENCH_TRAIN: '200', BENCH_DEV: '50' } },
  {
    name: 'taggers',
    env: { BENCH_SENTENCES: '300', BENCH_CRF_ITERS: '5', BENCH_HYBRID_STEPS: '8', BENCH_SGD_EPOCHS: '2' },
  },
  { name: 'boost', args: ['--sentences', '500', '--rounds', '500', '--naive-rounds', '50', '--logloss-rounds', '2'] },
  { name: 'parser', env: { DATASETS: 'ptb-sample', CRF_EPOCHS: '1', CRF_MAX_LEN: '10' } },
  { name: 'parser-extras', env: { VARIANTS: 'base,relax', CRF_EPOCHS: '1' } },
  {
    name: 'distributed',
    args: ['overhead', 'jackknife'],
    env: { BENCH_JOBS: '20', BENCH_TRAIN: '200', BENCH_FOLDS: '2' },
  },
  { name: 'distributed-train', args: ['mixing'] },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !BENCHES.some((b) => b.name === w));
if (unknown.length > 0) {
  console.error(
    `bench-smoke: unknown benchmark ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}`,
  );
  process.exit(2);
}
const failed = [];
for (const b of BENCHES.filter((b) => wanted.length === 0 || wanted.includes(b.name))) {
  console.log(`bench-smoke: ${b.name} ...`);
  const t0 = Date.now();
  const r = spawnSync('node', ['scripts/run-bench.mjs', b.name, ...(b.args ?? [])], {
    env: { ...process.env, ...b.env },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  if (r.status === 0) {
    console.log(`bench-smoke: ${b.name}: ran (${seconds} s)`);
  } else {
    failed.push(b.name);
    console.log(`bench-smoke: ${b.name}: FAILED (exit ${r.status ?? r.signal}, ${seconds} s)`);
    console.log((r.stdout + r.stderr).split('\n').slice(-30).join('\n'));
  }
}
if (failed.length > 0) {
  console.log(`bench-smoke: ${failed.length} failed: ${failed.join(', ')}`);
  process.exit(1);
}
