#!/usr/bin/env node
// Copies the package without build/ into a temp folder and checks that node-gyp-build
// loads the addon from prebuilds/ there and that the CLI runs.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';

const root = resolve('.');
const dir = mkdtempSync(join(tmpdir(), 'structrank-prebuild-'));
try {
  for (const entry of ['package.json', 'dist', 'prebuilds'])
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const require = createRequire(join(root, 'package.json'));
  const loaded = require('node-gyp-build').path(dir);
  if (!loaded.startsWith(join(dir, 'prebuilds'))) throw new Error(`expected a prebuilt binary, got ${loaded}`);
  const r = spawnSync(process.execPath, [join(dir, 'dist', 'cli.js'), 'info'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`CLI failed from the prebuilt copy: ${r.stderr}`);
  console.log(`prebuilt addon loads: ${loaded}\n${r.stdout.trim()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
