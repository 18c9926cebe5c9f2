/**
 * EVALB scores of a parser's output on gold trees, given its batch parse function: the CRF
 * trainer (chart-parser.ts) scores its dev set with it, evaluateParser (evaluate.ts) a model.
 */
import { evalbCorpus } from '../eval/evalb.js';
import type { Tree } from '../trees/tree.js';
import { withRootOf } from '../trees/transforms.js';
import { treeWords } from './input.js';

export interface ParserEvaluation {
  precision: number;
  recall: number;
  f1: number;
  sentences: number;
  /** Sentences EVALB reports as errors (length or word mismatch): always 0 for our output. */
  errors: number;
  fallbacks: number;
}

/** A parser's batch parse (ChartParserModel.parse). */
export type ParseSentences = (
  sentences: string[][],
  options: { threads?: number; pcfg?: boolean },
) => Promise<{ tree: Tree; fallback: boolean }[]>;

/** Parses the gold trees' words (sentences of at most maxLength words) and scores them with EVALB. */
export async function scoreParses(
  parse: ParseSentences,
  gold: Tree[],
  options: { threads?: number; maxLength?: number; pcfg?: boolean } = {},
): Promise<ParserEvaluation> {
  const chosen = gold.filter((t) => {
    const n = treeWords(t).length;
    return n > 0 && (options.maxLength === undefined || n <= options.maxLength);
  });
  const parses = await parse(
    chosen.map((t) => treeWords(t)),
    { threads: options.threads, pcfg: options.pcfg },
  );
  // Output trees get the gold tree's wrapper (EVALB counts '' and ROOT as brackets).
  const report = evalbCorpus(chosen.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const));
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
