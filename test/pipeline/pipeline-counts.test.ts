/**
 * A parse fold's candidate counts, stored by the fold step (`nbest.counts.json`) so the
 * coordinator does not score the jackknifed lists again: decoded, they give the scored set
 * the coordinator would compute.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { decodeTreeCounts, encodeTreeCounts, scoreSet } from '../../lib/pipeline/evaluate.js';
import { perturbedNbest } from '../rerank/boost-fixture.js';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('stored tree counts', () => {
  it('round-trip to the scored set computed from the lists', () => {
    const file = tmp.file('lists.jsonl');
    perturbedNbest(join(repoRoot, 'data', 'gum-open', 'dev.mrg'), file, 3, 25);
    const lists = readNbestSync(file);
    const text = encodeTreeCounts(lists);
    expect(text).toBeDefined();
    const counts = decodeTreeCounts(text as string);
    expect(scoreSet(lists, counts)).toEqual(scoreSet(lists));
    // Counts of other lists (another length) are not used.
    expect(scoreSet(lists, counts?.slice(1))).toEqual(scoreSet(lists));
  });

  it('tag lists have none (their scoring depends on the whole set), and bad text decodes to nothing', () => {
    expect(
      encodeTreeCounts([
        { id: '1', tokens: ['a'], gold: ['B-NP'], candidates: [{ tags: ['B-NP'], logprob: 0 }], line: 1 },
      ]),
    ).toBeUndefined();
    expect(decodeTreeCounts('[[1, 2]]')).toBeUndefined();
    expect(decodeTreeCounts('{}')).toBeUndefined();
  });
});
