// Hand-computed EVALB cases (COLLINS.prm). Each expected count is worked out in the comment.
import { describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { evalbCorpus, evalbLabel, evalbSentence, parseScore, type EvalbInput } from '../../lib/eval/evalb.js';
import { cFixed } from '../../lib/eval/evalb-format.js';

const f = (s: string) => parseTree(s);
const score = (g: string, t: string | null) => evalbSentence(f(g), t === null ? null : f(t));
const counts = (g: string, t: string) => {
  const s = score(g, t);
  return [s.status, s.matched, s.goldBrackets, s.testBrackets, s.crossing];
};

describe('evalbSentence, hand-computed', () => {
  it('deletes punctuation before computing spans, so spans shift', () => {
    // Kept words: The dog barked (0..3). Gold S[0,3] NP[0,2] VP[2,3]. In the test the comma
    // sits inside NP, but once deleted NP is [0,2] too: 3 of 3. Length counts punctuation: 5.
    const s = score(
      '(S (NP (DT The) (NN dog)) (, ,) (VP (VBD barked)) (. .))',
      '(S (NP (DT The) (NN dog) (, ,)) (VP (VBD barked)) (. .))',
    );
    expect([s.status, s.matched, s.goldBrackets, s.testBrackets, s.length, s.words]).toEqual(['ok', 3, 3, 3, 5, 3]);
    // `` and . move between constituents: NP[0,1] and VP[1,2] on both sides.
    expect(
      counts('(S (`` ``) (NP (PRP He)) (VP (VBD left)) (. .))', '(S (NP (`` ``) (PRP He)) (VP (VBD left) (. .)))'),
    ).toEqual(['ok', 3, 3, 3, 0]);
  });

  it('ignores brackets that cover only deleted words', () => {
    // PRN covers only ':' -> zero length -> dropped: gold S NP VP = 3.
    expect(counts('(S (NP (NN x)) (PRN (: --)) (VP (VB y)))', '(S (NP (NN x)) (: --) (VP (VB y)))')).toEqual([
      'ok',
      3,
      3,
      3,
      0,
    ]);
    // A constituent of traces only is dropped too; length skips -NONE- but counts '.'.
    const s = score(
      '(S (NP-SBJ (-NONE- *)) (VP (VB Go) (ADVP (RB home))) (. .))',
      '(S (VP (VB Go) (ADVP (RB home))) (. .))',
    );
    expect([s.matched, s.goldBrackets, s.testBrackets, s.length, s.words]).toEqual([3, 3, 3, 3, 2]);
  });

  it('matches unary duplicates as multisets', () => {
    // Gold NP[0,1] twice, test once: 3 matched of gold 4, test 3 -> R 75, P 100.
    expect(counts('(S (NP (NP (NN x))) (VP (VB y)))', '(S (NP (NN x)) (VP (VB y)))')).toEqual(['ok', 3, 4, 3, 0]);
    // And the other way round: R 100, P 75.
    expect(counts('(S (NP (NN x)) (VP (VB y)))', '(S (NP (NP (NN x))) (VP (VB y)))')).toEqual(['ok', 3, 3, 4, 0]);
    // Three against two: min = 2 NPs, plus S and VP.
    expect(counts('(S (NP (NP (NP (NN x)))) (VP (VB y)))', '(S (NP (NP (NN x))) (VP (VB y)))')).toEqual([
      'ok',
      4,
      5,
      4,
      0,
    ]);
  });

  it('reports a length mismatch and skips the sentence', () => {
    const s = score('(S (NN a) (NN b))', '(S (NN a) (NN b) (NN c))');
    expect([s.status, s.statusCode, s.message, s.matched, s.goldBrackets, s.length]).toEqual([
      'length-mismatch',
      1,
      'length mismatch (2|3)',
      0,
      0,
      2,
    ]);
    // A punctuation tag on one side only changes the kept length: an error, as in EVALB.
    expect(score('(S (NN a) (. .))', '(S (NN a) (NN .))').status).toBe('length-mismatch');
  });

  it('reports a word mismatch and skips the sentence', () => {
    const s = score('(S (NN a) (NN b))', '(S (NN a) (NN c))');
    expect([s.status, s.statusCode, s.message]).toEqual(['word-mismatch', 1, 'word mismatch at word 2 (b|c)']);
  });

  it('skips an empty test sentence', () => {
    for (const t of [null, [] as const, f('(S (. .))')] as EvalbInput[]) {
      const s = evalbSentence(f('(S (NN a) (NN b))'), t);
      expect([s.status, s.statusCode, s.length]).toEqual(['skipped-empty', 2, 2]);
    }
  });

  it('counts crossing brackets', () => {
    // Words the man saw her. Gold S[0,4] NP[0,2] VP[2,4] NP[3,4]; test S[0,4] X[0,3] NP[3,4].
    // X[0,3] crosses VP[2,4]: 1 crossing; matched S and NP[3,4].
    expect(
      counts(
        '(S (NP (DT the) (NN man)) (VP (VBD saw) (NP (PRP her))))',
        '(S (X (DT the) (NN man) (VBD saw)) (NP (PRP her)))',
      ),
    ).toEqual(['ok', 2, 4, 3, 1]);
    // Gold S[0,4] A[0,2] B[2,4]; test S[0,4] X[0,3] Y[1,3]. X crosses B; Y crosses A and B
    // but counts once: 2 crossings. Only S matches.
    expect(counts('(S (A (P a) (P b)) (B (P c) (P d)))', '(S (X (P a) (Y (P b) (P c))) (P d))')).toEqual([
      'ok',
      1,
      3,
      3,
      2,
    ]);
  });

  it('treats ADVP and PRT as one label, reported under ADVP', () => {
    const s = score('(VP (VB give) (PRT (RP up)))', '(VP (VB give) (ADVP (RP up)))');
    expect([s.matched, s.goldBrackets, s.testBrackets]).toEqual([2, 2, 2]);
    expect(s.byLabel).toEqual({ VP: { gold: 1, test: 1, matched: 1 }, ADVP: { gold: 1, test: 1, matched: 1 } });
  });

  it('cuts labels at the first - or =', () => {
    expect(evalbLabel('NP-SBJ-1')).toBe('NP');
    expect(evalbLabel('NP=2')).toBe('NP');
    expect(evalbLabel('PP-LOC=1')).toBe('PP');
    expect(
      counts(
        '(S (NP-SBJ-1 (PRP I)) (VP (VBD ran) (NP=2 (NN home))))',
        '(S (NP (PRP I)) (VP (VBD ran) (NP (NN home))))',
      ),
    ).toEqual(['ok', 4, 4, 4, 0]);
  });

  it('deletes TOP but counts the unlabeled wrapper and ROOT', () => {
    expect(counts('(TOP (S (NP (PRP I)) (VP (VBD ran))))', '(S (NP (PRP I)) (VP (VBD ran)))')).toEqual([
      'ok',
      3,
      3,
      3,
      0,
    ]);
    expect(counts('( (S (NP (PRP I)) (VP (VBD ran))))', '(S (NP (PRP I)) (VP (VBD ran)))')).toEqual(['ok', 3, 4, 3, 0]);
    expect(counts('( (S (NP (PRP I)) (VP (VBD ran))))', '( (S (NP (PRP I)) (VP (VBD ran))))')).toEqual([
      'ok',
      4,
      4,
      4,
      0,
    ]);
    expect(counts('(ROOT (S (NP (PRP I)) (VP (VBD ran))))', '(ROOT (S (NP (PRP I)) (VP (VBD ran))))')).toEqual([
      'ok',
      4,
      4,
      4,
      0,
    ]);
    expect(counts('(ROOT (S (NP (PRP I)) (VP (VBD ran))))', '( (S (NP (PRP I)) (VP (VBD ran))))')).toEqual([
      'ok',
      3,
      4,
      4,
      0,
    ]);
  });

  it('scores tags over kept words with full tags', () => {
    // the/DT vs the/NN wrong; punctuation deleted, not counted: 2 of 3.
    const s = score(
      '(S (NP (DT the) (NN dog)) (VP (VBZ runs)) (. .))',
      '(S (NP (NN the) (NN dog)) (VP (VBZ runs)) (. .))',
    );
    expect([s.correctTags, s.words, s.matched]).toEqual([2, 3, 3]);
    expect(score('(S (NP (PRP$ his) (NN dog)))', '(S (NP (PRP his) (NN dog)))').correctTags).toBe(1);
  });

  it('scores several bracketed items on one line as one sentence', () => {
    // EVALB's sample line 8: preterminals only, no brackets in the test.
    const s = evalbSentence(f('(S (A (P this)) (B (Q is)))'), [f('(P this)'), f('(Q is)')]);
    expect([s.status, s.matched, s.goldBrackets, s.testBrackets, s.correctTags]).toEqual(['ok', 0, 3, 0, 2]);
  });
});

describe('evalbCorpus, hand-computed', () => {
  const pairs: [string, string | null][] = [
    // A: exact, length 4, 3 brackets, 3/3 tags.
    ['(S (NP (DT the) (NN dog)) (VP (VBZ runs)) (. .))', '(S (NP (DT the) (NN dog)) (VP (VBZ runs)) (. .))'],
    // B: 1 of 3 matched, 2 crossings, length 4, 4/4 tags.
    ['(S (A (P a) (P b)) (B (P c) (P d)))', '(S (X (P a) (Y (P b) (P c))) (P d))'],
    // C: word mismatch (error), length 2.
    ['(S (NN a) (NN b))', '(S (NN a) (NN c))'],
    // D: empty test (skipped), length 2.
    ['(S (NN a) (NN b))', null],
    // E: length 6; S matches; test VP[2,6] crosses gold NP[0,3]: 1 crossing; 6/6 tags.
    [
      '(S (NP (NN a) (NN b) (NN c)) (VP (VB d) (NN e) (NN f)))',
      '(S (NP (NN a) (NN b)) (VP (NN c) (VB d) (NN e) (NN f)))',
    ],
  ];
  const report = evalbCorpus(
    pairs.map(([g, t]) => [f(g), t === null ? null : f(t)] as const),
    { cutoff: 4 },
  );

  it('sums all sentences', () => {
    expect(report.all).toEqual({
      sentences: 5,
      errorSentences: 1,
      skippedSentences: 1,
      validSentences: 3,
      recall: (100 * 5) / 9,
      precision: (100 * 5) / 9,
      f1: expect.closeTo((100 * 5) / 9, 10),
      exactMatch: 100 / 3,
      averageCrossing: 1,
      zeroCrossing: 100 / 3,
      twoOrLessCrossing: 100,
      taggingAccuracy: 100,
      matchedBrackets: 5,
      goldBrackets: 9,
      testBrackets: 9,
    });
  });

  it('sums sentences of length <= cutoff (A to D)', () => {
    expect(report.cutoff).toMatchObject({
      sentences: 4,
      errorSentences: 1,
      skippedSentences: 1,
      validSentences: 2,
      matchedBrackets: 4,
      goldBrackets: 6,
      testBrackets: 6,
      exactMatch: 50,
      averageCrossing: 1,
      zeroCrossing: 50,
      twoOrLessCrossing: 100,
      taggingAccuracy: 100,
    });
    expect(report.cutoff.recall).toBeCloseTo(200 / 3, 10);
  });

  it('counts per label', () => {
    expect(report.byLabel.S).toMatchObject({ gold: 3, test: 3, matched: 3, recall: 100, precision: 100, f1: 100 });
    expect(report.byLabel.NP).toMatchObject({ gold: 2, test: 2, matched: 1, recall: 50 });
    expect(report.byLabel.VP).toMatchObject({ gold: 2, test: 2, matched: 1 });
    expect(report.byLabel.X).toMatchObject({ gold: 0, test: 1, matched: 0, recall: 0, precision: 0, f1: 0 });
    expect(Object.keys(report.byLabel).sort()).toEqual(['A', 'B', 'NP', 'S', 'VP', 'X', 'Y']);
  });
});

describe('parseScore', () => {
  it('is F1 times the number of gold brackets', () => {
    // matched 3, gold 4, test 3: F1 = 200*3/7; times 4.
    expect(parseScore(f('(S (NP (NP (NN x))) (VP (VB y)))'), f('(S (NP (NN x)) (VP (VB y)))'))).toBeCloseTo(
      ((200 * 3) / 7) * 4,
      10,
    );
    expect(parseScore(f('(S (NP (NN x)) (VP (VB y)))'), f('(S (NP (NN x)) (VP (VB y)))'))).toBe(300);
    expect(parseScore(f('(S (NN a) (NN b))'), f('(S (NN a) (NN c))'))).toBe(0);
  });
});

describe('cFixed (printf %.2f)', () => {
  it.each([
    [0.125, '0.12'],
    [0.375, '0.38'],
    [0.625, '0.62'],
    [12.5, '12.50'],
    [(100 * 2) / 3, '66.67'],
    [100, '100.00'],
    [0, '0.00'],
    [1.005, '1.00'],
    [0.135, '0.14'],
    [(100 * 86) / 98, '87.76'],
  ])('%d -> %s', (x, s) => {
    expect(cFixed(x, 2)).toBe(s);
  });
});
