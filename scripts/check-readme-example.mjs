#!/usr/bin/env node
// The README's TypeScript example, as a consumer project would use it: the first ```ts block
// of README.md goes into a fresh folder whose node_modules/structrank is this (built)
// package; it is type-checked with moduleResolution node16 and bundler, compiled, and run.
// Needs `npm run build:ts` and the native addon (build/ or prebuilds/) first.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const block = /```ts\n([\s\S]*?)```/.exec(readme);
if (!block) {
  console.error('README.md has no ```ts block');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'structrank-readme-'));
try {
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'structrank'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-example', private: true, type: 'module' }));
  writeFileSync(join(dir, 'example.ts'), block[1]);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  // The consumer brings @types/node (README: "TypeScript consumers need @types/node").
  const common = [
    '--strict',
    '--target',
    'ES2022',
    '--skipLibCheck',
    'false',
    '--types',
    'node',
    '--typeRoots',
    join(root, 'node_modules', '@types'),
  ];
  execFileSync(
    process.execPath,
    [tsc, ...common, '--module', 'esnext', '--moduleResolution', 'bundler', '--noEmit', 'example.ts'],
    { cwd: dir, stdio: 'inherit' },
  );
  execFileSync(process.execPath, [tsc, ...common, '--module', 'node16', '--moduleResolution', 'node16', 'example.ts'], {
    cwd: dir,
    stdio: 'inherit',
  });
  const out = execFileSync(process.execPath, ['example.js'], { cwd: dir, encoding: 'utf8' });
  process.stdout.write(out);
  if (out.trim() === '') throw new Error('the README example printed nothing');
  console.log('README example: type-checked (node16, bundler), compiled and run');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
