/**
 * Task scoring, defined once: per-sentence match counts of a candidate against its gold,
 * the per-sentence Score(x) that rerankers train and select on, and corpus F1.
 *
 * - parse trees: EVALB labeled brackets (COLLINS.prm), trivial roots stripped from both sides;
 * - chunk / entity tags (IOB1, IOB2, IOBES, BILOU; lib/eval/spans.ts): conlleval chunks;
 * - other tags (parts of speech): correct tokens, with gold = test = the number of tokens.
 *
 * Score(x) = 50 x (2 matched - gold - test) = -50 x (missed + invented): minus the errors of
 * the candidate, each missed or invented bracket / entity costing 50 (a wrong tag costs 100:
 * it is both). A perfect candidate scores 0. Unlike F1 x |gold|, which is 0 for every
 * candidate of a sentence without gold entities or brackets, it ranks a candidate that
 * invents an entity below one that does not in every sentence, so every sentence takes part
 * in reranker training and dev selection. Among candidates with as many brackets as the
 * gold (t = g, nearly always so for parses), it equals F1 x |gold| - 100 |gold|: the same
 * order and the same differences as before. It is corpus F1 = 2M / (G + T) linearized at
 * F1 = 100%, so maximizing the summed Score favours precision slightly more than corpus F1
 * at the F1 a real system reaches (a found entity gains as much as an invented one costs).
 */
import { chunkCounts } from './conlleval.js';
import { evalbSentence } from './evalb.js';
import { detectTagScheme, type TagScheme } from './spans.js';
import { withRootOf } from '../trees/transforms.js';
import type { Tree } from '../trees/tree.js';

/** Match counts of one candidate, or summed over sentences. */
export interface MatchCounts {
  /** Matched brackets / chunks / tokens. */
  matched: number;
  /** Gold brackets / chunks / tokens. */
  gold: number;
  /** Brackets / chunks / tokens of the candidate. */
  test: number;
}

/**
 * How a task is scored: `trees` (EVALB brackets), a chunk scheme (conlleval chunks) or
 * `accuracy` (correct tags).
 */
export type TaskScoring = 'trees' | 'accuracy' | TagScheme;

/** Corpus (or sentence) F1 in percent: 200 matched / (gold + test), 0 when both are 0. */
export function f1(c: MatchCounts): number {
  return c.gold + c.test === 0 ? 0 : (200 * c.matched) / (c.gold + c.test);
}

/**
 * Score(x) of one candidate from its counts: -50 x (missed + invented).
 *
 * @example
 * ```ts
 * candidateScore({ matched: 0, gold: 0, test: 1 }); // -50: one invented entity
 * candidateScore({ matched: 2, gold: 2, test: 2 }); // 0: perfect
 * ```
 */
export function candidateScore(c: MatchCounts): number {
  return 50 * (2 * c.matched - c.gold - c.test);
}

/**
 * The per-sentence Scores a reranker can train and select on: `errors` (the default,
 * `candidateScore`) or `f1`, F1 x |gold| (`f1GoldScore`), the Score before `errors` replaced
 * it, kept so that the change can be measured on the same lists.
 */
export const SCORE_KINDS = ['errors', 'f1'] as const;
/** `errors`: -50 x (missed + invented), the default; `f1`: F1 x |gold|, the Score before it. */
export type ScoreKind = (typeof SCORE_KINDS)[number];

/**
 * F1 (percent) x |gold| = 200 matched gold / (gold + test): 0 for every candidate of a sentence
 * without gold brackets or entities, so such sentences cannot rank their candidates. For plain
 * tags (gold = test) it is 100 x the correct tags.
 *
 * @example
 * ```ts
 * f1GoldScore({ matched: 0, gold: 0, test: 1 }); // 0: an invented entity costs nothing
 * f1GoldScore({ matched: 1, gold: 2, test: 2 }); // 100
 * ```
 */
export function f1GoldScore(c: MatchCounts): number {
  return c.gold + c.test > 0 ? (200 * c.matched * c.gold) / (c.gold + c.test) : 0;
}

/** The Score function of a kind (default `errors`). */
export function scoreFunction(kind: ScoreKind = 'errors'): (c: MatchCounts) => number {
  return kind === 'f1' ? f1GoldScore : candidateScore;
}

/** Sums counts. */
export function addCounts(into: MatchCounts, c: MatchCounts): MatchCounts {
  into.matched += c.matched;
  into.gold += c.gold;
  into.test += c.test;
  return into;
}

/**
 * EVALB bracket counts of a parse under the gold tree's root wrapper: what EVALB gives for the
 * gold file and `parse`'s output of it, which copies each input tree's wrapper. The wrapper is
 * a bracket both sides match, so it raises F1 and leaves Score(x) unchanged. A missing parse,
 * or one EVALB rejects (other words, empty), matches nothing and misses every gold bracket
 * (EVALB itself reports 0 gold brackets for a rejected sentence; counting them keeps a failed
 * candidate from scoring as a perfect one).
 */
export function treeCounts(gold: Tree, test: Tree | undefined): MatchCounts {
  const s = test === undefined ? undefined : evalbSentence(gold, withRootOf(test, gold));
  if (s === undefined || s.status !== 'ok')
    return { matched: 0, gold: evalbSentence(gold, gold).goldBrackets, test: 0 };
  return { matched: s.matched, gold: s.goldBrackets, test: s.testBrackets };
}

/** Counts of a tag sequence: conlleval chunks for a chunk scheme, else correct tokens. */
export function tagCounts(
  gold: readonly string[],
  test: readonly string[],
  scoring: Exclude<TaskScoring, 'trees'>,
): MatchCounts {
  if (scoring === 'accuracy') {
    let matched = 0;
    for (let i = 0; i < gold.length; i++) if (gold[i] === test[i]) matched++;
    return { matched, gold: gold.length, test: gold.length };
  }
  const c = chunkCounts(gold, test, scoring);
  return { matched: c.correct, gold: c.gold, test: c.predicted };
}

/** How gold tag sequences are scored: their chunk scheme, or `accuracy` for plain tags. */
export function tagScoring(golds: Iterable<readonly string[]>): Exclude<TaskScoring, 'trees'> {
  return detectTagScheme(golds) ?? 'accuracy';
}

/**
 * One tag scoring for a whole list, from the sentences whose gold is tags (an entity-less
 * sentence says nothing about the scheme); undefined when none has gold tags.
 */
export function listTagScoring(
  sentences: readonly { gold?: string | readonly string[] }[],
): Exclude<TaskScoring, 'trees'> | undefined {
  const golds = sentences.flatMap((s) => (Array.isArray(s.gold) ? [s.gold as readonly string[]] : []));
  return golds.length > 0 ? tagScoring(golds) : undefined;
}
