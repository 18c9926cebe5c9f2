/**
 * The counting pieces of the generative tree models (tree-model.ts, head-model.ts): interned
 * event ids, Witten-Bell backoff over a chain of ever coarser contexts, and each tag's
 * distribution over words, with unseen words judged by their signature.
 */
import type { Tree, TreeModel } from '../trees/tree.js';
import { removeEmptyElements, stripPhraseFunctionTags, stripRoot } from '../trees/transforms.js';
import { PairTable } from './pair-table.js';
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
 * The ids of a generative model's symbols (labels, tags, words) and of tuples of ids, in one
 * numbering, so no tuple shares an id with a symbol or with a tuple of another shape. While the
 * model counts, each new symbol or tuple takes the next id; once `frozen`, an unseen one is -1,
 * as is every tuple holding a -1, so scoring a tree adds nothing to the model.
 */
export class EventIds {
  private readonly symbols = new Map<string, number>();
  private readonly pairs = new PairTable();
  private next = 0;
  private frozen = false;

  symbol(s: string): number {
    let id = this.symbols.get(s);
    if (id === undefined) {
      if (this.frozen) return -1;
      id = this.next++;
      this.symbols.set(s, id);
    }
    return id;
  }

  /** The id of the tuple (a, b, c, d) as (((a, b), c), d), of as many as are given. */
  tuple(a: number, b: number, c?: number, d?: number): number {
    let id = this.pair(a, b);
    if (c !== undefined) id = this.pair(id, c);
    if (d !== undefined) id = this.pair(id, d);
    return id;
  }

  /** No new ids from now on. */
  freeze(): void {
    this.frozen = true;
  }

  private pair(a: number, b: number): number {
    let id = this.pairs.get(a, b);
    if (id < 0 && !this.frozen) {
      id = this.next++;
      this.pairs.set(a, b, id);
    }
    return id;
  }
}

// A level's context counts: how often each context was seen, and with how many outcomes.
const TOTAL = 0;
const TYPES = 1;

/**
 * A distribution over outcomes given a context, estimated at several levels of context, finest
 * first, each interpolated with the next coarser one by Witten-Bell: a context seen n times
 * with t distinct outcomes gives its own counts the weight n / (n + t). Contexts and outcomes
 * are EventIds; an id of -1 (unseen) has no counts.
 */
export class BackoffDistribution {
  private readonly levels: { events: PairTable; contexts: PairTable }[];

  constructor(levels: number) {
    this.levels = Array.from({ length: levels }, () => ({ events: new PairTable(), contexts: new PairTable() }));
  }

  /** Counts `outcome` in each of its `contexts` (one per level, finest first). */
  count(contexts: readonly number[], outcome: number): void {
    contexts.forEach((context, l) => {
      const level = this.levels[l];
      if (level.events.add(context, outcome) === 1) level.contexts.add(context, TYPES);
      level.contexts.add(context, TOTAL);
    });
  }

  /** P(outcome | contexts), backing off below the coarsest level to `floor`. */
  probability(contexts: readonly number[], outcome: number, floor: number, l = 0): number {
    const lower = l === contexts.length - 1 ? floor : this.probability(contexts, outcome, floor, l + 1);
    const { events, contexts: seen } = this.levels[l];
    const total = seen.get(contexts[l], TOTAL, 0);
    if (total === 0) return lower;
    const t = seen.get(contexts[l], TYPES, 0);
    return (events.get(contexts[l], outcome, 0) + t * lower) / (total + t);
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
