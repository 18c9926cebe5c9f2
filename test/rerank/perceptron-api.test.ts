import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { detectTagScoring, randomFeatureNbest, sentenceScoresFor } from './perceptron-helpers.js';
import { repoRoot, tempDir } from '../helpers.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'perceptron');
const trees = readNbestSync(join(fixtures, 'tiny-trees.jsonl'));
const tags = readNbestSync(join(fixtures, 'tiny-tags.jsonl'));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('perceptron reranker API', () => {
  it('primal and dual forms make identical decisions with the linear kernel', async () => {
    const train = randomFeatureNbest(80, 7);
    const test = randomFeatureNbest(40, 99);
    for (const chunks of [1, 2]) {
      const common = {
        kernel: 'linear' as const,
        epochs: 3,
        chunks,
        seed: 5,
        threads: 2,
        featureSource: 'file' as const,
        beta: 0.5,
      };
      const primal = await PerceptronReranker.train(train, { ...common, primal: true });
      const dual = await PerceptronReranker.train(train, { ...common, primal: false });
      expect(primal.info().mistakes).toBeGreaterThan(0);
      expect(dual.info()).toEqual(primal.info());
      expect([...dual.handle.supportIds()]).toEqual([...primal.handle.supportIds()]);
      for (const prediction of ['last', 'averaged', 'voted'] as const) {
        const a = await primal.choose(test, { prediction });
        const b = await dual.choose(test, { prediction });
        expect([...a.chosen]).toEqual([...b.chosen]);
      }
    }
  });

  it('learns the tiny tree and tag n-best lists (train F1 beats the base model)', async () => {
    for (const [data, kernel] of [
      [trees, 'linear'],
      [tags, 'linear'],
    ] as const) {
      const r = await PerceptronReranker.train(data, { kernel, epochs: 5, threads: 1 });
      const e = await r.evaluate(data);
      expect(e.oracleF1).toBe(100);
      expect(e.baselineF1).toBeLessThan(100);
      expect(e.f1).toBe(100);
    }
    expect(detectTagScoring(tags.map((s) => s.gold as string[]))).toBe('iob2');
  });

  it('scores candidates by EVALB brackets and conlleval chunks: -50 per missed or invented one', () => {
    const s = sentenceScoresFor(trees[0]);
    // gold has 4 brackets (S, NP, VP, NP); the ADJP candidate matches 3 of 4: F1 75.
    expect(s[1]).toBe(0);
    expect(s[0]).toBe(-100);
    const t = sentenceScoresFor(tags[0]);
    expect(t[1]).toBe(0); // 2 gold chunks, all right
  });

  it('saves and loads: same choices and scores; bad files give clear errors', async () => {
    const r = await PerceptronReranker.train(trees, { kernel: 'linear', epochs: 3, prediction: 'voted' });
    const f = tmp.file('m.model');
    r.save(f);
    const back = await PerceptronReranker.load(f);
    expect(back.meta).toEqual(r.meta);
    for (const prediction of ['last', 'averaged', 'voted'] as const) {
      const a = await r.choose(trees, { prediction });
      const b = await back.choose(trees, { prediction });
      expect([...b.chosen]).toEqual([...a.chosen]);
      expect([...b.scores]).toEqual([...a.scores]);
    }
    const bytes = readFileSync(f);
    const truncated = tmp.file('t.model', bytes.subarray(0, bytes.length - 40));
    await expect(PerceptronReranker.load(truncated)).rejects.toThrow(/t\.model: .*(truncated|checksum)/);
    const corrupted = Buffer.from(bytes);
    corrupted[bytes.length - 60] ^= 0x55;
    writeFileSync(tmp.file('c.model'), corrupted);
    await expect(PerceptronReranker.load(tmp.file('c.model'))).rejects.toThrow(/c\.model: .*(corrupted|checksum)/);
    await expect(PerceptronReranker.load(tmp.file('missing.model'))).rejects.toThrow(/no such file/);
  });

  it('reports progress and stops on an AbortSignal', async () => {
    const data = randomFeatureNbest(300, 3);
    const seen: number[] = [];
    await PerceptronReranker.train(data, { kernel: 'linear', epochs: 2, onProgress: (p) => seen.push(p.done) });
    expect(seen.length).toBeGreaterThan(0);
    const controller = new AbortController();
    controller.abort();
    await expect(PerceptronReranker.train(data, { kernel: 'linear', signal: controller.signal })).rejects.toThrow(
      /abort/i,
    );
  });
});
