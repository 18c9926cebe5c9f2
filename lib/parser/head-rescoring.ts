/**
 * The CRF parser's 1-best rescored by a head-lexicalized generative model (Collins's model 1
 * without distance, lib/rerank/head-model.ts) counted from the training trees. The CRF scores
 * each span and rule on its own; the head model scores which word governs which, what a
 * lexicalized first stage (Charniak's, Collins's) knows and the CRF's features do not see.
 *
 * A sentence's candidates are the k most probable bracketings of a pool of the CRF's best
 * trees, each scored by the log-sum of its tag variants (`selectKbest`'s `sum`), and the MBR
 * tree when its bracketing is not among them. The parse is the candidate of the highest
 * log-probability plus `weight` times its log-probability under the head model; dev chooses
 * the weight, or no rescoring when no weight beats the MBR tree there.
 */
import { evalbSentence } from '../eval/evalb.js';
import { addCounts, f1, type MatchCounts } from '../eval/score.js';
import { bracketingKey, selectKbest, type ScoredTree } from '../trees/kbest-modes.js';
import type { Tree, TreeModel } from '../trees/tree.js';
import { withRootOf } from '../trees/transforms.js';

/** How a model rescores: the head model's weight, the candidates per sentence and the pool they come from. */
export interface HeadRescoring {
  weight: number;
  k: number;
  pool: number;
}

/** A sentence's candidates: the pool's k best bracketings, then its MBR tree unless one of them has its bracketing. */
export function rescoringCandidates(
  pool: readonly ScoredTree[],
  mbrTree: ScoredTree | undefined,
  k: number,
): ScoredTree[] {
  const list = selectKbest(pool, k, 'sum');
  if (mbrTree === undefined) return list;
  const want = bracketingKey(mbrTree.tree);
  return list.some((c) => bracketingKey(c.tree) === want) ? list : [...list, mbrTree];
}

/** The candidate of the highest logprob + weight x headLogprob (the first of equals). */
export function rescoredChoice(
  candidates: readonly ScoredTree[],
  headLogprobs: readonly number[],
  weight: number,
): number {
  let best = 0;
  let bestScore = -Infinity;
  candidates.forEach((c, i) => {
    const score = c.logprob + weight * headLogprobs[i];
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

/**
 * A parse's EVALB counts as the corpus totals take them: none for a sentence EVALB reports as
 * an error (a word the parser tags as punctuation and the gold does not), so the dev figures
 * are those `eval parse` and the PCFG weight's choice give.
 */
function corpusCounts(gold: Tree, test: Tree): MatchCounts {
  const s = evalbSentence(gold, withRootOf(test, gold));
  return s.statusCode === 0
    ? { matched: s.matched, gold: s.goldBrackets, test: s.testBrackets }
    : { matched: 0, gold: 0, test: 0 };
}

function corpusF1(counts: readonly MatchCounts[]): number {
  return f1(counts.reduce((sum, c) => addCounts(sum, c), { matched: 0, gold: 0, test: 0 }));
}

/** Dev F1 (EVALB's, over all dev sentences) of the MBR trees and of each weight's rescored choice. */
export interface HeadWeightChoice {
  /** The weight of the best dev F1 above the MBR trees'; undefined when none is above. */
  weight: number | undefined;
  mbrF1: number;
  byWeight: { weight: number; f1: number }[];
}

/**
 * Chooses the head model's weight on dev: each sentence's candidates, their head-model
 * log-probabilities, its MBR tree and its gold tree. Ties go to the smaller weight.
 */
export function chooseHeadWeight(
  sentences: readonly { candidates: readonly ScoredTree[]; head: readonly number[]; mbr: Tree; gold: Tree }[],
  weights: readonly number[],
): HeadWeightChoice {
  const mbrF1 = corpusF1(sentences.map((s) => corpusCounts(s.gold, s.mbr)));
  const counts = sentences.map((s) => s.candidates.map((c) => corpusCounts(s.gold, c.tree)));
  const byWeight = weights.map((weight) => ({
    weight,
    f1: corpusF1(sentences.map((s, i) => counts[i][rescoredChoice(s.candidates, s.head, weight)])),
  }));
  let weight: number | undefined;
  let best = mbrF1;
  for (const w of byWeight)
    if (w.f1 > best) {
      best = w.f1;
      weight = w.weight;
    }
  return { weight, mbrF1, byWeight };
}

/** Each candidate's log-probability under `model`. */
export function headLogprobs(model: TreeModel, candidates: readonly ScoredTree[]): number[] {
  return candidates.map((c) => model.logprob(c.tree));
}
