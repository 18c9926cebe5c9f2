#!/usr/bin/env node
// Writes the model fixtures in test/fixtures/models/: one small model of every kind, trained
// on data/gum-open with the CLI of the current build, plus what each one predicts on held-out
// input (expected.json). test/e2e/model-fixtures.test.ts loads them, checks the predictions, and
// byte-compares a re-save. Run it only to ADD fixtures for a new format version: existing
// files must stay as they are, since they prove that old model files keep loading.
// Usage: npm run build:ts && node scripts/make-model-fixtures.mjs [--out test/fixtures/models]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';

const root = resolve(new URL('..', import.meta.url).pathname);
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, 'test', 'fixtures', 'models'));
// The root entry point and the subpaths the fixtures need (words, tags, n-best and reranker files).
const sr = {};
for (const entry of [
  'index.js',
  'api/trees.js',
  'api/formats.js',
  'api/rerank.js',
  'rerank/table-data.js',
  'rerank/boost.js',
])
  Object.assign(sr, await import(join(root, 'dist', entry)));
const scratch = join(tmpdir(), `structrank-fixtures-${process.pid}`);
mkdirSync(scratch, { recursive: true });
mkdirSync(out, { recursive: true });

const cli = (...args) => {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), ...args, '--threads', '1'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`structrank ${args.join(' ')} failed:\n${r.stderr}`);
};

// Input: the first trees of data/gum-open (redistributable, CC BY). Kept tiny so every
// model stays a few hundred kilobytes at most.
const gum = join(root, 'data', 'gum-open');
const trainTrees = sr.readTreesSync(join(gum, 'train.mrg')).slice(0, 25);
const devTrees = sr
  .readTreesSync(join(gum, 'dev.mrg'))
  .filter((t) => sr.words(t).length <= 20)
  .slice(0, 8);
const writeTrees = (file, trees) => writeFileSync(file, trees.map((t) => sr.formatTree(t)).join('\n') + '\n');
const writeTagged = (file, trees) =>
  writeFileSync(
    file,
    trees
      .map(
        (t) =>
          sr
            .words(t)
            .map((w, i) => `${w} ${sr.tags(t)[i]}`)
            .join('\n') + '\n',
      )
      .join('\n'),
  );
writeTrees(join(scratch, 'train.mrg'), trainTrees);
writeTagged(join(scratch, 'train.conll'), trainTrees);
writeTrees(join(out, 'dev.mrg'), devTrees);
// Tagger templates: a few of each atom kind the payload stores (word functions, shapes, the
// ambiguity-class dictionary `tags`, an edge template), to keep the models small.
const templates = join(scratch, 'templates.json');
writeFileSync(
  templates,
  JSON.stringify({
    templates: [
      ['bias'],
      ['lower(word)[-1]'],
      ['lower(word)'],
      ['lower(word)[1]'],
      ['suffix3(word)'],
      ['shape(word)'],
      ['tags(word)'],
      ['initcap(word)', 'prevtag'],
    ],
  }),
);

const model = (name) => join(out, name);
// Taggers: each algorithm, order 2 for the CRF.
cli(
  'train-tagger',
  '--algo',
  'perceptron',
  '--train',
  join(scratch, 'train.conll'),
  '--columns',
  'word,pos',
  '--label',
  'pos',
  '--template',
  templates,
  '--epochs',
  '3',
  '--model',
  model('tagger-perceptron.model'),
);
cli(
  'train-tagger',
  '--algo',
  'crf',
  '--order',
  '2',
  '--train',
  join(scratch, 'train.conll'),
  '--columns',
  'word,pos',
  '--label',
  'pos',
  '--template',
  templates,
  '--epochs',
  '15',
  '--model',
  model('tagger-crf.model'),
);
cli(
  'train-tagger',
  '--algo',
  'maxent',
  '--train',
  join(scratch, 'train.conll'),
  '--columns',
  'word,pos',
  '--label',
  'pos',
  '--template',
  templates,
  '--epochs',
  '15',
  '--model',
  model('tagger-maxent.model'),
);
// Chart parsers: the PCFG and the CRF-CFG (word clusters of its training words: lexicon and surface features).
cli('train-parser', '--train', join(scratch, 'train.mrg'), '--model', model('parser-pcfg.model'));
cli(
  'train-parser',
  '--train',
  join(scratch, 'train.mrg'),
  '--crf',
  '--epochs',
  '2',
  '--surface-bits',
  '12',
  '--cluster-text',
  'train',
  '--cluster-classes',
  '16',
  '--model',
  model('parser-crf.model'),
);
// N-best lists from the PCFG: training lists for the rerankers (scratch), dev lists (kept).
cli(
  'parse',
  '--model',
  model('parser-pcfg.model'),
  '--input',
  join(scratch, 'train.mrg'),
  '--out',
  join(scratch, 'train.parsed'),
  '--nbest',
  '4',
  '--out-nbest',
  join(scratch, 'train.nbest.jsonl'),
);
cli(
  'parse',
  '--model',
  model('parser-pcfg.model'),
  '--input',
  join(out, 'dev.mrg'),
  '--out',
  join(scratch, 'dev.parsed'),
  '--nbest',
  '4',
  '--out-nbest',
  join(out, 'dev.nbest.jsonl'),
);
// Feature table and rerankers.
cli('features', '--input', join(scratch, 'train.nbest.jsonl'), '--out', model('features.bin'), '--cutoff', '2');
cli(
  'train-reranker',
  '--method',
  'boost',
  '--train',
  model('features.bin'),
  '--rounds',
  '40',
  '--model',
  model('reranker-boost.model'),
);
cli(
  'train-reranker',
  '--method',
  'loglinear',
  '--train',
  model('features.bin'),
  '--rounds',
  '30',
  '--model',
  model('reranker-loglinear.model'),
);
cli(
  'train-reranker',
  '--method',
  'perceptron',
  '--kernel',
  'tree',
  '--train',
  join(scratch, 'train.nbest.jsonl'),
  '--model',
  model('perceptron-tree.model'),
);
cli(
  'train-reranker',
  '--method',
  'perceptron',
  '--kernel',
  'linear',
  '--features',
  'builtin',
  '--train',
  join(scratch, 'train.nbest.jsonl'),
  '--model',
  model('perceptron-linear.model'),
);

// What each model predicts on the dev sentences, recorded now and checked by the test.
const devWords = devTrees.map((t) => sr.words(t));
const expected = { taggers: {}, parsers: {}, rerankers: {}, perceptrons: {} };
for (const name of ['tagger-perceptron', 'tagger-crf', 'tagger-maxent']) {
  const tagger = await sr.Tagger.load(model(`${name}.model`));
  expected.taggers[name] = tagger.tagSync(devWords.map((w) => w.map((word) => [word])));
}
for (const name of ['parser-pcfg', 'parser-crf']) {
  const parser = await sr.ChartParserModel.load(model(`${name}.model`));
  const parsed = await parser.parse(devWords, { threads: 1 });
  expected.parsers[name] = parsed.map((p) => ({ tree: sr.formatTree(p.tree), logprob: p.logprob }));
}
const table = sr.loadFeatureTable(model('features.bin'));
for (const name of ['reranker-boost', 'reranker-loglinear']) {
  const r = sr.loadReranker(model(`${name}.model`));
  const weightOf = new Map(r.names.map((n, k) => [n, r.weights[k]]));
  const w = Float64Array.from(table.names, (n) => weightOf.get(n) ?? 0);
  const { scores } = sr.rerankScores(await sr.tableData(table, 1), r.a0, w, 1);
  expected.rerankers[name] = Array.from(scores.slice(0, 40));
}
const devNbest = sr.readNbestSync(join(out, 'dev.nbest.jsonl'));
for (const name of ['perceptron-tree', 'perceptron-linear']) {
  const p = await sr.PerceptronReranker.load(model(`${name}.model`));
  const { chosen, scores } = await p.choose(devNbest, { threads: 1 });
  expected.perceptrons[name] = { chosen: Array.from(chosen), scores: Array.from(scores) };
}
writeFileSync(join(out, 'expected.json'), JSON.stringify(expected, null, 1) + '\n');
rmSync(scratch, { recursive: true, force: true });
console.log(`wrote fixtures to ${out}`);
