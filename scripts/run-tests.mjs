#!/usr/bin/env node
// Runs the vitest suite and prints the closing `N passed, N failed` line that CI reads.
// Extra arguments are passed to vitest (e.g. a file filter).
// Tests that need data outside the package (../shared/data) stand in as one skipped test
// titled "needs shared data: ..." when it is missing (test/helpers.ts): each distinct line is
// printed once, and with CI set such a skip fails the run (CI must run every test).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const results = '.vitest-results.json';
rmSync(results, { force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', shell: process.platform === 'win32' }, // npx is npx.cmd on Windows
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
const NEEDS_DATA = 'needs shared data:';
const missingData = new Map();
for (const file of summary.testResults) {
  for (const test of file.assertionResults) {
    if (!test.title.startsWith(NEEDS_DATA)) continue;
    const line = test.title.replace(/ \[[^\]]*\]$/, '');
    const seen = missingData.get(line) ?? { groups: 0, notFailed: 0 };
    seen.groups++;
    if (test.status !== 'failed') seen.notFailed++;
    missingData.set(line, seen);
  }
}
const onCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');
for (const [line, seen] of missingData) {
  console.log(
    `${onCi ? 'FAILED (CI=true)' : 'skipped'} ${seen.groups} test group${seen.groups === 1 ? '' : 's'}: ${line}`,
  );
}
// On CI a data skip is a failure, also where a stand-in was skipped instead of failing.
const ciFailures = onCi ? [...missingData.values()].reduce((a, b) => a + b.notFailed, 0) : 0;
console.log(`${passed} passed, ${failed + ciFailures} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 && ciFailures === 0 && passed > 0 ? 0 : 1);
