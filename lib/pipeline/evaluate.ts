/**
 * Scores of candidates and systems, with the task scoring of lib/eval/score.ts: match counts
 * of every candidate against the gold (parses: EVALB brackets; chunk/NER tags: conlleval
 * chunks in the gold's scheme; other tags: correct tokens), Score(x) = -50 x (missed +
 * invented), a system's corpus F1 = 200 * matched / (gold + test), the oracle (highest
 * Score, ties by higher L(x)) and the relative error reduction (F_new - F_base) / (100 - F_base).
 */
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import {
  addCounts,
  candidateScore,
  f1,
  scoreFunction,
  listTagScoring,
  tagCounts,
  tagScoring,
  treeCounts,
  type MatchCounts,
  type ScoreKind,
  type TaskScoring,
} from '../eval/score.js';
import type { CandidateSet } from './components.js';
import { InputError } from '../errors.js';
import { baseIndex, oracleIndex } from '../rerank/candidate-order.js';
import { MBR_FEATURES } from '../parser/nbest-lists.js';

export type { MatchCounts } from '../eval/score.js';

/** Counts of every candidate of a sentence against its gold (tags: scored by `scoring`, detected from this sentence's gold when omitted). */
export function candidateCounts(s: NbestSentence, scoring?: Exclude<TaskScoring, 'trees'>): MatchCounts[] {
  if (s.gold === undefined) throw new InputError('', undefined, `sentence ${s.id} has no gold analysis`);
  if (typeof s.gold === 'string') {
    const gold = parseTree(s.gold);
    return s.candidates.map((c) => treeCounts(gold, c.tree === undefined ? undefined : parseTree(c.tree)));
  }
  const gold = s.gold;
  const how = scoring ?? tagScoring([gold]);
  return s.candidates.map((c) => tagCounts(gold, c.tags ?? [], how));
}

/**
 * Parse lists only (tag scoring depends on the whole set's scheme): every candidate's counts
 * as [matched, gold, test] triples per sentence, what a fold step stores beside its lists so
 * the coordinator need not score them again.
 */
export function encodeTreeCounts(sentences: NbestSentence[]): string | undefined {
  if (!sentences.every((s) => typeof s.gold === 'string')) return undefined;
  return JSON.stringify(sentences.map((s) => candidateCounts(s).flatMap((c) => [c.matched, c.gold, c.test])));
}

export function decodeTreeCounts(text: string): MatchCounts[][] | undefined {
  const rows = JSON.parse(text) as unknown;
  if (
    !Array.isArray(rows) ||
    !rows.every((r) => Array.isArray(r) && r.length % 3 === 0 && r.every((x) => Number.isInteger(x)))
  )
    return undefined;
  return (rows as number[][]).map((r) => {
    const out: MatchCounts[] = [];
    for (let k = 0; k < r.length; k += 3) out.push({ matched: r[k], gold: r[k + 1], test: r[k + 2] });
    return out;
  });
}

/** N-best lists with counts and Score(x) of every candidate. */
export interface ScoredSet extends CandidateSet {
  counts: MatchCounts[][];
  /** Sentence lengths in words (for F1 by length). */
  lengths: number[];
}

/** `known`: every candidate's counts when computed before (a fold's `nbest.counts.json`); computed here otherwise, or when they do not fit the lists. */
export function scoreSet(sentences: NbestSentence[], known?: MatchCounts[][]): ScoredSet {
  const scoring = listTagScoring(sentences);
  const fits =
    known !== undefined &&
    known.length === sentences.length &&
    known.every((row, i) => row.length === sentences[i].candidates.length);
  const counts = fits ? known : sentences.map((s) => candidateCounts(s, scoring));
  return {
    sentences,
    counts,
    scores: counts.map((row) => row.map(candidateScore)),
    lengths: sentences.map((s) => s.tokens.length),
  };
}

/** The same set scored by another Score kind (`errors` is what `scoreSet` gives). */
export function rescoreSet(set: ScoredSet, kind: ScoreKind): ScoredSet {
  if (kind === 'errors') return set;
  const score = scoreFunction(kind);
  return { ...set, scores: set.counts.map((row) => row.map(score)) };
}

/** Corpus F1 (percent) of one choice per sentence. */
export function corpusF1(set: ScoredSet, chosen: readonly number[]): number {
  const sum: MatchCounts = { matched: 0, gold: 0, test: 0 };
  set.counts.forEach((row, i) => addCounts(sum, row[chosen[i]] ?? row[0]));
  return f1(sum);
}

/** x_{i,1}: the candidate with the highest Score, ties broken by higher L(x), then earlier. */
export function oracleChoice(set: CandidateSet): number[] {
  return set.sentences.map((s, i) =>
    oracleIndex(
      set.scores[i],
      s.candidates.map((c) => c.logprob),
    ),
  );
}

/**
 * The base model's choice: its highest L(x), ties (to rounding) to the earlier candidate, the
 * order every reranker uses (rerank/candidate-order.ts). Not simply the first candidate: a
 * k-best list's log-probabilities can be out of order in the last bits.
 */
export function baseChoice(set: CandidateSet): number[] {
  return set.sentences.map((s) => baseIndex(s.candidates.map((c) => c.logprob)));
}

/**
 * The parser's own 1-best where the lists carry it (a CRF base's MBR tree, `base.mbr`): in each
 * sentence the candidate marked `MBR tree`; undefined when the set is empty or a sentence has
 * no marked candidate. It is what `parse` outputs, so the rerankers are measured against it too.
 */
export function mbrChoice(set: CandidateSet): number[] | undefined {
  if (set.sentences.length === 0) return undefined;
  const out: number[] = [];
  for (const s of set.sentences) {
    const at = s.candidates.findIndex((c) => (c.features?.[MBR_FEATURES.tree] ?? 0) > 0);
    if (at < 0) return undefined;
    out.push(at);
  }
  return out;
}

/** (F_new - F_base) / (100 - F_base), as a percentage. */
export function relativeErrorReduction(fNew: number, fBase: number): number {
  return fBase >= 100 ? 0 : (100 * (fNew - fBase)) / (100 - fBase);
}

export const LENGTH_BUCKETS: ReadonlyArray<readonly [number, number]> = [
  [1, 10],
  [11, 20],
  [21, 30],
  [31, 40],
  [41, Number.POSITIVE_INFINITY],
];

export function bucketLabel([lo, hi]: readonly [number, number]): string {
  return Number.isFinite(hi) ? `${lo}-${hi}` : `${lo}+`;
}

/** F1 per sentence-length bucket (NaN for an empty bucket) and the sentence count of each. */
export function f1ByLength(
  set: ScoredSet,
  chosen: readonly number[],
  buckets = LENGTH_BUCKETS,
): { f1: number[]; sentences: number[] } {
  const m = buckets.map(() => 0);
  const g = buckets.map(() => 0);
  const t = buckets.map(() => 0);
  const n = buckets.map(() => 0);
  set.counts.forEach((row, i) => {
    const b = buckets.findIndex(([lo, hi]) => set.lengths[i] >= lo && set.lengths[i] <= hi);
    if (b < 0) return;
    const c = row[chosen[i]] ?? row[0];
    m[b] += c.matched;
    g[b] += c.gold;
    t[b] += c.test;
    n[b]++;
  });
  return {
    f1: m.map((x, b) => (n[b] === 0 ? Number.NaN : g[b] + t[b] > 0 ? (200 * x) / (g[b] + t[b]) : 0)),
    sentences: n,
  };
}
