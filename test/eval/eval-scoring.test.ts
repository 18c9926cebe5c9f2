/**
 * One definition of task scoring (lib/eval/spans.ts, lib/eval/score.ts): spans in every tag
 * scheme against conlleval's rules, and the per-sentence Score that every reranker uses.
 */
import { describe, expect, it } from 'vitest';
import { chunkCounts, conllevalCorpus, ConllevalCounter, type ChunkSentence } from '../../lib/eval/conlleval.js';
import { chunkSpans, detectTagScheme, TAG_SCHEMES, type ChunkSpan, type TagScheme } from '../../lib/eval/spans.js';
import { candidateScore, tagCounts, treeCounts } from '../../lib/eval/score.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { evalbSentence } from '../../lib/eval/evalb.js';
import type { NbestSentence } from '../../lib/io/nbest.js';
import { scoreSet } from '../../lib/pipeline/evaluate.js';
import { sentenceScores } from '../../lib/rerank/perceptron-data.js';
import { sentenceFeatures } from '../../lib/rerank/nbest-features.js';

/** A small deterministic generator (LCG), so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Random non-overlapping spans over n tokens, types X / Y. */
function randomSpans(n: number, next: () => number): ChunkSpan[] {
  const spans: ChunkSpan[] = [];
  let i = 0;
  while (i < n) {
    if (next() < 0.4) {
      i++;
      continue;
    }
    const len = 1 + Math.floor(next() * 3);
    const end = Math.min(n, i + len);
    spans.push({ type: next() < 0.5 ? 'X' : 'Y', start: i, end });
    i = end;
  }
  return spans;
}

/** Encodes spans in a scheme (iob1: B- only where a chunk follows one of its type). */
function encode(spans: readonly ChunkSpan[], n: number, scheme: TagScheme): string[] {
  const tags = new Array<string>(n).fill('O');
  let prevEnd = -1;
  let prevType = '';
  for (const sp of spans) {
    const len = sp.end - sp.start;
    for (let i = sp.start; i < sp.end; i++) {
      const first = i === sp.start;
      const last = i === sp.end - 1;
      let p: string;
      if (scheme === 'iob2') p = first ? 'B' : 'I';
      else if (scheme === 'iob1') p = first && prevEnd === sp.start && prevType === sp.type ? 'B' : 'I';
      else if (scheme === 'iobes') p = len === 1 ? 'S' : first ? 'B' : last ? 'E' : 'I';
      else p = len === 1 ? 'U' : first ? 'B' : last ? 'L' : 'I';
      tags[i] = `${p}-${sp.type}`;
    }
    prevEnd = sp.end;
    prevType = sp.type;
  }
  return tags;
}

describe('chunk spans in every scheme', () => {
  it('decodes what each scheme encodes (2,000 random sentences)', () => {
    const next = rng(7);
    for (let k = 0; k < 2000; k++) {
      const n = 1 + Math.floor(next() * 12);
      const spans = randomSpans(n, next);
      for (const scheme of TAG_SCHEMES) expect(chunkSpans(encode(spans, n, scheme), scheme), scheme).toEqual(spans);
    }
  });

  it('scores IOBES and BILOU data as conlleval scores the same data in IOB2', () => {
    const next = rng(11);
    const sentences = (scheme: TagScheme, pairs: Array<[ChunkSpan[], ChunkSpan[], number]>): ChunkSentence[] =>
      pairs.map(([g, p, n]) => ({ gold: encode(g, n, scheme), predicted: encode(p, n, scheme) }));
    const pairs: Array<[ChunkSpan[], ChunkSpan[], number]> = [];
    for (let k = 0; k < 500; k++) {
      const n = 1 + Math.floor(next() * 12);
      pairs.push([randomSpans(n, next), randomSpans(n, next), n]);
    }
    const reference = conllevalCorpus(sentences('iob2', pairs), { scheme: 'iob2' });
    expect(reference.overall.goldChunks).toBeGreaterThan(500);
    for (const scheme of ['iob1', 'iobes', 'bilou'] as const) {
      const r = conllevalCorpus(sentences(scheme, pairs), { scheme });
      expect({ ...r.overall, accuracy: 0 }, scheme).toEqual({ ...reference.overall, accuracy: 0 });
      expect(Object.keys(r.byType)).toEqual(Object.keys(reference.byType));
    }
  });

  it('the streaming counter and the spans agree, for every scheme, on random (also ill-formed) tags', () => {
    const next = rng(3);
    const prefixes: Record<TagScheme, string[]> = {
      iob1: ['O', 'B', 'I', 'E', 'S', 'L', 'U'],
      iob2: ['O', 'B', 'I', 'E', 'S', 'L', 'U'],
      iobes: ['O', 'B', 'I', 'E', 'S'],
      bilou: ['O', 'B', 'I', 'L', 'U'],
    };
    const key = (s: ChunkSpan) => `${s.type}:${s.start}:${s.end}`;
    for (const scheme of TAG_SCHEMES) {
      for (let k = 0; k < 1500; k++) {
        const n = 1 + Math.floor(next() * 8);
        const tag = () => {
          const p = prefixes[scheme][Math.floor(next() * prefixes[scheme].length)];
          return p === 'O' ? 'O' : `${p}-${next() < 0.5 ? 'X' : 'Y'}`;
        };
        const gold = Array.from({ length: n }, tag);
        const pred = Array.from({ length: n }, tag);
        const g = chunkSpans(gold, scheme);
        const p = chunkSpans(pred, scheme);
        const gk = new Set(g.map(key));
        const correct = p.filter((s) => gk.has(key(s))).length;
        expect(chunkCounts(gold, pred, scheme), `${scheme} ${gold.join(' ')} / ${pred.join(' ')}`).toEqual({
          correct,
          gold: g.length,
          predicted: p.length,
        });
      }
    }
  });

  it("keeps conlleval.pl's reading of E-, S-, L- and U- prefixes in the iob1/iob2 modes", () => {
    // conlleval.pl knows B, I, O, E (IOE's end tag), [ and ]; other prefixes split chunks only by type.
    expect(chunkSpans(['B-X', 'E-X', 'S-X'], 'iob2')).toEqual([{ type: 'X', start: 0, end: 3 }]);
    expect(chunkSpans(['E-X', 'E-X'], 'iob2')).toEqual([
      { type: 'X', start: 0, end: 1 },
      { type: 'X', start: 1, end: 2 },
    ]);
    expect(chunkSpans(['S-X', 'S-X', 'S-Y'], 'iob2')).toEqual([
      { type: 'X', start: 0, end: 2 },
      { type: 'Y', start: 2, end: 3 },
    ]);
    expect(chunkSpans(['U-X', 'U-X', 'O', 'L-X'], 'iob1')).toEqual([
      { type: 'X', start: 0, end: 2 },
      { type: 'X', start: 3, end: 4 },
    ]);
    // ... and the proper schemes split them
    expect(chunkSpans(['B-X', 'E-X', 'S-X'], 'iobes')).toEqual([
      { type: 'X', start: 0, end: 2 },
      { type: 'X', start: 2, end: 3 },
    ]);
    expect(chunkSpans(['U-X', 'U-X', 'O', 'L-X'], 'bilou').length).toBe(3);
    const c = new ConllevalCounter('iob2');
    for (const [g, p] of [
      ['B-X', 'B-X'],
      ['E-X', 'E-X'],
      ['S-X', 'S-X'],
    ])
      c.push(g, p);
    c.boundary();
    expect(c.finish().counts()).toEqual({ correct: 1, gold: 1, predicted: 1 });
  });

  it('detects the scheme of gold tags', () => {
    expect(detectTagScheme([['B-X', 'I-X', 'O']])).toBe('iob2');
    expect(detectTagScheme([['O'], ['B-X', 'E-X', 'S-Y']])).toBe('iobes');
    expect(detectTagScheme([['B-X', 'L-X', 'U-Y']])).toBe('bilou');
    expect(detectTagScheme([['O', 'O']])).toBe('iob2');
    expect(detectTagScheme([['NN', 'VB']])).toBeUndefined();
  });
});

describe('Score: every sentence counts', () => {
  // Sentence 1 has no gold entity; sentence 2 has one.
  const entityLess: NbestSentence = {
    id: 'no-entity',
    line: 0,
    tokens: ['la', 'casa', 'azul'],
    gold: ['O', 'O', 'O'],
    candidates: [
      { tags: ['O', 'B-LOC', 'O'], logprob: -1 },
      { tags: ['O', 'O', 'O'], logprob: -2 },
      { tags: ['B-PER', 'I-PER', 'B-LOC'], logprob: -3 },
    ],
  };
  const withEntity: NbestSentence = {
    id: 'entity',
    line: 0,
    tokens: ['en', 'Madrid', 'hoy'],
    gold: ['O', 'B-LOC', 'O'],
    candidates: [
      { tags: ['O', 'B-LOC', 'B-LOC'], logprob: -1 },
      { tags: ['O', 'B-LOC', 'O'], logprob: -2 },
      { tags: ['O', 'O', 'O'], logprob: -3 },
    ],
  };

  it('ranks invented entities below none, in a sentence without gold entities', () => {
    const scores = entityLess.candidates.map((c) =>
      candidateScore(tagCounts(entityLess.gold as string[], c.tags as string[], 'iob2')),
    );
    expect(scores).toEqual([-50, 0, -100]);
    const withE = withEntity.candidates.map((c) =>
      candidateScore(tagCounts(withEntity.gold as string[], c.tags as string[], 'iob2')),
    );
    expect(withE).toEqual([-50, 0, -50]);
  });

  it('is the same Score in the pipeline, the perceptron rerankers and the feature extraction (boosting, log-linear)', () => {
    const set = scoreSet([entityLess, withEntity]);
    expect(set.scores).toEqual([
      [-50, 0, -100],
      [-50, 0, -50],
    ]);
    expect(sentenceScores(entityLess, '<t>', 'iob2')).toEqual(set.scores[0]);
    expect(sentenceScores(withEntity, '<t>', 'iob2')).toEqual(set.scores[1]);
    expect(sentenceFeatures(entityLess).candidates.map((c) => c.score)).toEqual(set.scores[0]);
    expect(sentenceFeatures(withEntity).candidates.map((c) => c.score)).toEqual(set.scores[1]);
  });

  it('ranks an invented bracket below the exact parse, and equals F1 x |gold| - 100 |gold| when the bracket counts agree', () => {
    const gold = parseTree('(S (NP (DT the) (NN dog)) (VP (VBD ran)))');
    const exact = treeCounts(gold, parseTree('(S (NP (DT the) (NN dog)) (VP (VBD ran)))'));
    const extra = treeCounts(gold, parseTree('(S (NP (DT the) (NN dog)) (VP (VP (VBD ran))))'));
    const swapped = treeCounts(gold, parseTree('(S (NP (DT the) (NN dog)) (NP (VBD ran)))'));
    expect(candidateScore(exact)).toBe(0);
    expect(candidateScore(extra)).toBe(-50);
    const oldScore = (c: typeof exact) => ((200 * c.matched) / (c.gold + c.test)) * c.gold;
    expect(swapped.test).toBe(swapped.gold);
    expect(candidateScore(swapped)).toBeCloseTo(oldScore(swapped) - 100 * swapped.gold, 9);
  });
});

describe('tree counts as EVALB scores the written output', () => {
  it("counts the test tree under the gold's wrapper, whatever wrapper the candidate has", () => {
    const inner = '(S (NP (DT the) (NN dog)) (VP (VBD ran) (ADVP (RB away))))';
    const test = '(S (NP (DT the) (NN dog)) (VP (VBD ran) (NP (RB away))))';
    for (const goldText of [`( ${inner})`, `(ROOT ${inner})`, inner]) {
      const gold = parseTree(goldText);
      const asWritten = evalbSentence(gold, parseTree(goldText.replace(inner, test)));
      for (const candidate of [`(ROOT ${test})`, `( ${test})`, `(TOP ${test})`, test]) {
        const c = treeCounts(gold, parseTree(candidate));
        expect(c).toEqual({ matched: asWritten.matched, gold: asWritten.goldBrackets, test: asWritten.testBrackets });
      }
    }
    // The wrapper is a bracket EVALB matches on both sides: F1 rises, Score(x) stays.
    const wrapped = treeCounts(parseTree(`( ${inner})`), parseTree(`(ROOT ${test})`));
    const bare = treeCounts(parseTree(inner), parseTree(test));
    expect(wrapped).toEqual({ matched: bare.matched + 1, gold: bare.gold + 1, test: bare.test + 1 });
    expect(candidateScore(wrapped)).toBe(candidateScore(bare));
  });
});

describe('failed parses', () => {
  it('a candidate EVALB rejects misses every gold bracket (and so scores below any real parse)', () => {
    const gold = parseTree('(S (NP (DT the) (NN dog)) (VP (VBD ran)))');
    const otherWords = treeCounts(gold, parseTree('(S (NP (DT a) (NN cat)) (VP (VBD ran)))'));
    expect(otherWords).toEqual({ matched: 0, gold: 3, test: 0 });
    expect(treeCounts(gold, undefined)).toEqual({ matched: 0, gold: 3, test: 0 });
    expect(candidateScore(otherWords)).toBe(-150);
    const flat = treeCounts(gold, parseTree('(S (DT the) (NN dog) (VBD ran))'));
    expect(candidateScore(flat)).toBeGreaterThan(candidateScore(otherWords));
  });
});
