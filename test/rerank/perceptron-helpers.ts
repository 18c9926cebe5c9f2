/** Small helpers shared by the perceptron tests. */
import type { NbestSentence } from '../../lib/io/nbest.js';
import { sentenceScores } from '../../lib/rerank/perceptron-data.js';
import { tagScoring as detectTagScoring } from '../../lib/eval/score.js';

export { detectTagScoring };

export function sentenceScoresFor(s: NbestSentence): number[] {
  return sentenceScores(s, '<test>', Array.isArray(s.gold) ? detectTagScoring([s.gold]) : undefined);
}

/** Random sentences with explicit integer features: primal and dual sums are exact. */
export function randomFeatureNbest(n: number, seed: number): NbestSentence[] {
  let x = seed;
  const rand = (k: number): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % k;
  };
  const out: NbestSentence[] = [];
  for (let s = 0; s < n; s++) {
    const m = 2 + rand(5);
    const gold = Array.from({ length: 4 }, () => (rand(2) ? 'B-NP' : 'O'));
    const candidates = Array.from({ length: m }, () => {
      const cand = gold.map((t) => (rand(3) === 0 ? (t === 'O' ? 'B-NP' : 'O') : t));
      const features: Record<string, number> = {};
      for (let k = 0; k < 1 + rand(5); k++) features[`f${rand(30)}`] = 1 + rand(2);
      return { tags: cand, logprob: -rand(10), features };
    });
    out.push({ id: `r${s}`, tokens: ['a', 'b', 'c', 'd'], candidates, gold, line: s + 1 });
  }
  return out;
}
