import { describe, expect, it } from 'vitest';
import { candidateScore, sentenceFeatures } from '../../lib/rerank/nbest-features.js';
import type { NbestSentence } from '../../lib/io/nbest.js';
import { extractSentences } from '../../lib/rerank/extract.js';
import { AbortError } from '../../lib/errors.js';

const gold = '(S (NP (DT The) (NN dog)) (VP (VBD barked)) (. .))';
const sentence: NbestSentence = {
  id: 's1',
  tokens: ['The', 'dog', 'barked', '.'],
  gold,
  line: 3,
  candidates: [
    { tree: gold, logprob: -5 },
    { tree: '(S (NP (DT The)) (VP (NN dog) (VBD barked)) (. .))', logprob: -4 },
    { tree: '(S (NP (DT The) (NN dog)) (VP (VBD barked)) (. .))', logprob: -6, features: { extra: 2 } },
  ],
};

describe('n-best candidates to features and scores', () => {
  it("uses Collins heads for trees, adding a candidate's own features (with thresholds)", () => {
    const f = sentenceFeatures(sentence);
    expect(f.id).toBe('s1');
    expect(f.candidates[0].names).toContain('Rule:S>NP VP* .');
    expect(f.candidates[0].names).toContain('Rule:NP>DT NN*');
    expect(f.candidates[1].names).toContain('Rule:VP>NN VBD*');
    // Its own features add to its tree's, as the pipeline's lists need (the parser's MBR marks).
    expect(f.candidates[2].names).toContain('Rule:S>NP VP* .');
    expect(f.candidates[2].names).toContain('extra|>=2');
    expect(f.candidates[2].names.filter((n) => n.startsWith('extra'))).toEqual(['extra', 'extra|>=2']);
    const own = sentenceFeatures(sentence, { treeFeatures: false });
    expect(own.candidates[2].names).toEqual(['extra', 'extra|>=2']);
    expect(own.candidates[0].names).toEqual([]);
    expect(f.candidates.map((c) => c.logprob)).toEqual([-5, -4, -6]);
  });

  it('Score = -50 x (missed + invented brackets or chunks); plain tags: -100 per wrong tag', () => {
    const f = sentenceFeatures(sentence);
    expect(f.candidates[0].score).toBe(0); // S, NP, VP all right
    // Candidate 2 brackets: S(0,3) NP(0,1) VP(1,3) vs gold S(0,3) NP(0,2) VP(2,3): 1 of 3 matched.
    expect(f.candidates[1].score).toBe(-200); // 2 missed, 2 invented
    const tags: NbestSentence = {
      id: 't',
      tokens: ['a', 'b', 'c'],
      gold: ['B-NP', 'I-NP', 'O'],
      line: 1,
      candidates: [
        { tags: ['B-NP', 'I-NP', 'O'], logprob: 0 },
        { tags: ['B-NP', 'B-NP', 'O'], logprob: 0 },
      ],
    };
    expect(candidateScore(tags, 0)).toBe(0);
    expect(candidateScore(tags, 1)).toBe(-150); // NP(0-2) missed, NP(0) and NP(1) invented
    const pos: NbestSentence = {
      id: 'p',
      tokens: ['a', 'b'],
      gold: ['DT', 'NN'],
      line: 1,
      candidates: [{ tags: ['DT', 'VB'], logprob: 0 }],
    };
    expect(candidateScore(pos, 0)).toBe(-100);
    expect(Number.isNaN(candidateScore({ ...pos, gold: undefined }, 0))).toBe(true);
  });

  it('stops on an abort that arrives from the event loop during single-threaded extraction', async () => {
    // A Ctrl-C is an event: a loop that never yields would run to its end before seeing it.
    const sentences = Array.from({ length: 400 }, (_, i) => ({ ...sentence, id: `s${i}` }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    let seen = 0;
    const run = extractSentences('<list>', sentences, {
      threads: 1,
      signal: controller.signal,
      onSentence: () => {
        seen++;
        const until = Date.now() + 1;
        while (Date.now() < until); // about 1 ms of work per sentence: at least 400 ms in all
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(sentences.length);
  });
});
