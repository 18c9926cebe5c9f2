#!/usr/bin/env node
// Smoke test of an *installed* structrank, run from a folder where `npm install <tarball>` put
// it in node_modules/: imports the package the way a user does, checks that the addon came
// from prebuilds/ (not a source build), then trains a tiny tagger and parser, tags and parses
// a sentence, computes a tree kernel, and round-trips a model file.
// Usage: node smoke-installed.mjs <folder holding node_modules/structrank> [--fixtures DIR]
// (copy this file into that folder first: the package is imported by name).
// --fixtures: also load every model in DIR (test/fixtures/models, written on x64) and check
// that a re-save through this platform's build gives the same bytes.
// Exits non-zero with a message on the first failure. Needs no compiler and no network.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';

const folder = resolve(process.argv[2] ?? '.');
const fixturesAt = process.argv.indexOf('--fixtures');
const fixtures = fixturesAt > 0 ? resolve(process.argv[fixturesAt + 1]) : undefined;
const pkgDir = join(folder, 'node_modules', 'structrank');
const fail = (why) => {
  console.error(`smoke test FAILED: ${why}`);
  process.exit(1);
};
if (!existsSync(join(pkgDir, 'package.json'))) fail(`no installed package at ${pkgDir}`);
if (existsSync(join(pkgDir, 'build'))) fail(`${pkgDir}/build exists: the install ran a source build`);

const require = createRequire(join(pkgDir, 'package.json'));
const binary = require('node-gyp-build').path(pkgDir);
if (!binary.startsWith(join(pkgDir, 'prebuilds'))) fail(`addon does not come from prebuilds/: ${binary}`);

// Bare specifiers, resolved through the installed package's `exports` (this script must sit
// in the folder that holds node_modules/).
const sr = {
  ...(await import('structrank')),
  ...(await import('structrank/trees')),
  ...(await import('structrank/rerank')),
  ...(await import('structrank/formats')),
};
console.log(
  `${process.platform}-${process.arch} node ${process.versions.node}: ${binary.slice(pkgDir.length + 1)}, default threads ${sr.defaultThreads()}`,
);

// A tiny treebank shipped with the package (data/gum-open is redistributable).
const trees = sr.readTreesSync(join(pkgDir, 'data', 'gum-open', 'train.mrg')).slice(0, 60);
if (trees.length < 60) fail('could not read data/gum-open/train.mrg');

// Tagger: word -> POS from the trees' preterminals.
const rows = trees.map((t) => {
  const w = sr.words(t);
  const p = sr.tags(t);
  return w.map((word, i) => [word, p[i]]);
});
const tagger = await sr.Tagger.train(rows, {
  algo: 'perceptron',
  columns: ['word', 'pos'],
  label: 'pos',
  epochs: 3,
  threads: 1,
});
const sentence = rows[0];
const [tagged] = await tagger.tag([sentence.map(([word]) => [word])]);
const correct = tagged.filter((tag, i) => tag === sentence[i][1]).length;
if (tagged.length !== sentence.length || correct < sentence.length / 2)
  fail(`tagger got ${correct}/${sentence.length} on a training sentence`);
console.log(`tagger: ${correct}/${sentence.length} tags right on a training sentence`);

// Chart parser (PCFG): parse a training sentence, expect a real tree over the same words.
const parser = await sr.ChartParserModel.train(trees, { threads: 1 });
const [parsed] = await parser.parse([sentence.map(([word]) => word)], { threads: 1 });
if (parsed.fallback || sr.words(parsed.tree).join(' ') !== sentence.map(([w]) => w).join(' '))
  fail('parser returned no tree over the sentence');
console.log(`parser: ${sr.formatTree(parsed.tree).slice(0, 70)}...`);

// Tree kernel: K(x, x) > K(x, y) > 0 for normalized kernels on different trees.
const bank = sr.TreeBank.fromTrees(trees.slice(0, 3));
const kxx = sr.kernel(bank, 0, bank, 0, { lambda: 0.5, normalize: true });
const kxy = sr.kernel(bank, 0, bank, 1, { lambda: 0.5, normalize: true });
if (!(Math.abs(kxx - 1) < 1e-9 && kxy > 0 && kxy < 1)) fail(`tree kernel values K(x,x)=${kxx} K(x,y)=${kxy}`);
console.log(`kernel: K(x,x)=${kxx.toFixed(6)} K(x,y)=${kxy.toFixed(6)}`);

// Model file round trip through the installed package.
const dir = mkdtempSync(join(tmpdir(), 'structrank-smoke-'));
try {
  const file = join(dir, 'tagger.model');
  tagger.save(file);
  const [again] = (await sr.Tagger.load(file)).tagSync([sentence.map(([word]) => [word])]);
  if (again.join(' ') !== tagged.join(' ')) fail('reloaded tagger tags differently');
  console.log(`model file: ${readFileSync(file).length} bytes, reloads and tags the same`);
  if (fixtures) {
    const resavers = [
      [/^tagger-/, (f, out) => sr.Tagger.loadSync(f).save(out)],
      [/^parser-/, (f, out) => sr.ChartParserModel.loadSync(f).save(out)],
      [/^perceptron-/, (f, out) => sr.PerceptronReranker.loadSync(f).save(out)],
      [/^reranker-/, (f, out) => sr.saveReranker(out, sr.loadReranker(f))],
      [/^features\.bin$/, (f, out) => sr.saveFeatureTable(out, sr.loadFeatureTable(f))],
    ];
    let count = 0;
    let upgraded = 0;
    // Subfolders hold fixtures of newer format versions (e.g. parser-v3/).
    for (const name of readdirSync(fixtures, { recursive: true })
      .filter((n) => /\.(model|bin)$/.test(n))
      .sort()) {
      const resave = resavers.find(([pattern]) => pattern.test(basename(name)))?.[1];
      if (!resave) fail(`no loader for fixture ${name}`);
      const out = join(dir, `resaved-${basename(name)}-${count}`);
      resave(join(fixtures, name), out);
      // The rule of test/e2e/model-fixtures.test.ts: byte for byte while the format version is
      // unchanged; a file of an older version re-saves in the newer one, which must load again.
      const [was, now] = [formatVersion(readFileSync(join(fixtures, name))), formatVersion(readFileSync(out))];
      if (was === now) {
        if (!readFileSync(out).equals(readFileSync(join(fixtures, name))))
          fail(`fixture ${name}: re-save on ${process.arch} differs`);
      } else {
        if (!isNewer(now, was)) fail(`fixture ${name}: format version went from ${was} to ${now}`);
        resave(out, join(dir, `again-${basename(name)}-${count}`));
        upgraded++;
      }
      count++;
    }
    if (count < 5) fail(`only ${count} fixtures in ${fixtures}`);
    console.log(
      `model fixtures: ${count} files load; ${count - upgraded} re-save byte for byte, ${upgraded} in a newer format version that loads again, on ${process.platform}-${process.arch}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('smoke test passed');

/** The container's kind version, and the chart parser's own payload version (its first u32). */
function formatVersion(bytes) {
  const m = sr.decodeModel(bytes);
  return m.kind === 'chart-parser' ? `${m.kindVersion}.${Buffer.from(m.payload).readUInt32LE(0)}` : `${m.kindVersion}`;
}

function isNewer(now, was) {
  const [a, b] = [now.split('.').map(Number), was.split('.').map(Number)];
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
}
