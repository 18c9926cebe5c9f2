/**
 * What `structrank demo` costs from a cold start: `npx tsx bench/demo-time.ts [--threads N]`
 * (needs `npm run build:ts`). Runs the built CLI's demo into a fresh temp folder (nothing
 * cached) under /usr/bin/time and prints its CPU seconds (user + sys of the child and its
 * threads), wall seconds, the parallelism reached (CPU / wall), peak RSS, the load average
 * before and after (a shared machine stretches wall time, not CPU time) and the processor.
 * CPU seconds are the figure to quote: wall on N idle cores is at best CPU / N, reached only
 * when the parallelism printed here is close to N.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const threadsAt = args.indexOf('--threads');
const threads = threadsAt >= 0 ? Number(args[threadsAt + 1]) : cpus().length;

function processor(): string {
  const info = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(info)?.[1] ?? cpus()[0]?.model ?? '?';
  const flags = new Set((/^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? '').split(/\s+/));
  const simd = ['sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512bw', 'avx512vl'].filter((f) => flags.has(f));
  return `${model}, ${cpus().length} cores, ${simd.join(' ')}`;
}

const output = mkdtempSync(join(tmpdir(), 'structrank-demo-time-'));
const load0 = loadavg();
const r = spawnSync(
  '/usr/bin/time',
  [
    '-f',
    'TIME %U %S %e %M',
    process.execPath,
    join(root, 'dist', 'cli.js'),
    'demo',
    '--threads',
    String(threads),
    '--output',
    output,
    '--json',
  ],
  {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  },
);
const load1 = loadavg();
rmSync(output, { recursive: true, force: true });
const m = /^TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/m.exec(r.stderr);
if (r.status !== 0 || !m) {
  console.error(r.stderr.slice(-2000));
  throw new Error(`demo failed (exit ${r.status})`);
}
const [user, sys, wall, rssKb] = m.slice(1).map(Number);
const cpu = user + sys;
console.log(`structrank demo --threads ${threads}, cold (fresh output folder)`);
console.log(
  `  CPU ${cpu.toFixed(0)} s (user ${user.toFixed(0)} + sys ${sys.toFixed(0)}), wall ${wall.toFixed(0)} s, parallelism ${(cpu / wall).toFixed(2)} of ${threads}`,
);
console.log(
  `  peak RSS ${(rssKb / 1024 / 1024).toFixed(2)} GB; load average ${load0[0].toFixed(1)} before, ${load1[0].toFixed(1)} after`,
);
console.log(`  processor: ${processor()}`);
