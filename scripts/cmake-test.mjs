#!/usr/bin/env node
// Builds the C++ core and its unit tests with plain CMake (no Node headers), runs ctest,
// and prints a closing `C++: N passed, N failed` line summed over every test executable.
// `--sanitize` builds with AddressSanitizer + UndefinedBehaviorSanitizer.
// `--strict` makes warnings errors and adds -Wpedantic (STRUCTRANK_STRICT).
// `--clang` builds with clang++ at -O1 (a stand-in for Apple clang; build-cmake-clang/).
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const sanitize = process.argv.includes('--sanitize');
const strict = process.argv.includes('--strict');
const clang = process.argv.includes('--clang');
const dir = clang ? 'build-cmake-clang' : sanitize ? 'build-cmake-asan' : 'build-cmake';
const extra = [];
if (strict) extra.push('-DSTRUCTRANK_STRICT=ON');
if (clang)
  extra.push(
    '-DCMAKE_CXX_COMPILER=clang++',
    '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
    '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1',
  );
const jobs = String(Math.max(1, availableParallelism()));
// ctest keeps every test's full output here, passing tests included.
const log = join(dir, 'Testing', 'Temporary', 'LastTest.log');
const steps = [
  ['cmake', ['-S', '.', '-B', dir, `-DSTRUCTRANK_SANITIZE=${sanitize ? 'ON' : 'OFF'}`, ...extra]],
  ['cmake', ['--build', dir, '-j', jobs]],
  ['ctest', ['--test-dir', dir, '--output-on-failure', '-j', jobs]],
];
let status = 0;
for (const [cmd, args] of steps) {
  const r = spawnSync(cmd, args, {
    stdio: 'inherit',
    env: {
      ...process.env,
      ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=1',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
    },
  });
  status = r.status ?? 1;
  if (status !== 0 && cmd !== 'ctest') process.exit(status);
}
let passed = 0;
let failed = 0;
if (existsSync(log)) {
  for (const m of readFileSync(log, 'utf8').matchAll(/^(\d+) passed, (\d+) failed$/gm)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`C++: ${passed} passed, ${failed} failed`);
process.exit(status);
