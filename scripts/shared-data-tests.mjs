#!/usr/bin/env node
// Prints the test files whose outcome can depend on ../shared/data: those that name it or use
// a test helper that exposes it (test/helpers.ts: dataFile, hasData, describeWithData,
// itWithData, sharedData, missingDataLine), directly or through another helper module.
// The bare-clone check in .ci/run runs only these: no other file reads the shared folder, so
// its result is the one the full run already gave.
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';

const DATA_USE =
  /\b(dataFile|hasData|describeWithData|itWithData|sharedData|missingDataLine)\b|shared[/\\]data|STRUCTRANK_SHARED_DATA/;
// test/ has a folder per lib/ folder; test/fixtures holds data, not tests or helpers.
const tsFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return path === 'test/fixtures' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
const files = [...tsFiles('test'), ...tsFiles('test-support')];
const source = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
// Relative imports of test helpers ('../kernels/kernels-helpers.js' -> test/kernels/kernels-helpers.ts).
const importsOf = (file, text) =>
  [...text.matchAll(/from '(\.\.?\/[\w./-]+?)(?:\.js|\.ts)?'/g)].map(
    (m) => `${posix.join(posix.dirname(file), m[1])}.ts`,
  );

const uses = new Map();
function usesData(file, seen = new Set()) {
  if (uses.has(file)) return uses.get(file);
  if (seen.has(file) || !source.has(file)) return false;
  seen.add(file);
  const text = source.get(file);
  // The accessors' own modules count through the names a file uses, not by themselves.
  const definesAccessors = file === 'test/helpers.ts' || file === 'test-support/shared-data.ts';
  const direct = !definesAccessors && DATA_USE.test(text);
  const result = direct || importsOf(file, text).some((dep) => usesData(dep, seen));
  uses.set(file, result);
  return result;
}

const selected = files.filter((f) => f.endsWith('.test.ts') && usesData(f));
if (selected.length === 0) {
  console.error('shared-data-tests: no test file uses the shared data (the selector is broken)');
  process.exit(1);
}
console.log(selected.join('\n'));
