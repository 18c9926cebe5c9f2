#!/usr/bin/env node
// Runs the vitest suite and prints the closing `N passed, N failed` line that CI reads.
// Extra arguments are passed to vitest (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const results = '.vitest-results.json';
rmSync(results, { force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', shell: process.platform === 'win32' },  // npx is npx.cmd on Windows
);
if (!existsSync(results)) {
  console.log('0 passed, 1 failed');
  process.exit(run.status || 1);
}
const summary = JSON.parse(readFileSync(results, 'utf8'));
const passed = summary.numPassedTests;
// A test file that fails to load has no failed test of its own: count it once.
const brokenFiles = summary.testResults.filter(
  (file) => file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed'),
).length;
const failed = summary.numFailedTests + brokenFiles;
const skipped = summary.numPendingTests + (summary.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
