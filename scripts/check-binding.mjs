#!/usr/bin/env node
// Compiles the N-API layer (native/binding/*.cc) with -fsyntax-only and strict warnings:
// -Wall -Wextra -Wpedantic -Werror, C++17 without extensions. The core and its tests are
// covered by `cmake-test.mjs --strict`; this covers the one part that needs Node's headers.
// Usage: node scripts/check-binding.mjs [compiler]   (default clang++; needs npm_config_nodedir
// or /usr/include/node)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const compiler = process.argv[2] ?? 'clang++';
const nodedir = process.env.npm_config_nodedir ?? '/usr';
const nodeHeaders = join(nodedir, 'include', 'node');
if (!existsSync(join(nodeHeaders, 'node_api.h'))) {
  console.error(`no Node headers in ${nodeHeaders}`);
  process.exit(1);
}
const require = createRequire(import.meta.url);
const addonApi = require('node-addon-api').include_dir.replace(/^"|"$/g, '');
const { execFileSync } = await import('node:child_process');
const sources = execFileSync(process.execPath, ['native/sources.mjs', 'binding', '--lines'], { encoding: 'utf8' })
  .trim()
  .split('\n');
const flags = [
  '-fsyntax-only',
  '-std=c++17',
  '-Wall',
  '-Wextra',
  '-Wpedantic',
  '-Werror',
  `-I${nodeHeaders}`,
  `-I${addonApi}`,
  '-Inative',
  '-DNAPI_VERSION=8',
  '-DNAPI_CPP_EXCEPTIONS',
  '-DNODE_ADDON_API_CPP_EXCEPTIONS_ALL',
  '-DNODE_ADDON_API_DISABLE_DEPRECATED',
];

let failed = 0;
const queue = [...sources];
const worker = async () => {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const code = await new Promise((resolve) =>
      spawn(compiler, [...flags, file], { stdio: 'inherit' }).on('close', resolve),
    );
    if (code !== 0) failed++;
  }
};
await Promise.all(Array.from({ length: Math.max(1, availableParallelism()) }, worker));
console.log(`${compiler} -Werror on native/binding: ${sources.length - failed} of ${sources.length} files clean`);
process.exit(failed ? 1 : 0);
