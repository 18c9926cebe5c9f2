/** Small helpers shared by the perceptron tests. */
import type { NbestSentence } from '../lib/io/nbest.js';
import { sentenceScores } from '../lib/rerank/perceptron-data.js';
import { tagScoring as detectTagScoring } from '../lib/eval/score.js';

export { detectTagScoring };

export function sentenceScoresFor(s: NbestSentence): number[] {
  return sentenceScores(s, '<test>', Array.isArray(s.gold) ? detectTagScoring([s.gold]) : undefined);
}
