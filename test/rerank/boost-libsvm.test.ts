import { describe, expect, it } from 'vitest';
import {
  buildFeatureTable,
  decodeFeatureTable,
  encodeFeatureTable,
  selectFeatures,
} from '../../lib/rerank/feature-table.js';
import { libsvmText } from '../../lib/rerank/libsvm.js';

const sentences = [
  {
    id: 'a',
    candidates: [
      { names: ['x', 'y'], logprob: -1, score: 10 },
      { names: ['y', 'z'], logprob: -2, score: 4 },
    ],
  },
  { id: 'b', candidates: [{ names: ['x'], logprob: -3, score: 7 }] },
  { id: 'c', candidates: [{ names: ['z', 'x', 'x'], logprob: -0.5, score: 2 }] },
];

describe('feature tables', () => {
  it('apply the sentence-count cutoff and keep first-appearance order', () => {
    expect(selectFeatures(sentences, 1)).toEqual(['x', 'y', 'z']);
    expect(selectFeatures(sentences, 2)).toEqual(['x', 'z']);
    expect(selectFeatures(sentences, 3)).toEqual(['x']);
  });

  it('map names to sorted unique ids, dropping unknown names', () => {
    const t = buildFeatureTable(sentences, ['z', 'x']);
    expect([...t.sentencePtr]).toEqual([0, 2, 3, 4]);
    expect([...t.rowPtr]).toEqual([0, 1, 2, 3, 5]);
    expect([...t.cols]).toEqual([1, 0, 1, 0, 1]);
  });

  it('round-trip through bytes and refuse inconsistent payloads', () => {
    const t = buildFeatureTable(sentences, ['x', 'y', 'z'], 1);
    const { meta, payload } = encodeFeatureTable(t);
    const back = decodeFeatureTable(meta as never, payload);
    expect(back.names).toEqual(t.names);
    expect([...back.cols]).toEqual([...t.cols]);
    expect([...back.score]).toEqual([...t.score]);
    expect(() => decodeFeatureTable(meta as never, payload.subarray(0, payload.length - 4))).toThrow(/truncated/);
  });

  it('export libsvm lines with query ids for ranking peers', () => {
    const t = buildFeatureTable(sentences, ['x', 'y', 'z']);
    expect(libsvmText(t).split('\n').slice(0, 4)).toEqual([
      '10 qid:1 1:-1 2:1 3:1',
      '4 qid:1 1:-2 3:1 4:1',
      '7 qid:2 1:-3 2:1',
      '2 qid:3 1:-0.5 2:1 4:1',
    ]);
  });
});
