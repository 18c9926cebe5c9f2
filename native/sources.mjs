#!/usr/bin/env node
// The one C++ source list shared by binding.gyp (node-gyp) and CMakeLists.txt (cmake-js, ctest).
// Every capability lives in its own folder under native/. Conventions:
//   native/binding/*.cc      the N-API layer (the only code that includes napi.h)
//   native/*/*_test.cc       C++ unit tests (one ctest executable each)
//   native/core/test_main.cc the tests' shared main()
//   everything else *.cc     the core library, buildable without Node
// Usage: node native/sources.mjs core|binding|tests [--lines]
import { readdirSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(nativeDir);

function ccFiles(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cc'))
    .sort()
    .map((name) => relative(root, join(dir, name)).split('\\').join('/'));
}

const folders = readdirSync(nativeDir)
  .filter((name) => statSync(join(nativeDir, name)).isDirectory())
  .sort();

const isTest = (path) => path.endsWith('_test.cc') || path.endsWith('/test_main.cc');
const lists = { core: [], binding: [], tests: [] };
for (const folder of folders) {
  for (const path of ccFiles(join(nativeDir, folder))) {
    if (folder === 'binding') lists.binding.push(path);
    else if (isTest(path)) {
      if (path.endsWith('_test.cc')) lists.tests.push(path);
    } else lists.core.push(path);
  }
}

const which = process.argv[2];
if (!(which in lists)) {
  console.error('usage: node native/sources.mjs core|binding|tests [--lines]');
  process.exit(2);
}
process.stdout.write(lists[which].join(process.argv.includes('--lines') ? '\n' : ' ') + '\n');
