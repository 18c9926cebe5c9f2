/**
 * Scoring parser output with EVALB semantics (lib/eval/evalb.ts, COLLINS.prm).
 */
import { evalbSentence } from '../eval/evalb.js';
import type { Tree } from '../trees/tree.js';
import type { ChartParserModel } from './chart-parser.js';
import { scoreParses, type ParserEvaluation } from './score-parses.js';

export type { ParserEvaluation } from './score-parses.js';

export interface BracketCounts {
  match: number;
  gold: number;
  test: number;
}

/** EVALB bracket counts of one sentence (0/0/0 when EVALB reports an error). */
export function scoreBrackets(gold: Tree, test: Tree): BracketCounts {
  const s = evalbSentence(gold, test);
  return s.status === 'ok'
    ? { match: s.matched, gold: s.goldBrackets, test: s.testBrackets }
    : { match: 0, gold: 0, test: 0 };
}

export function f1Of(c: BracketCounts): { precision: number; recall: number; f1: number } {
  const precision = c.test ? (100 * c.match) / c.test : 0;
  const recall = c.gold ? (100 * c.match) / c.gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** Parses the gold trees' words (sentences of at most maxLength words) and scores them with EVALB. */
export async function evaluateParser(
  model: ChartParserModel,
  gold: Tree[],
  options: { threads?: number; maxLength?: number; pcfg?: boolean } = {},
): Promise<ParserEvaluation> {
  return scoreParses((sentences, o) => model.parse(sentences, o), gold, options);
}
