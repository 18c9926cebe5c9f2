/**
 * Scores of candidates and systems. Every candidate gets match counts against the gold:
 * parses EVALB labeled brackets (COLLINS.prm, trivial roots stripped from both sides),
 * chunk/NER tags conlleval chunks (IOB2), other tags correct tokens. From the counts:
 * Score(x) = F1(x) * |gold| (SPEC section 1; plain tags: the number of correct tags), a
 * system's corpus F1 = 200 * matched / (gold + test), the oracle (highest Score, ties by
 * higher L(x)) and the relative error reduction (F_new - F_base) / (100 - F_base).
 */
import { chunkCounts } from '../eval/conlleval.js';
import { evalbSentence } from '../eval/evalb.js';
import type { NbestSentence } from '../io/nbest.js';
import { parseTree } from '../trees/bracket-parser.js';
import { stripRoot } from '../trees/transforms.js';
import type { CandidateSet } from './components.js';
import { baseIndex, oracleIndex } from '../rerank/candidate-order.js';

/** Match counts of one candidate: for tags without chunks, matched = correct tags and gold = test = tokens. */
export interface MatchCounts {
  matched: number;
  gold: number;
  test: number;
}

const isChunkTag = (t: string): boolean => t === 'O' || /^[BIES]-/.test(t);

/** Whether gold tags are chunk/entity tags (IOB), scored by conlleval chunks. */
export function isChunkTagging(gold: readonly string[]): boolean {
  return gold.length > 0 && gold.every(isChunkTag) && gold.some((t) => t !== 'O');
}

/** Counts of every candidate of a sentence against its gold. */
export function candidateCounts(s: NbestSentence, chunked?: boolean): MatchCounts[] {
  if (s.gold === undefined) throw new Error(`sentence ${s.id} has no gold analysis`);
  if (typeof s.gold === 'string') {
    const gold = stripRoot(parseTree(s.gold));
    const goldBrackets = evalbSentence(gold, gold).goldBrackets;
    return s.candidates.map((c) => {
      if (c.tree === undefined) return { matched: 0, gold: goldBrackets, test: 0 };
      const r = evalbSentence(gold, stripRoot(parseTree(c.tree)));
      if (r.status !== 'ok') return { matched: 0, gold: goldBrackets, test: 0 };
      return { matched: r.matched, gold: r.goldBrackets, test: r.testBrackets };
    });
  }
  const gold = s.gold;
  const useChunks = chunked ?? isChunkTagging(gold);
  return s.candidates.map((c) => {
    const tags = c.tags ?? [];
    if (useChunks) {
      const k = chunkCounts(gold, tags, 'iob2');
      return { matched: k.correct, gold: k.gold, test: k.predicted };
    }
    let correct = 0;
    for (let i = 0; i < gold.length; i++) if (gold[i] === tags[i]) correct++;
    return { matched: correct, gold: gold.length, test: gold.length };
  });
}

/** Score(x) from counts: F1 * |gold| (= 200 m g / (g + t)), or the number of correct tags. */
export function scoreOf(c: MatchCounts, plainTags = false): number {
  if (plainTags) return c.matched;
  return c.gold + c.test > 0 ? (200 * c.matched * c.gold) / (c.gold + c.test) : 0;
}

/** N-best lists with counts and Score(x) of every candidate. */
export interface ScoredSet extends CandidateSet {
  counts: MatchCounts[][];
  /** Sentence lengths in words (for F1 by length). */
  lengths: number[];
}

export function scoreSet(sentences: NbestSentence[]): ScoredSet {
  const chunked = sentences.length > 0 && Array.isArray(sentences[0].gold)
    ? sentences.some((s) => Array.isArray(s.gold) && isChunkTagging(s.gold)) && sentences.every((s) => (s.gold as string[]).every(isChunkTag))
    : undefined;
  const plainTags = chunked === false;
  const counts = sentences.map((s) => candidateCounts(s, chunked));
  return {
    sentences,
    counts,
    scores: counts.map((row) => row.map((c) => scoreOf(c, plainTags))),
    lengths: sentences.map((s) => s.tokens.length),
  };
}

/** Corpus F1 (percent) of one choice per sentence. */
export function corpusF1(set: ScoredSet, chosen: readonly number[]): number {
  let m = 0;
  let g = 0;
  let t = 0;
  set.counts.forEach((row, i) => {
    const c = row[chosen[i]] ?? row[0];
    m += c.matched;
    g += c.gold;
    t += c.test;
  });
  return g + t > 0 ? (200 * m) / (g + t) : 0;
}

/** x_{i,1}: the candidate with the highest Score, ties broken by higher L(x), then earlier. */
export function oracleChoice(set: CandidateSet): number[] {
  return set.sentences.map((s, i) => oracleIndex(set.scores[i], s.candidates.map((c) => c.logprob)));
}

/**
 * The base model's choice: its highest L(x), ties (to rounding) to the earlier candidate, the
 * order every reranker uses (rerank/candidate-order.ts). Not simply the first candidate: a
 * k-best list's log-probabilities can be out of order in the last bits.
 */
export function baseChoice(set: CandidateSet): number[] {
  return set.sentences.map((s) => baseIndex(s.candidates.map((c) => c.logprob)));
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
export function f1ByLength(set: ScoredSet, chosen: readonly number[], buckets = LENGTH_BUCKETS): { f1: number[]; sentences: number[] } {
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
  return { f1: m.map((x, b) => (n[b] === 0 ? Number.NaN : g[b] + t[b] > 0 ? (200 * x) / (g[b] + t[b]) : 0)), sentences: n };
}
