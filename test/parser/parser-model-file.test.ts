import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { decodeModel } from '../../lib/io/model-file.js';
import { formatTree } from '../../lib/trees/tree.js';
import { ChartParserModel, type ParserTrainSummary } from '../../lib/parser/chart-parser.js';
import { CRF_DEFAULTS } from '../../lib/options/parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { tempDir } from '../helpers.js';
import { gumShortTrees } from './gum-short.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const train = gumShortTrees('train.mrg', 150);
const sentences = gumShortTrees('dev.mrg', 30).map((t) => treeWords(t));

async function nbest(m: ChartParserModel): Promise<string[][]> {
  const r = await m.parseNbest(sentences, 4, { threads: 1 });
  return r.map((s) => s.candidates.map((c) => `${c.logprob} ${formatTree(c.tree)}`));
}

describe('CRF parser model files', () => {
  it('store only non-zero weights (payload 5 on): load(save(m)) parses identically, logprobs to the bit', async () => {
    const summaries: ParserTrainSummary[] = [
      { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 },
      { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 },
    ];
    const models = [
      await ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, weightFloor: 0, summary: summaries[0] }),
      await ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, summary: summaries[1] }),
    ];
    const sizes: number[] = [];
    for (const [i, m] of models.entries()) {
      const file = tmp.file(`crf-${i}.model`);
      m.save(file);
      sizes.push(statSync(file).size);
      const payload = Buffer.from(decodeModel(readFileSync(file)).payload);
      expect(payload.readUInt32LE(0)).toBe(9);
      const back = await ChartParserModel.load(file);
      expect(await nbest(back)).toEqual(await nbest(m));
    }
    // Every one of the 2^22 hashed slots would take 8 bytes (32 MiB); a small treebank touches few.
    const dense = 8 * models[0].info().weights;
    expect(dense).toBeGreaterThan(32 * 2 ** 20);
    expect(sizes[0]).toBeLessThan(dense / 4);
    // The default floor drops the weights nearest zero, and the file shrinks with them.
    expect(CRF_DEFAULTS.weightFloor).toBeGreaterThan(0);
    expect(summaries[0].nonZeroWeights).toBeUndefined();
    expect(summaries[1].nonZeroWeights).toBeGreaterThan(0);
    expect(sizes[1]).toBeLessThan(sizes[0]);
  }, 120_000);

  it('rejects a negative weight floor', async () => {
    await expect(ChartParserModel.train(train.slice(0, 5), { crf: true, epochs: 1, weightFloor: -1 })).rejects.toThrow(
      /weightFloor/,
    );
  });
});
