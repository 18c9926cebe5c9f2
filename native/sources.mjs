#!/usr/bin/env node
// The one C++ source list shared by binding.gyp (node-gyp) and CMakeLists.txt (cmake-js, ctest).
// Every capability lives in its own folder under native/. Conventions:
//   native/binding/*.cc      the N-API layer (the only code that includes napi.h)
//   native/*/*_test.cc       C++ unit tests (one ctest executable each)
//   native/core/test_main.cc the tests' shared main()
//   everything else *.cc     the core library, buildable without Node
//
// Optimization: the binding and the core files listed in COMPACT are compiled for size (-Os,
// MSVC /O1): their code runs once per call, corpus or model (reading, building, saving,
// driving a trainer). Every other core file is compiled -O3: a new file is fast unless listed
// here. Measured in docs/benchmarks.md#package (size) and by the benchmarks of each capability
// (no speed lost); a file whose loops show in a profile does not belong in the list.
// Usage: node native/sources.mjs core|fast|compact|binding|tests [--lines]
//   core = fast + compact, the library the C++ tests link.
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

const COMPACT = new Set([
  'native/boost/boost_model.cc',
  'native/boost/rerank_data.cc',
  'native/boost/rerank_eval.cc',
  'native/boost/synthetic_problem.cc',
  'native/chart/crf_shard.cc',
  'native/chart/crf_train.cc',
  'native/chart/crf_train_lbfgs.cc',
  'native/chart/crf_train_stochastic.cc',
  'native/chart/gold_tree.cc',
  'native/chart/grammar.cc',
  'native/chart/lexicon.cc',
  'native/core/csr.cc',
  'native/core/heap_policy.cc',
  'native/core/simd.cc',
  'native/core/thread_pool.cc',
  'native/core/word_signature.cc',
  'native/kernels/bracket_reader.cc',
  'native/kernels/matrix_text.cc',
  'native/kernels/vocabulary.cc',
  'native/perceptron/ranking_set.cc',
  'native/perceptron/reranker_model.cc',
  'native/tagger/train_lbfgs.cc',
  'native/tagger/train_sgd.cc',
  'native/tagger/trainer.cc',
  'native/tagger/training_columns.cc',
]);

const isTest = (path) => path.endsWith('_test.cc') || path.endsWith('/test_main.cc');
const lists = { core: [], fast: [], compact: [], binding: [], tests: [] };
for (const folder of folders) {
  for (const path of ccFiles(join(nativeDir, folder))) {
    if (folder === 'binding') lists.binding.push(path);
    else if (isTest(path)) {
      if (path.endsWith('_test.cc')) lists.tests.push(path);
    } else {
      lists.core.push(path);
      lists[COMPACT.has(path) ? 'compact' : 'fast'].push(path);
    }
  }
}

const which = process.argv[2];
if (!(which in lists)) {
  console.error('usage: node native/sources.mjs core|fast|compact|binding|tests [--lines]');
  process.exit(2);
}
const missing = [...COMPACT].filter((path) => !lists.compact.includes(path));
if (missing.length > 0) {
  console.error(`native/sources.mjs: COMPACT names files that do not exist: ${missing.join(', ')}`);
  process.exit(1);
}
process.stdout.write(lists[which].join(process.argv.includes('--lines') ? '\n' : ' ') + '\n');
