/**
 * Score(x) against gold (SPEC section 1) and corpus F1 of chosen candidates:
 * parse trees: EVALB F1 (COLLINS.prm) times the number of gold brackets, trivial roots
 * stripped from both sides; chunk / NER tags (IOB1, IOB2 or IOBES): conlleval chunk F1 times
 * the number of gold chunks (lib/eval/conlleval.ts); other tags: the number of correct tags.
 */
import { chunkCounts, type ChunkScheme } from '../eval/conlleval.js';
import { evalbSentence } from '../eval/evalb.js';
import { stripRoot } from '../trees/transforms.js';
import type { Tree } from '../trees/tree.js';

/** How tag sequences are scored. */
export type TagScoring = 'chunks' | 'chunks-iobes' | 'accuracy';

/** Counts summed over sentences; `f1` derives the corpus figure. */
export interface MatchCounts {
  matched: number;
  gold: number;
  test: number;
}

export function f1Of(c: MatchCounts): number {
  return c.gold + c.test === 0 ? 0 : (200 * c.matched) / (c.gold + c.test);
}

export function treeCounts(gold: Tree, test: Tree): MatchCounts {
  const s = evalbSentence(stripRoot(gold), stripRoot(test));
  if (s.status !== 'ok') return { matched: 0, gold: s.goldBrackets, test: 0 };
  return { matched: s.matched, gold: s.goldBrackets, test: s.testBrackets };
}

export function chunkCountsOf(gold: readonly string[], test: readonly string[], scheme: ChunkScheme = 'iob2'): MatchCounts {
  const c = chunkCounts(gold, test, scheme);
  return { matched: c.correct, gold: c.gold, test: c.predicted };
}

export function tagAccuracyCounts(gold: readonly string[], test: readonly string[]): MatchCounts {
  let matched = 0;
  for (let i = 0; i < gold.length; i++) if (gold[i] === test[i]) matched++;
  return { matched, gold: gold.length, test: test.length };
}

/**
 * Chunk scoring when every gold tag is O or carries a B-/I-/E-/S- prefix (IOBES when any
 * E-/S- occurs), else plain tag accuracy.
 */
export function detectTagScoring(golds: Iterable<readonly string[]>): TagScoring {
  let iobes = false;
  for (const g of golds) {
    for (const t of g) {
      if (t !== 'O' && !/^[BIES]-./.test(t)) return 'accuracy';
      if (t.startsWith('E-') || t.startsWith('S-')) iobes = true;
    }
  }
  return iobes ? 'chunks-iobes' : 'chunks';
}

export function tagCounts(gold: readonly string[], test: readonly string[], scoring: TagScoring): MatchCounts {
  if (scoring === 'accuracy') return tagAccuracyCounts(gold, test);
  return chunkCountsOf(gold, test, scoring === 'chunks-iobes' ? 'iobes' : 'iob2');
}

/** Score(x): F1 x |gold| for trees and chunks; correct tags for plain tagging. */
export function scoreOf(c: MatchCounts, scoring: TagScoring | 'trees'): number {
  return scoring === 'accuracy' ? c.matched : f1Of(c) * c.gold;
}
