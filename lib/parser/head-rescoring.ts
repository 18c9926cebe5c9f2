/**
 * The CRF parser's 1-best rescored with two generative models of the training trees and the
 * CRF's own bracket posteriors. The CRF scores each span and rule on its own; the head model
 * (Collins's model 1 without distance, lib/rerank/head-model.ts) scores which word governs
 * which, what a lexicalized first stage (Charniak's, Collins's) knows and the CRF's features do
 * not see; the tree model (lib/rerank/tree-model.ts) scores whole phrases in their parent; the
 * expected bracket loss is what MBR decoding minimizes.
 *
 * A sentence's candidates are the k most probable bracketings of a pool of the CRF's best
 * trees, each scored by the log-sum of its tag variants (`selectKbest`'s `sum`), and the MBR
 * tree when its bracketing is not among them. The parse is the candidate of the highest
 * log-probability plus the head model's log-probability times its weight, plus the tree
 * model's times its weight, less the expected loss times its weight; dev chooses the weights,
 * or no rescoring when none beats the MBR tree there.
 */
import { evalbSentence } from '../eval/evalb.js';
import { addCounts, f1, type MatchCounts } from '../eval/score.js';
import { bracketingKey, selectKbest, type ScoredTree } from '../trees/kbest-modes.js';
import type { Tree, TreeModel } from '../trees/tree.js';
import { withRootOf } from '../trees/transforms.js';
import { expectedBracketLoss, nodePosteriors, posteriorsByKey, type BracketPosterior } from './bracket-posteriors.js';

/** What a candidate is rescored by, beside its CRF log-probability; or their weights. */
export interface RescoringTerms {
  /** Log-probability under the head model. */
  head: number;
  /** Log-probability under the tree model. */
  tree: number;
  /** Expected missed plus invented brackets under the CRF's posteriors (less a constant per sentence). */
  loss: number;
}

/** How a model rescores: the weights (tree and loss absent in files before them: 0), the candidates per sentence and the pool they come from. */
export interface HeadRescoring {
  weight: number;
  treeWeight?: number;
  lossWeight?: number;
  k: number;
  pool: number;
}

/** The weights of a model's rescoring. */
export function rescoringWeights(r: HeadRescoring): RescoringTerms {
  return { head: r.weight, tree: r.treeWeight ?? 0, loss: r.lossWeight ?? 0 };
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

/** A candidate's rescored score: its log-probability plus the weighted terms (the loss subtracted). */
function rescoredScore(logprob: number, terms: RescoringTerms, weights: RescoringTerms): number {
  return logprob + weights.head * terms.head + weights.tree * terms.tree - weights.loss * terms.loss;
}

/** The candidate of the highest rescored score (the first of equals). */
export function rescoredChoice(
  candidates: readonly ScoredTree[],
  terms: readonly RescoringTerms[],
  weights: RescoringTerms,
): number {
  let best = 0;
  let bestScore = -Infinity;
  candidates.forEach((c, i) => {
    const score = rescoredScore(c.logprob, terms[i], weights);
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

/** The weights dev tries: every combination of a head, a tree and a loss weight. */
export interface RescoringGrid {
  head: readonly number[];
  tree: readonly number[];
  loss: readonly number[];
}

/** Dev F1 (EVALB's, over all dev sentences) of the MBR trees and of the rescored choices. */
export interface RescoringChoice {
  /** The weights of the best dev F1 above the MBR trees'; undefined when none is above. */
  weights: RescoringTerms | undefined;
  mbrF1: number;
  /** The best dev F1 of each head weight (over the tree and loss weights) and its weights. */
  byHeadWeight: { weights: RescoringTerms; f1: number }[];
}

/**
 * Chooses the weights on dev: each sentence's candidates, their terms, its MBR tree and its
 * gold tree. Ties go to the earlier combination: smaller head, then tree, then loss weights.
 */
export function chooseRescoring(
  sentences: readonly { candidates: readonly ScoredTree[]; terms: readonly RescoringTerms[]; mbr: Tree; gold: Tree }[],
  grid: RescoringGrid,
): RescoringChoice {
  const mbrF1 = corpusF1(sentences.map((s) => corpusCounts(s.gold, s.mbr)));
  const counts = sentences.map((s) => s.candidates.map((c) => corpusCounts(s.gold, c.tree)));
  const byHeadWeight = grid.head.map((head) => {
    let best = { weights: { head, tree: 0, loss: 0 }, f1: -Infinity };
    for (const tree of grid.tree)
      for (const loss of grid.loss) {
        const weights = { head, tree, loss };
        const f1 = corpusF1(sentences.map((s, i) => counts[i][rescoredChoice(s.candidates, s.terms, weights)]));
        if (f1 > best.f1) best = { weights, f1 };
      }
    return best;
  });
  let weights: RescoringTerms | undefined;
  let best = mbrF1;
  for (const w of byHeadWeight)
    if (w.f1 > best) {
      best = w.f1;
      weights = w.weights;
    }
  return { weights, mbrF1, byHeadWeight };
}

/** The generative models a rescoring scores with, counted from the same trees. */
export interface RescoringModels {
  head: TreeModel;
  tree: TreeModel;
}

/** Each candidate's terms: its log-probabilities under the models, its expected loss under the MBR parse's bracket posteriors. */
export function rescoringTerms(
  models: RescoringModels,
  candidates: readonly ScoredTree[],
  brackets: readonly BracketPosterior[],
): RescoringTerms[] {
  const posteriors = posteriorsByKey(brackets);
  return candidates.map((c) => ({
    head: models.head.logprob(c.tree),
    tree: models.tree.logprob(c.tree),
    loss: expectedBracketLoss(nodePosteriors(c.tree, posteriors)),
  }));
}

/**
 * A sentence's rescoring candidates and their terms, from its k-best parse with the MBR tree
 * (parseNbest with `mbrTree`, at least `pool` trees, of which the first `pool` are the
 * rescoring's: a k-best list is the prefix of any deeper one); a sentence without a tree has
 * its fallback alone.
 */
export function rescoringList(
  parsed: {
    candidates: readonly ScoredTree[];
    mbrTree?: ScoredTree;
    brackets?: readonly BracketPosterior[];
    fallback: boolean;
  },
  models: RescoringModels,
  k: number,
  pool: number,
): { candidates: ScoredTree[]; terms: RescoringTerms[]; mbr: ScoredTree } {
  const mbr = parsed.mbrTree ?? parsed.candidates[0];
  const candidates = parsed.fallback ? [mbr] : rescoringCandidates(parsed.candidates.slice(0, pool), mbr, k);
  return { candidates, terms: rescoringTerms(models, candidates, parsed.brackets ?? []), mbr };
}
