/**
 * A generative model of parse trees, counted from a treebank, that scores a reranker's
 * candidates. Each phrase generates its children left to right, each child's label given the
 * phrase's label, the phrase's parent's label and the previous child's (Witten-Bell backoff
 * to the label and the previous child, then to the label alone); each tag generates its word,
 * by count, and an unseen word by its signature (shape and last two letters), as the
 * treebank's words seen once spread over signatures. The CRF scores spans and their rules
 * locally; this model scores whole phrases in their parent, a second opinion the rerankers
 * weigh beside the CRF's, as Charniak & Johnson's reranker weighs its generative parser's.
 */
import type { Tree } from '../trees/tree.js';
import { removeEmptyElements, stripPhraseFunctionTags, stripRoot } from '../trees/transforms.js';
import { suffixOf, wordShape } from './word-forms.js';

/** A tree's log-probability under the model (a tree of any treebank scheme; unseen labels get a floor). */
export interface TreeModel {
  logprob(tree: Tree): number;
}

const START = '<s>';
const STOP = '</s>';
const TOP = '<top>';
/** The probability of a child label its phrase label never generated: a floor, so every candidate has a score. */
const UNSEEN_CHILD = 1e-4;
/** How many pseudo-counts of a tag's signature distribution join its word counts. */
const SIGNATURE_COUNTS = 1;
/** Add-k smoothing of each tag's signature distribution. */
const SIGNATURE_SMOOTHING = 0.1;

/** What an unseen word is judged by: its shape and its last two letters. */
function signature(word: string): string {
  return `${wordShape(word)}|${suffixOf(word.toLowerCase(), 2)}`;
}

class Counts {
  private readonly counts = new Map<string, number>();
  add(key: string): number {
    const c = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, c);
    return c;
  }
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/** One backoff level of the child model: event counts, and each context's total and number of distinct children. */
interface Level {
  events: Counts;
  totals: Counts;
  types: Counts;
}

/** The contexts of a child, finest first: label, parent and previous child; label and previous child; label. */
function contexts(label: string, parent: string, previous: string): [string, string, string] {
  return [`${label}\t${parent}\t${previous}`, `${label}\t${previous}`, label];
}

/** The tree as the parser reads it: no phrase function tags, no empty elements, no root wrapper. */
function normalized(tree: Tree): Tree | undefined {
  const cleaned = removeEmptyElements(stripPhraseFunctionTags(tree));
  return cleaned === undefined ? undefined : stripRoot(cleaned);
}

/** The steps that generate a tree: each phrase's children in order (and its end), each tag's word. */
function generate(
  tree: Tree,
  child: (contexts: [string, string, string], label: string) => void,
  word: (tag: string, word: string) => void,
): void {
  const walk = (t: Tree, parent: string): void => {
    if (t.word !== undefined) {
      word(t.label, t.word);
      return;
    }
    let previous = START;
    for (const label of [...t.children.map((c) => c.label), STOP]) {
      child(contexts(t.label, parent, previous), label);
      previous = label;
    }
    for (const c of t.children) walk(c, t.label);
  };
  walk(tree, TOP);
}

/**
 * Counts the model from `trees` (treebank trees: function tags, empty elements and root
 * wrappers are removed). The reranking pipeline counts one per fold (`base.treeModel`).
 *
 * @example
 * ```ts
 * import { ChartParserModel, parseTree, readTreesSync, trainTreeModel } from 'structrank';
 * const trees = readTreesSync('train.mrg');
 * const model = trainTreeModel(trees);
 * model.logprob(parseTree('(S (NP (DT the) (NN dog)) (VP (VBD barked)))'));
 * // As reranking features of a parser's k-best lists (TREE_MODEL_FEATURES):
 * const parser = await ChartParserModel.train(trees, { crf: true });
 * const lists = await parser.nbest(sentences, 20, { threads: 4 }, { mbr: true, treeModel: model });
 * ```
 */
export function trainTreeModel(trees: readonly Tree[]): TreeModel {
  const levels: Level[] = [0, 1, 2].map(() => ({ events: new Counts(), totals: new Counts(), types: new Counts() }));
  const tagWord = new Counts();
  const tagTotal = new Counts();
  const wordTotal = new Counts();
  const rareTagSignature = new Counts();
  const rareTag = new Counts();
  const tagged: [string, string][] = [];

  for (const tree of trees) {
    const t = normalized(tree);
    if (t === undefined) continue;
    generate(
      t,
      (cs, child) =>
        cs.forEach((context, l) => {
          const level = levels[l];
          if (level.events.add(`${context}\n${child}`) === 1) level.types.add(context);
          level.totals.add(context);
        }),
      (tag, word) => tagged.push([tag, word]),
    );
  }
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

  const childProbability = (cs: readonly string[], child: string, l = 0): number => {
    const lower = l === cs.length - 1 ? UNSEEN_CHILD : childProbability(cs, child, l + 1);
    const { events, totals, types } = levels[l];
    const total = totals.get(cs[l]);
    if (total === 0) return lower;
    const t = types.get(cs[l]);
    return (events.get(`${cs[l]}\n${child}`) + t * lower) / (total + t);
  };
  const wordProbability = (tag: string, word: string): number => {
    const s = signature(word);
    const bySignature =
      (rareTagSignature.get(`${tag}\t${s}`) + SIGNATURE_SMOOTHING) /
      (rareTag.get(tag) + SIGNATURE_SMOOTHING * signatureCount);
    return (tagWord.get(`${tag}\t${word}`) + SIGNATURE_COUNTS * bySignature) / (tagTotal.get(tag) + SIGNATURE_COUNTS);
  };

  return {
    logprob(tree: Tree): number {
      const t = normalized(tree);
      if (t === undefined) return 0;
      let sum = 0;
      generate(
        t,
        (cs, child) => (sum += Math.log(childProbability(cs, child))),
        (tag, word) => (sum += Math.log(wordProbability(tag, word))),
      );
      return sum;
    },
  };
}
