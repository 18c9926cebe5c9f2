#!/usr/bin/env node
// Rewrites the generated reference blocks of docs/cli.md and docs/pipeline.md from the option
// declarations (lib/cli/reference.ts, built into dist/). With --check, changes nothing and
// exits 1 when a page is stale. Run `npm run build:ts` first.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { fillBlocks, generatedBlocks } = await import(join(root, 'dist', 'cli', 'reference.js'));
const check = process.argv.includes('--check');
const blocks = await generatedBlocks();
let stale = 0;
for (const page of ['docs/cli.md', 'docs/pipeline.md']) {
  const file = join(root, page);
  const before = readFileSync(file, 'utf8');
  const after = fillBlocks(before, blocks);
  if (after === before) continue;
  if (check) {
    console.error(`${page} is stale: run 'node scripts/cli-docs.mjs'`);
    stale++;
  } else {
    writeFileSync(file, after);
    console.log(`updated ${page}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
