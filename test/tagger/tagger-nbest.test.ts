/**
 * Tagger as the pipeline's NbestProducer: the k-best tag sequences of pipeline sentences (their
 * CoNLL rows), tagged in batches of 1024, are the lists `tagNbest` gives.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AbortError } from '../../lib/errors.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import type { NbestProducer, PipelineSentence } from '../../lib/training/model-contract.js';

/** Sentences of a small ambiguous NER task: the same name is a person or a place. */
function corpus(n: number, seed: number): string[][][] {
  let s = seed;
  const r = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const out: string[][][] = [];
  for (let i = 0; i < n; i++) {
    const name = pick(['jordan', 'georgia', 'paris']);
    out.push(
      r() < 0.5
        ? [
            [name, 'NNP', 'B-PER'],
            ['said', 'VBD', 'O'],
            ['so', 'RB', 'O'],
          ]
        : [
            [pick(['mary', 'john']), 'NNP', 'B-PER'],
            ['lives', 'VBZ', 'O'],
            ['in', 'IN', 'O'],
            [name, 'NNP', 'B-LOC'],
          ],
    );
  }
  return out;
}

describe('the tagger as NbestProducer', () => {
  let tagger: Tagger;
  // 1100 sentences: a full batch of 1024 and a part one.
  const rows = corpus(1100, 7);
  const sentences: PipelineSentence[] = rows.map((r, i) => ({
    id: `s${i}`,
    tokens: r.map((row) => row[0]),
    gold: r.map((row) => row[2]),
    rows: r,
  }));
  beforeAll(async () => {
    tagger = await Tagger.train(corpus(200, 3), {
      algo: 'crf',
      columns: ['word', 'pos', 'ne'],
      label: 'ne',
      epochs: 5,
      optimizer: 'sgd',
      threads: 1,
    });
  });

  it('gives the k-best lists of tagNbest, with progress per batch', async () => {
    const producer: NbestProducer = tagger;
    const progress: [string, number, number][] = [];
    const got = await producer.nbest(sentences, 3, {
      threads: 1,
      seed: 1,
      progress: (label, done, total) => progress.push([label, done, total]),
    });
    const expected = await tagger.tagNbest(rows, 3, { threads: 1 });
    expect(got.map((s) => s.id)).toEqual(sentences.map((s) => s.id));
    got.forEach((s, i) => {
      expect(s.tokens).toEqual(sentences[i].tokens);
      expect(s.candidates).toEqual(expected[i].map((c) => ({ tags: c.tags, logprob: c.logprob })));
    });
    expect(got[0].candidates.length).toBe(3);
    expect(progress).toEqual([
      ['3-best tags', 1024, 1100],
      ['3-best tags', 1100, 1100],
    ]);
  });

  it('stops with AbortError when cancelled', async () => {
    const signal = AbortSignal.abort();
    await expect(tagger.nbest(sentences, 3, { threads: 1, seed: 1, signal })).rejects.toBeInstanceOf(AbortError);
  });
});
