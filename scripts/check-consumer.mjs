#!/usr/bin/env node
// A fresh consumer project, made as the README says: `npm init -y`, then the README's setup
// lines (the ```sh block after the `<!-- consumer-setup -->` marker), with the packed tarball
// for `structrank` and, for `typescript`, TypeScript 5.x (the newest 5) and the newest
// release. The README's first ```ts block must then type-check with each of them under
// `strict` with `module: nodenext` and with `moduleResolution: bundler`, with no `types`
// setting (TypeScript 6 and later no longer include @types packages by default), and run.
// A second project made by `npm init -y` alone (CommonJS) must load the package with
// require() (Node's require(esm)). Type checks only: install scripts are skipped and the
// addon is not loaded.
//
// Usage: node scripts/check-consumer.mjs [structrank-x.y.z.tgz]   (default: npm pack of this
// checkout, which needs `npm run build:ts` first)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const setup = /<!-- consumer-setup -->\s*(?:<!--[^>]*-->\s*)?```sh\n([\s\S]*?)```/.exec(readme);
const example = /```ts\n([\s\S]*?)```/.exec(readme);
if (!setup || !example) {
  console.error('README.md needs a ```sh block after <!-- consumer-setup --> and a ```ts block');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'structrank-consumer-'));
const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
const typescripts = { ts5: 'typescript@5', 'ts-newest': 'typescript@latest' };

try {
  let tarball = process.argv[2] ? resolve(process.argv[2]) : undefined;
  if (tarball === undefined) {
    const name = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
      cwd: root,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    tarball = join(work, name);
  }

  // 1. The README's project: npm init -y, then its setup lines.
  const project = join(work, 'project');
  mkdirSync(project);
  npm(['init', '-y'], project);
  const lines = setup[1]
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l !== '');
  for (const line of lines) {
    const words = line.split(/\s+/);
    if (words[0] !== 'npm') throw new Error(`README setup line is not an npm command: ${line}`);
    if (words[1] === 'init') continue;
    const args = words
      .slice(1)
      .flatMap((w) =>
        w === 'structrank'
          ? [tarball]
          : w === 'typescript'
            ? Object.entries(typescripts).map(([alias, spec]) => `${alias}@npm:${spec}`)
            : [w],
      );
    if (args[0] === 'install' || args[0] === 'i') args.push('--ignore-scripts');
    console.log(`$ npm ${args.join(' ')}`);
    npm(args, project);
  }
  const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  writeFileSync(join(project, 'example.ts'), example[1]);
  for (const [alias] of Object.entries(typescripts)) {
    const tsc = join(project, 'node_modules', alias, 'bin', 'tsc');
    const version = execFileSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' }).trim();
    for (const [module, resolution] of [
      ['nodenext', 'nodenext'],
      ['preserve', 'bundler'],
    ]) {
      const config = {
        compilerOptions: {
          strict: true,
          module,
          moduleResolution: resolution,
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['example.ts'],
      };
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config, null, 2));
      execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, stdio: 'inherit' });
      console.log(`types: ${version}, strict, module ${module}, moduleResolution ${resolution}: no errors`);
    }
  }
  console.log(`package.json of the README's project: "type": "${pkg.type}"`);

  // 2. A CommonJS project (npm init -y alone): require() loads the ES module.
  const cjs = join(work, 'commonjs');
  mkdirSync(cjs);
  npm(['init', '-y'], cjs);
  npm(['install', tarball, '--ignore-scripts'], cjs);
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      "const s = require('structrank'); const t = require('structrank/trees'); console.log(typeof s.Tagger, typeof t.words)",
    ],
    { cwd: cjs, encoding: 'utf8' },
  ).trim();
  if (out !== 'function function') throw new Error(`require('structrank') in a CommonJS project gave: ${out}`);
  console.log(`CommonJS project (npm init -y): require('structrank') works on Node ${process.versions.node}`);
  console.log(`consumer check passed (${readdirSync(join(project, 'node_modules')).length} packages installed)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
