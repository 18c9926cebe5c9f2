#!/usr/bin/env node
// The code formatters: prettier for TypeScript and JavaScript (.prettierrc.json, .prettierignore),
// clang-format for native/ (.clang-format). `node scripts/format.mjs` rewrites the files;
// `--check` (CI) lists the files that differ and exits 1.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const prettier = spawnSync(
  'npx',
  ['--no-install', 'prettier', check ? '--check' : '--write', '--log-level', 'warn', '.'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);

const cppFiles = execFileSync('git', ['ls-files', 'native/*.cc', 'native/*.h'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const clang = spawnSync('clang-format', [...(check ? ['--dry-run', '--Werror'] : ['-i']), ...cppFiles], {
  cwd: root,
  stdio: 'inherit',
});
if (clang.error) {
  console.error(`format: clang-format not found (${clang.error.message}); install it (apt-get install clang-format)`);
  process.exit(2);
}
const failed = prettier.status !== 0 || clang.status !== 0;
if (check && failed) console.error('format: files differ from the formatters; run `npm run format`');
process.exit(failed ? 1 : 0);
