/**
 * The counting pieces of the generative tree models (tree-model.ts, head-model.ts): event
 * counts, Witten-Bell backoff over a chain of ever coarser contexts, and each tag's
 * distribution over words, with unseen words judged by their signature.
 */
import type { Tree, TreeModel } from '../trees/tree.js';
import { removeEmptyElements, stripPhraseFunctionTags, stripRoot } from '../trees/transforms.js';
import { suffixOf, wordShape } from './word-forms.js';

/** How many pseudo-counts of a tag's signature distribution join its word counts. */
const SIGNATURE_COUNTS = 1;
/** Add-k smoothing of each tag's signature distribution. */
const SIGNATURE_SMOOTHING = 0.1;

class Counts {
  private readonly counts = new Map<string, number>();
  /** Adds one to `key`'s count and returns the new count. */
  add(key: string): number {
    const c = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, c);
    return c;
  }
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/**
 * A distribution over outcomes given a context, estimated at several levels of context, finest
 * first, each interpolated with the next coarser one by Witten-Bell: a context seen n times
 * with t distinct outcomes gives its own counts the weight n / (n + t).
 */
export class BackoffDistribution {
  private readonly levels: { events: Counts; totals: Counts; types: Counts }[];

  constructor(levels: number) {
    this.levels = Array.from({ length: levels }, () => ({
      events: new Counts(),
      totals: new Counts(),
      types: new Counts(),
    }));
  }

  /** Counts `outcome` in each of its `contexts` (one per level, finest first). */
  count(contexts: readonly string[], outcome: string): void {
    contexts.forEach((context, l) => {
      const level = this.levels[l];
      if (level.events.add(`${context}\n${outcome}`) === 1) level.types.add(context);
      level.totals.add(context);
    });
  }

  /** P(outcome | contexts), backing off below the coarsest level to `floor`. */
  probability(contexts: readonly string[], outcome: string, floor: number, l = 0): number {
    const lower = l === contexts.length - 1 ? floor : this.probability(contexts, outcome, floor, l + 1);
    const { events, totals, types } = this.levels[l];
    const total = totals.get(contexts[l]);
    if (total === 0) return lower;
    const t = types.get(contexts[l]);
    return (events.get(`${contexts[l]}\n${outcome}`) + t * lower) / (total + t);
  }
}

/** What an unseen word is judged by: its shape and its last two letters. */
function signature(word: string): string {
  return `${wordShape(word)}|${suffixOf(word.toLowerCase(), 2)}`;
}

/**
 * P(word | tag) from (tag, word) pairs: each tag's words by count, plus one pseudo-count of the
 * tag's distribution over the signatures of its words seen once (how its unseen words look).
 */
export function trainWordModel(tagged: readonly (readonly [string, string])[]): (tag: string, word: string) => number {
  const tagWord = new Counts();
  const tagTotal = new Counts();
  const wordTotal = new Counts();
  const rareTagSignature = new Counts();
  const rareTag = new Counts();
  for (const [, word] of tagged) wordTotal.add(word);
  const signatures = new Set<string>();
  for (const [tag, word] of tagged) {
    tagWord.add(`${tag}\t${word}`);
    tagTotal.add(tag);
    if (wordTotal.get(word) > 1) continue;
    const s = signature(word);
    signatures.add(s);
    rareTagSignature.add(`${tag}\t${s}`);
    rareTag.add(tag);
  }
  const signatureCount = signatures.size + 1;
  return (tag, word) => {
    const bySignature =
      (rareTagSignature.get(`${tag}\t${signature(word)}`) + SIGNATURE_SMOOTHING) /
      (rareTag.get(tag) + SIGNATURE_SMOOTHING * signatureCount);
    return (tagWord.get(`${tag}\t${word}`) + SIGNATURE_COUNTS * bySignature) / (tagTotal.get(tag) + SIGNATURE_COUNTS);
  };
}

/** A tree as the generative models read it: no phrase function tags, no empty elements, no root wrapper. */
export function generativeTree(tree: Tree): Tree | undefined {
  const cleaned = removeEmptyElements(stripPhraseFunctionTags(tree));
  return cleaned === undefined ? undefined : stripRoot(cleaned);
}

/** The model whose log-probability of a tree is `logprob` of the tree as generativeTree reads it (0 for a tree of empty elements). */
export function generativeModel(logprob: (tree: Tree) => number): TreeModel {
  return {
    logprob(tree: Tree): number {
      const t = generativeTree(tree);
      return t === undefined ? 0 : logprob(t);
    },
  };
}
