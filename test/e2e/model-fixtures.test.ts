// Model files committed as fixtures (test/fixtures/models, written by
// scripts/make-model-fixtures.mjs) must load on every platform and with every later version,
// predict what they predicted when written (expected.json), and re-save to the same bytes
// while their format version is unchanged. The release workflow runs this on Linux (glibc,
// musl; x64, arm64), macOS and Windows, which proves the files are host-independent.
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeModel } from '../../lib/io/model-file.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { formatTree, words } from '../../lib/trees/tree.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { loadReranker, saveReranker } from '../../lib/rerank/reranker.js';
import { loadFeatureTable, saveFeatureTable } from '../../lib/rerank/feature-table.js';
import { tableData } from '../../lib/rerank/table-data.js';
import { rerankScores } from '../../lib/rerank/boost.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import { repoRoot, tempDir } from '../helpers.js';

const dir = join(repoRoot, 'test', 'fixtures', 'models');
const fixture = (name: string): string => join(dir, name);
const expected = JSON.parse(readFileSync(fixture('expected.json'), 'utf8')) as {
  taggers: Record<string, string[][]>;
  parsers: Record<string, { tree: string; logprob: number }[]>;
  rerankers: Record<string, number[]>;
  perceptrons: Record<string, { chosen: number[]; scores: number[] }>;
};
const devWords = readTreesSync(fixture('dev.mrg')).map((t) => words(t));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** The container's kind version, and the chart parser's own payload version (its first u32). */
function formatVersion(bytes: Buffer): string {
  const m = decodeModel(bytes);
  const payload = Buffer.from(m.payload);
  return m.kind === 'chart-parser' ? `${m.kindVersion}.${payload.readUInt32LE(0)}` : `${m.kindVersion}`;
}

/** A re-save is byte-identical, unless the current version writes a newer format. */
function expectSameBytes(name: string, resave: (file: string) => void): void {
  const original = readFileSync(fixture(name));
  const file = tmp.file(`resaved-${name.replace(/\//g, '-')}`);
  resave(file);
  const again = readFileSync(file);
  const [was, now] = [formatVersion(original), formatVersion(again)];
  if (was === now) expect(again.equals(original), `${name}: re-save differs from the fixture`).toBe(true);
  else expect(isNewer(now, was), `${name}: format version went from ${was} to ${now}`).toBe(true);
}

function isNewer(now: string, was: string): boolean {
  const [a, b] = [now.split('.').map(Number), was.split('.').map(Number)];
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
}

/** A tagger fixture in format `version`, loaded both ways: tags as when written, re-saves byte for byte. */
async function expectTaggerFixture(name: string, tagger: string, version: string): Promise<void> {
  expect(formatVersion(readFileSync(fixture(name)))).toBe(version);
  for (const loaded of [await Tagger.load(fixture(name)), Tagger.loadSync(fixture(name))]) {
    expect(devWords.map((w) => loaded.tagSync([w.map((word) => [word])])[0])).toEqual(expected.taggers[tagger]);
    expectSameBytes(name, (file) => loaded.save(file));
  }
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

describe('model fixtures written by an earlier build', () => {
  it.each(['tagger-perceptron', 'tagger-crf', 'tagger-maxent'])(
    '%s loads, tags as when written, re-saves byte for byte',
    async (name) => {
      const tagger = await Tagger.load(fixture(`${name}.model`));
      expect(devWords.map((w) => tagger.tagSync([w.map((word) => [word])])[0])).toEqual(expected.taggers[name]);
      expectSameBytes(`${name}.model`, (file) => tagger.save(file));
    },
  );

  it.each(['tagger-perceptron', 'tagger-crf', 'tagger-maxent'])(
    '%s in format 2 loads in place, tags as when written, re-saves byte for byte',
    async (name) => {
      await expectTaggerFixture(`tagger-v2/${name}.model`, name, '2');
    },
  );

  it.each(['tagger-perceptron', 'tagger-crf', 'tagger-maxent'])(
    '%s in format 3 loads in place, tags as when written, re-saves byte for byte; formats 1 and 2 convert to it',
    async (name) => {
      const v3 = `tagger-v3/${name}.model`;
      await expectTaggerFixture(v3, name, '3');
      // The format-1 and format-2 files convert to exactly these bytes.
      for (const older of [`${name}.model`, `tagger-v2/${name}.model`]) {
        const file = tmp.file(`converted-${older.replace(/\//g, '-')}`);
        Tagger.loadSync(fixture(older)).save(file);
        expect(readFileSync(file).equals(readFileSync(fixture(v3))), older).toBe(true);
      }
      expect(readFileSync(fixture(v3)).length).toBeLessThan(readFileSync(fixture(`tagger-v2/${name}.model`)).length);
    },
  );

  it.each(['parser-pcfg', 'parser-crf'])('%s loads, parses as when written, re-saves byte for byte', async (name) => {
    const parser = await ChartParserModel.load(fixture(`${name}.model`));
    const parsed = await parser.parse(devWords, { threads: 1 });
    expect(parsed.map((p) => formatTree(p.tree))).toEqual(expected.parsers[name].map((p) => p.tree));
    parsed.forEach((p, i) =>
      expect(close(p.logprob, expected.parsers[name][i].logprob), `sentence ${i}: ${p.logprob}`).toBe(true),
    );
    expectSameBytes(`${name}.model`, (file) => parser.save(file));
  });

  it('the feature table loads and re-saves byte for byte', () => {
    const table = loadFeatureTable(fixture('features.bin'));
    expect(table.names.length).toBeGreaterThan(100);
    expect(table.sentencePtr.length).toBe(table.ids.length + 1);
    expectSameBytes('features.bin', (file) => saveFeatureTable(file, table));
  });

  it.each(['reranker-boost', 'reranker-loglinear'])(
    '%s loads, scores as when written, re-saves byte for byte',
    async (name) => {
      const table = loadFeatureTable(fixture('features.bin'));
      const r = loadReranker(fixture(`${name}.model`));
      const weightOf = new Map(r.names.map((n, k) => [n, r.weights[k]]));
      const w = Float64Array.from(table.names, (n) => weightOf.get(n) ?? 0);
      const { scores } = rerankScores(await tableData(table, 1), r.a0, w, 1);
      const want = expected.rerankers[name];
      expect(want.length).toBeGreaterThan(0);
      want.forEach((s, i) => expect(close(scores[i], s), `candidate ${i}: ${scores[i]} vs ${s}`).toBe(true));
      expectSameBytes(`${name}.model`, (file) => saveReranker(file, r));
    },
  );

  it.each(['perceptron-tree', 'perceptron-linear'])(
    '%s loads, chooses as when written, re-saves byte for byte',
    async (name) => {
      const p = await PerceptronReranker.load(fixture(`${name}.model`));
      const { chosen, scores } = await p.choose(readNbestSync(fixture('dev.nbest.jsonl')), { threads: 1 });
      expect(Array.from(chosen)).toEqual(expected.perceptrons[name].chosen);
      expected.perceptrons[name].scores.forEach((s, i) => expect(close(scores[i], s), `sentence ${i}`).toBe(true));
      expectSameBytes(`${name}.model`, (file) => p.save(file));
    },
  );
});

// Chart parser payload versions 3 (surface span features, learned unknown-word signatures),
// 4 (the unknown-word shape back-off), 5 (only the CRF's non-zero weights stored), 7 (tag
// sets in the surface features, the surface table in rows), 8 (word clusters in the surface
// features, the CRF trained with clusters) and 9 (the CRF's latent PCFGs, listed in the
// container's kind version 4): fixtures written by each version, which must parse as when
// written and re-save byte for byte (or as a newer version).
describe.each([
  ['parser-v3', '1.3', '1.3'],
  ['parser-v4', '1.4', '1.4'],
  ['parser-v5', '1.5', '1.5'],
  ['parser-v7', '1.7', '1.7'],
  ['parser-v8', '1.8', '1.8'],
  ['parser-v9', '1.9', '4.9'],
])('chart parser fixtures in %s', (folder, pcfgVersion, crfVersion) => {
  const want = JSON.parse(readFileSync(join(dir, folder, 'expected.json'), 'utf8')) as {
    parsers: Record<string, { tree: string; logprob: number }[]>;
  };
  it.each(['parser-pcfg', 'parser-crf'])('%s loads, parses as when written, re-saves byte for byte', async (name) => {
    const file = join(dir, folder, `${name}.model`);
    expect(formatVersion(readFileSync(file))).toBe(name === 'parser-crf' ? crfVersion : pcfgVersion);
    const parser = await ChartParserModel.load(file);
    const parsed = await parser.parse(devWords, { threads: 1 });
    expect(parsed.map((p) => formatTree(p.tree))).toEqual(want.parsers[name].map((p) => p.tree));
    parsed.forEach((p, i) =>
      expect(close(p.logprob, want.parsers[name][i].logprob), `sentence ${i}: ${p.logprob}`).toBe(true),
    );
    expectSameBytes(`${folder}/${name}.model`, (out) => parser.save(out));
  });
});

// Files written before `pruneRetry` existed keep the exhaustive retry with every tag (above);
// asked for the pruned retry, the sentences that take it keep their trees, and their scores
// are over the pruned chart.
describe('chart parser fixture with the pruned retry', () => {
  it('parser-v5 parser-crf: pruneRetry gives the same trees, other scores where the retry ran', async () => {
    const file = join(dir, 'parser-v5', 'parser-crf.model');
    expect(decodeModel<{ pruneRetry?: boolean }>(readFileSync(file)).meta.pruneRetry).toBeUndefined();
    const parser = await ChartParserModel.load(file);
    const exhaustive = await parser.parse(devWords, { threads: 1 });
    const pruned = await parser.parse(devWords, { threads: 1, pruneRetry: true });
    expect(pruned.map((p) => formatTree(p.tree))).toEqual(exhaustive.map((p) => formatTree(p.tree)));
    const changed = pruned.filter((p, i) => !close(p.logprob, exhaustive[i].logprob));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(pruned.length);
    // log Z over a pruned chart is at most the whole chart's: the same tree scores at least as high.
    pruned.forEach((p, i) => expect(p.logprob).toBeGreaterThanOrEqual(exhaustive[i].logprob - 1e-9));
  });
});
