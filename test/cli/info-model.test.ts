import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { formatTree } from '../../lib/trees/tree.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('structrank info --model', () => {
  it('describes a tagger and a parser model: kind, format, size and the trainer info', () => {
    const rows = 'the DT B-NP\ndog NN I-NP\nbarks VBZ B-VP\n\na DT B-NP\ncat NN I-NP\nsleeps VBZ B-VP\n';
    const train = tmp.file('train.conll', rows.repeat(5));
    const tagger = tmp.file('t.model');
    expect(
      runCli([
        'train-tagger',
        '--algo',
        'perceptron',
        '--train',
        train,
        '--columns',
        'word,pos,chunk',
        '--label',
        'chunk',
        '--epochs',
        '2',
        '--model',
        tagger,
      ]).status,
    ).toBe(0);
    const t = runCli(['info', '--model', tagger, '--json']);
    expect(t.status).toBe(0);
    const ti = JSON.parse(t.stdout) as {
      kind: string;
      kindVersion: number;
      bytes: number;
      info: { algo: string; labels: number; columns: string[] };
    };
    expect(ti.kind).toBe('tagger');
    expect(ti.kindVersion).toBeGreaterThan(0);
    expect(ti.bytes).toBeGreaterThan(0);
    expect(ti.info.algo).toBe('perceptron');
    expect(ti.info.labels).toBe(3);
    expect(ti.info.columns).toEqual(['word', 'pos', 'chunk']);
    const text = runCli(['info', '--model', tagger]);
    expect(text.stdout).toMatch(/t\.model: tagger model \(format \d+\), \d+ bytes/);
    expect(text.stdout).toMatch(/^ {2}algo: perceptron$/m);

    const trees = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg')).slice(0, 60);
    const treebank = tmp.file('train.mrg', trees.map((x) => formatTree(x)).join('\n') + '\n');
    const parser = tmp.file('p.model');
    expect(runCli(['train-parser', '--train', treebank, '--model', parser]).status).toBe(0);
    const p = JSON.parse(runCli(['info', '--model', parser, '--json']).stdout) as {
      kind: string;
      info: { crf: boolean; shapeBackoff: number; binaryRules: number };
    };
    expect(p.kind).toBe('chart-parser');
    expect(p.info.crf).toBe(false);
    expect(p.info.shapeBackoff).toBeGreaterThan(0);
    expect(p.info.binaryRules).toBeGreaterThan(0);
  }, 60_000);

  it('describes every kind of the fixture models (written by an earlier build)', () => {
    const dir = join(repoRoot, 'test', 'fixtures', 'models');
    const kinds: Record<string, string> = {
      'parser-crf.model': 'chart-parser',
      'tagger-maxent.model': 'tagger',
      'reranker-boost.model': 'reranker',
      'reranker-loglinear.model': 'reranker',
      'perceptron-tree.model': 'perceptron-reranker',
      'perceptron-linear.model': 'perceptron-reranker',
    };
    for (const [file, kind] of Object.entries(kinds)) {
      const r = runCli(['info', '--model', join(dir, file), '--json']);
      expect(r.status).toBe(0);
      const m = JSON.parse(r.stdout) as { kind: string; info?: Record<string, unknown> };
      expect(m.kind).toBe(kind);
      expect(Object.keys(m.info ?? {}).length).toBeGreaterThan(3);
    }
    // A feature table is a container file but no model: its kind, without an info block.
    const table = runCli(['info', '--model', join(dir, 'features.bin')]);
    expect(table.status).toBe(0);
    expect(table.stdout.trim()).toMatch(/features\.bin: rerank-features file \(format \d+\), \d+ bytes$/);
  });

  it('a file that is not a model is one error line naming it; without --model the addon is shown', () => {
    const bogus = tmp.file('bogus.model');
    writeFileSync(bogus, 'not a model\n');
    const r = runCli(['info', '--model', bogus]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/bogus\.model/);
    const missing = runCli(['info', '--model', tmp.file('none.model')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/none\.model/);
    expect(JSON.parse(runCli(['info', '--json']).stdout).modules).toContain('lbfgs');
  });
});
