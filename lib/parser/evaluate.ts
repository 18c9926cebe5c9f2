/**
 * Scoring parser output with EVALB semantics (lib/eval/evalb.ts, COLLINS.prm).
 */
import { evalbCorpus, evalbSentence } from '../eval/evalb.js';
import type { Tree } from '../trees/tree.js';
import { ROOT_LABELS } from '../trees/transforms.js';
import type { ChartParserModel } from './chart-parser.js';
import { treeWords } from './input.js';

export interface BracketCounts {
  match: number;
  gold: number;
  test: number;
}

/** EVALB bracket counts of one sentence (0/0/0 when EVALB reports an error). */
export function scoreBrackets(gold: Tree, test: Tree): BracketCounts {
  const s = evalbSentence(gold, test);
  return s.status === 'ok' ? { match: s.matched, gold: s.goldBrackets, test: s.testBrackets } : { match: 0, gold: 0, test: 0 };
}

export function f1Of(c: BracketCounts): { precision: number; recall: number; f1: number } {
  const precision = c.test ? (100 * c.match) / c.test : 0;
  const recall = c.gold ? (100 * c.match) / c.gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** `parsed` (under a ROOT wrapper) with the wrapper `like` has: same label, or none. */
export function rewrap(parsed: Tree, like: Tree): Tree {
  const inner = parsed.children.length === 1 ? parsed.children[0] : parsed;
  if (like.word === undefined && ROOT_LABELS.has(like.label) && like.children.length === 1) return { label: like.label, children: [inner] };
  return inner;
}

export interface ParserEvaluation {
  precision: number;
  recall: number;
  f1: number;
  sentences: number;
  /** Sentences EVALB reports as errors (length or word mismatch): always 0 for our output. */
  errors: number;
  fallbacks: number;
}

/** Parses the gold trees' words (sentences of at most maxLength words) and scores them with EVALB. */
export async function evaluateParser(
  model: ChartParserModel,
  gold: Tree[],
  options: { threads?: number; maxLength?: number; pcfg?: boolean } = {},
): Promise<ParserEvaluation> {
  const chosen = gold.filter((t) => {
    const n = treeWords(t).length;
    return n > 0 && (options.maxLength === undefined || n <= options.maxLength);
  });
  const parses = await model.parse(chosen.map((t) => treeWords(t)), { threads: options.threads, pcfg: options.pcfg });
  // Output trees get the gold tree's wrapper (EVALB counts '' and ROOT as brackets).
  const report = evalbCorpus(chosen.map((t, i) => [t, rewrap(parses[i].tree, t)] as const));
  const all = report.all;
  return {
    precision: all.precision,
    recall: all.recall,
    f1: all.f1,
    sentences: chosen.length,
    errors: all.errorSentences,
    fallbacks: parses.filter((p) => p.fallback).length,
  };
}
