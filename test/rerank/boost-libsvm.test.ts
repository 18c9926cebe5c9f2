import { describe, expect, it } from 'vitest';
import { AbortError } from '../../lib/errors.js';
import {
  buildFeatureTable,
  buildIdFeatureTable,
  decodeFeatureTable,
  encodeFeatureTable,
  selectFeatureIds,
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

  it('select and lay out the same features over interned ids as over names, on random lists', async () => {
    let state = 7;
    const random = (n: number): number => {
      state = (state * 48271) % 2147483647;
      return state % n;
    };
    for (let trial = 0; trial < 20; trial++) {
      const lists = Array.from({ length: 1 + random(30) }, (_, i) => ({
        id: String(i),
        candidates: Array.from({ length: 1 + random(5) }, () => ({
          names: [...new Set(Array.from({ length: random(8) }, () => `f${random(40)}`))],
          logprob: 0,
          score: 0,
        })),
      }));
      const candidates = lists.flatMap((s) => s.candidates);
      const sentencePtr = [0];
      for (const s of lists) sentencePtr.push(sentencePtr[sentencePtr.length - 1] + s.candidates.length);
      const rowPtr = [0];
      for (const c of candidates) rowPtr.push(rowPtr[rowPtr.length - 1] + c.names.length);
      const cols = Int32Array.from(candidates.flatMap((c) => c.names.map((n) => Number(n.slice(1)))));
      for (const cutoff of [1, 2, 3, 5]) {
        const byName = selectFeatures(lists, cutoff);
        const selected = await selectFeatureIds({ sentencePtr, rowPtr, cols }, cutoff);
        expect(selected.map((id) => `f${id}`)).toEqual(byName);
        const expected = buildFeatureTable(lists, byName);
        const zeros = new Float64Array(candidates.length);
        const ids = lists.map((l) => l.id);
        const got = await buildIdFeatureTable(
          { sentencePtr, rowPtr, cols, ids, logprob: zeros, score: zeros },
          selected,
          byName,
        );
        expect([...got.rowPtr]).toEqual([...expected.rowPtr]);
        expect([...got.cols]).toEqual([...expected.cols]);
        expect([...got.sentencePtr]).toEqual([...expected.sentencePtr]);
      }
    }
  });

  it('stop on an aborted signal while selecting and laying out ids', async () => {
    const f = { sentencePtr: [0, 1], rowPtr: [0, 2], cols: Int32Array.of(3, 1) };
    const stopped = AbortSignal.abort();
    await expect(selectFeatureIds(f, 1, stopped)).rejects.toThrow(AbortError);
    const table = { ...f, ids: ['a'], logprob: new Float64Array(1), score: new Float64Array(1) };
    await expect(buildIdFeatureTable(table, [1, 3], ['x', 'y'], stopped)).rejects.toThrow(AbortError);
    expect([...(await buildIdFeatureTable(table, [1, 3], ['x', 'y'])).cols]).toEqual([0, 1]);
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
