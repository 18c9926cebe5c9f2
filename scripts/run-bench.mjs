#!/usr/bin/env node
// `npm run bench -- NAME [args]` runs bench/NAME.ts with tsx; without a name it lists them.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const names = readdirSync('bench')
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const [name, ...args] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  console.log(`usage: npm run bench -- <name> [args]\nbenchmarks: ${names.join(', ')}`);
  process.exit(name ? 2 : 0);
}
const r = spawnSync('npx', ['tsx', `bench/${name}.ts`, ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
