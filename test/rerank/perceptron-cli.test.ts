import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { formatTree } from '../../lib/trees/tree.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'perceptron');
const treesFile = join(fixtures, 'tiny-trees.jsonl');
const tagsFile = join(fixtures, 'tiny-tags.jsonl');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('structrank train-reranker --method perceptron / rerank', () => {
  it('trains on a tiny tree n-best file, reports dev F1 and writes one chosen tree per line', () => {
    for (const kernel of ['linear', 'tree', 'tree+features']) {
      const model = tmp.file(`trees-${kernel}.model`);
      const kernelArgs =
        kernel === 'tree+features'
          ? ['--kernel', 'tree', '--feature-weight', '0.5', '--head-rules', 'collins']
          : ['--kernel', kernel];
      const t = runCli([
        'train-reranker',
        '--method',
        'perceptron',
        ...kernelArgs,
        '--epochs',
        '5',
        '--voted',
        '--train',
        treesFile,
        '--dev',
        treesFile,
        '--model',
        model,
        '--threads',
        '2',
      ]);
      expect(t.stderr).toBe('');
      expect(t.status).toBe(0);
      expect(t.stdout).toMatch(
        kernel === 'tree+features'
          ? /trained tree-kernel perceptron plus reranking features \(weight 0\.5\) on 8 sentences/
          : /trained .* on 8 sentences/,
      );
      expect(t.stdout).toMatch(/dev \(voted\): F1 100\.00 \(base model \d+\.\d+, oracle 100\.00\) on 8 sentences/);
      const out = tmp.file(`best-${kernel}.mrg`);
      const r = runCli(['rerank', '--model', model, '--input', treesFile, '--out', out]);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/reranked 8 sentences \(24 candidates\)/);
      const golds = readNbestSync(treesFile).map((s) => formatTree(parseTree(s.gold as string)));
      expect(readFileSync(out, 'utf8')).toBe(golds.map((g) => g + '\n').join(''));
    }
  });

  it('writes one CoNLL sentence per chosen tag sequence', () => {
    const model = tmp.file('tags.model');
    const t = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'linear',
      '--epochs',
      '5',
      '--train',
      tagsFile,
      '--dev',
      tagsFile,
      '--model',
      model,
    ]);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/chunk F1 100\.00/);
    const k = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'tags',
      '--lambda',
      '0.5',
      '--beta',
      '0.1',
      '--epochs',
      '4',
      '--train',
      tagsFile,
      '--dev',
      tagsFile,
      '--model',
      tmp.file('tags-kernel.model'),
    ]);
    expect(k.status).toBe(0);
    expect(k.stdout).toMatch(/trained tags-kernel perceptron on 6 sentences/);
    expect(k.stdout).toMatch(/dev \(averaged\): chunk F1 \d+\.\d+/);
    const norm = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'tags',
      '--normalize',
      '--beta',
      '0.001',
      '--epochs',
      '4',
      '--train',
      tagsFile,
      '--dev',
      tagsFile,
      '--model',
      tmp.file('tags-norm.model'),
    ]);
    expect(norm.status).toBe(0);
    expect(norm.stdout).toMatch(/dev \(averaged\): chunk F1 \d+\.\d+/);
    const out = tmp.file('best.conll');
    expect(runCli(['rerank', '--model', model, '--input', tagsFile, '--out', out, '--last']).status).toBe(0);
    const text = readFileSync(out, 'utf8');
    const blocks = text.trimEnd().split('\n\n');
    expect(blocks.length).toBe(6);
    expect(blocks[0]).toBe('the B-NP\nbig I-NP\ndog I-NP\nbarked B-VP');
  });

  it('refuses bad models and bad usage with one-line errors', () => {
    const model = tmp.file('ok.model');
    expect(
      runCli(['train-reranker', '--method', 'perceptron', '--kernel', 'linear', '--train', treesFile, '--model', model])
        .status,
    ).toBe(0);
    const bytes = readFileSync(model);
    const cut = tmp.file('cut.model', bytes.subarray(0, bytes.length >> 1));
    const r = runCli(['rerank', '--model', cut, '--input', treesFile, '--out', tmp.file('x.mrg')]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cut\.model: .*truncated/);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length >> 1] ^= 0xff;
    writeFileSync(tmp.file('flip.model'), flipped);
    const f = runCli(['rerank', '--model', tmp.file('flip.model'), '--input', treesFile, '--out', tmp.file('y.mrg')]);
    expect(f.status).toBe(1);
    expect(f.stderr).toMatch(/flip\.model: .*corrupted/);
    expect(runCli(['train-reranker', '--method', 'perceptron', '--model', model]).status).toBe(2);
    expect(runCli(['train-reranker', '--method', 'nosuch', '--train', treesFile, '--model', model]).status).toBe(2);
    expect(
      runCli(['train-reranker', '--method', 'perceptron', '--kernel', 'rbf', '--train', treesFile, '--model', model])
        .status,
    ).toBe(2);
    const normTree = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'tree',
      '--normalize',
      '--train',
      treesFile,
      '--model',
      model,
    ]);
    expect(normTree.status).toBe(2);
    expect(normTree.stderr).toMatch(/--normalize: normalization applies to the tagging kernel only \(kernel 'tree'\)/);
    const linearFeatures = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'linear',
      '--feature-weight',
      '1',
      '--train',
      treesFile,
      '--model',
      model,
    ]);
    expect(linearFeatures.status).toBe(2);
    expect(linearFeatures.stderr).toMatch(
      /--feature-weight: reranking features are added to the tree or tagging kernel/,
    );
    const tagsWithTree = runCli([
      'train-reranker',
      '--method',
      'perceptron',
      '--kernel',
      'tree',
      '--train',
      tagsFile,
      '--model',
      model,
    ]);
    expect(tagsWithTree.status).toBe(1);
    expect(tagsWithTree.stderr).toMatch(/tree kernel needs tree candidates/);
  });
});
