#!/usr/bin/env node
// Prints the test files whose outcome can depend on ../shared/data: those that name it or use
// a test helper that exposes it (test/helpers.ts: dataFile, hasData, describeWithData,
// itWithData, sharedData, missingDataLine), directly or through another helper module.
// The bare-clone check in .ci/run runs only these: no other file reads the shared folder, so
// its result is the one the full run already gave.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'test';
const DATA_USE = /\b(dataFile|hasData|describeWithData|itWithData|sharedData|missingDataLine)\b|shared[/\\]data|STRUCTRANK_SHARED_DATA/;
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
const source = new Map(files.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
// Relative imports inside test/ ('./kernels-helpers.js' -> kernels-helpers.ts).
const importsOf = (text) => [...text.matchAll(/from '\.\/([\w.-]+?)(?:\.js|\.ts)?'/g)].map((m) => `${m[1]}.ts`);

const uses = new Map();
function usesData(file, seen = new Set()) {
  if (uses.has(file)) return uses.get(file);
  if (seen.has(file) || !source.has(file)) return false;
  seen.add(file);
  const text = source.get(file);
  // helpers.ts defines the accessors: it counts through the names a file uses, not by itself.
  const direct = file !== 'helpers.ts' && DATA_USE.test(text);
  const result = direct || importsOf(text).some((dep) => dep !== 'helpers.ts' && usesData(dep, seen));
  uses.set(file, result);
  return result;
}

const selected = files.filter((f) => f.endsWith('.test.ts') && usesData(f)).map((f) => join(dir, f));
if (selected.length === 0) {
  console.error('shared-data-tests: no test file uses the shared data (the selector is broken)');
  process.exit(1);
}
console.log(selected.join('\n'));
