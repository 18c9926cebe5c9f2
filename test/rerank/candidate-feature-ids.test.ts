import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AbortError } from '../../lib/errors.js';
import { readNbestSync } from '../../lib/io/nbest.js';
import type * as FeatureIds from '../../lib/rerank/candidate-feature-ids.js';
import {
  candidateFeatureIds,
  featureIdRows,
  featureName,
  tableOver,
  trainingTable,
} from '../../lib/rerank/candidate-feature-ids.js';
import { buildFeatureTable, selectFeatures } from '../../lib/rerank/feature-table.js';
import { extractSentences } from '../../lib/rerank/extract.js';
import { learnListSettings } from '../../lib/rerank/tree-settings.js';
import { repoRoot } from '../helpers.js';

const lists = readNbestSync(join(repoRoot, 'test', 'fixtures', 'perceptron', 'tiny-trees.jsonl'));
const settings = learnListSettings(lists)?.settings;

describe('interned candidate features', () => {
  it("hold each candidate's distinct feature names in the extractor's order, with its log-probability", async () => {
    // A copy: the ids of a list are cached per list object.
    const got = await candidateFeatureIds([...lists], settings, { file: '<tiny>', threads: 1 });
    const names = await extractSentences('<tiny>', lists, { settings, threads: 1 });
    const candidates = names.flatMap((s) => s.candidates);
    expect([...got.sentencePtr]).toEqual(
      names.reduce((ptr, s) => [...ptr, ptr[ptr.length - 1] + s.candidates.length], [0]),
    );
    expect(got.rowPtr.length).toBe(candidates.length + 1);
    candidates.forEach((cand, c) => {
      const ids = [...got.cols.subarray(got.rowPtr[c], got.rowPtr[c + 1])];
      expect(ids.map(featureName)).toEqual([...new Set(cand.names)]);
      expect(got.logprob[c]).toBe(cand.logprob);
      expect(got.score[c]).toBe(cand.score);
    });
    // Candidates of a sentence share most features: each row has them all, not only those new to the sentence.
    expect(got.cols.length).toBeGreaterThan(new Set(got.cols).size);
  });

  it('are the same when worker threads intern them (the built worker)', async () => {
    // 80 sentences, so that two threads take the worker path (the worker runs from dist/).
    const many = Array.from({ length: 10 }, (_, r) => lists.map((s) => ({ ...s, id: `${s.id}-${r}` }))).flat();
    const built = (await import(
      pathToFileURL(join(repoRoot, 'dist', 'rerank', 'candidate-feature-ids.js')).href
    )) as typeof FeatureIds;
    const got = await built.candidateFeatureIds(many, settings, { file: '<tiny>', threads: 2 });
    const want = await candidateFeatureIds(many, settings, { file: '<tiny>', threads: 1 });
    expect([...got.sentencePtr]).toEqual([...want.sentencePtr]);
    expect([...got.rowPtr]).toEqual([...want.rowPtr]);
    expect([...got.logprob]).toEqual([...want.logprob]);
    expect([...got.score]).toEqual([...want.score]);
    expect([...got.cols].map(built.featureName)).toEqual([...want.cols].map(featureName));
  });

  it("give the tables of the feature names: the training table with its cutoff, and a dictionary's", async () => {
    const many = Array.from({ length: 3 }, (_, r) => lists.map((s) => ({ ...s, id: `${s.id}-${r}` }))).flat();
    const names = await extractSentences('<tiny>', many, { settings, threads: 1 });
    const rows = { ...(await featureIdRows('<tiny>', many, { settings, threads: 1 })), ids: many.map((s) => s.id) };
    for (const cutoff of [1, 3, 5]) {
      const want = buildFeatureTable(names, selectFeatures(names, cutoff), cutoff);
      const got = await trainingTable(rows, cutoff);
      expect(got.names.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
      // A dictionary in another order, with a name the rows never had.
      const dictionary = ['not a feature', ...want.names.slice().reverse()];
      expect(await tableOver(rows, dictionary)).toEqual(buildFeatureTable(names, dictionary));
    }
  });

  it('stop on an aborted signal', async () => {
    const run = candidateFeatureIds([...lists], settings, { file: '<tiny>', threads: 1, signal: AbortSignal.abort() });
    await expect(run).rejects.toThrow(AbortError);
  });
});
