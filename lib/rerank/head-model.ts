/**
 * A head-lexicalized generative model of parse trees (Collins's model 1 without distance),
 * counted from a treebank, that scores a reranker's candidates. Each phrase generates its head
 * child given its label, its parent's label and its head word and tag; then, outward from the
 * head on each side, its dependents (label and head tag) given the phrase's label, the head
 * child's, the side, the previous dependent and the head word and tag; then each dependent's
 * head word given its tag, its label, the phrase's label and the governing head word. Every
 * distribution backs off by Witten-Bell (generative-counts.ts); words back off to the tag's
 * word distribution. The heads come from the treebank's head table, learned from the same
 * trees (lib/trees/tree-classes.ts), so nothing is language-specific. Where the tree model
 * (tree-model.ts) sees labels, this one sees which word governs which: the second opinion
 * Charniak & Johnson's reranker has from its lexicalized parser.
 */
import type { Tree, TreeModel } from '../trees/tree.js';
import type { HeadTable } from '../trees/head-rules.js';
import { annotateHeads, type HeadedTree } from '../trees/heads.js';
import { learnTreebankClasses } from '../trees/tree-classes.js';
import { BackoffDistribution, EventIds, generativeModel, generativeTree, trainWordModel } from './generative-counts.js';

const START = '<s>';
const STOP = '</s>';
const TOP = '<top>';
/** The probability of an event no context level has seen: a floor, so every candidate has a score. */
const UNSEEN_EVENT = 1e-5;

/** The distributions of the model, in the order a phrase uses them. */
type Step = 'top' | 'head' | 'dependent';

/**
 * The steps that generate a headed tree, as EventIds: the root's label and head tag, then for
 * each phrase its head child and its dependents outward on each side (each side ends with
 * STOP). `word` gets every word once: as the root's head, or as a dependent's head with its
 * contexts.
 */
function generate(
  tree: HeadedTree,
  ids: EventIds,
  step: (kind: Step, contexts: readonly number[], outcome: number) => void,
  word: (tag: string, word: string, contexts: readonly number[]) => void,
): void {
  const stop = ids.symbol(STOP);
  step('top', [ids.symbol(TOP)], ids.tuple(ids.symbol(tree.label), ids.symbol(tree.headTag)));
  word(tree.headTag, tree.headWord, []);
  const walk = (n: HeadedTree, parent: number): void => {
    if (n.word !== undefined) return;
    const head = n.children[n.head];
    const label = ids.symbol(n.label);
    const headLabel = ids.symbol(head.label);
    const tag = ids.symbol(n.headTag);
    const governor = ids.symbol(n.headWord.toLowerCase());
    const headContext = ids.tuple(label, parent, tag);
    step('head', [ids.tuple(headContext, governor), headContext, ids.tuple(label, tag)], headLabel);
    const sides: [string, HeadedTree[]][] = [
      ['L', n.children.slice(0, n.head).reverse()],
      ['R', n.children.slice(n.head + 1)],
    ];
    for (const [side, dependents] of sides) {
      let previous = ids.symbol(START);
      for (const d of [...dependents, undefined]) {
        const context = ids.tuple(label, headLabel, ids.symbol(side), previous);
        const byTag = ids.tuple(context, tag);
        const outcome = d === undefined ? stop : ids.tuple(ids.symbol(d.label), ids.symbol(d.headTag));
        step('dependent', [ids.tuple(byTag, governor), byTag, context], outcome);
        if (d === undefined) break;
        const dependentLabel = ids.symbol(d.label);
        const lexical = ids.tuple(ids.symbol(d.headTag), dependentLabel, label);
        word(d.headTag, d.headWord, [ids.tuple(lexical, governor), lexical]);
        previous = dependentLabel;
      }
    }
    for (const c of n.children) walk(c, label);
  };
  walk(tree, ids.symbol(TOP));
}

/** The head table trainHeadModel takes by default for `trees`: the `collins` table plus rules learned from the trees for the labels it does not cover. */
export function learnHeadModelTable(trees: readonly Tree[]): HeadTable {
  return learnTreebankClasses(trees.map(generativeTree).filter((t): t is Tree => t !== undefined)).table;
}

/**
 * Counts the model from `trees` (treebank trees: function tags, empty elements and root
 * wrappers are removed), with heads found by `table` (default: learnHeadModelTable of the
 * trees). With a table the trees are read once, one at a time: a generator of them keeps no
 * more than one in memory. The reranking pipeline counts one per fold (`base.headModel`).
 *
 * @example
 * ```ts
 * import { parseTree, readTreesSync, trainHeadModel } from 'structrank';
 * const model = trainHeadModel(readTreesSync('train.mrg'));
 * model.logprob(parseTree('(S (NP (DT the) (NN dog)) (VP (VBD barked)))'));
 * ```
 */
export function trainHeadModel(trees: Iterable<Tree>, table?: HeadTable): TreeModel {
  // Learning a table takes all the trees at once; with one given, they are read one at a time.
  let read = trees;
  let heads = table;
  if (heads === undefined) {
    const all = [...trees];
    heads = learnHeadModelTable(all);
    read = all;
  }
  const ids = new EventIds();
  const distributions: Record<Step, BackoffDistribution> = {
    top: new BackoffDistribution(1),
    head: new BackoffDistribution(3),
    dependent: new BackoffDistribution(3),
  };
  const words = new BackoffDistribution(2);
  const tagged: [string, string][] = [];
  for (const tree of read) {
    const t = generativeTree(tree);
    if (t === undefined) continue;
    generate(
      annotateHeads(t, { table: heads }),
      ids,
      (kind, contexts, outcome) => distributions[kind].count(contexts, outcome),
      (tag, word, contexts) => {
        tagged.push([tag, word]);
        if (contexts.length > 0) words.count(contexts, ids.symbol(word.toLowerCase()));
      },
    );
  }
  ids.freeze();
  const wordProbability = trainWordModel(tagged);
  return generativeModel((t) => {
    let sum = 0;
    generate(
      annotateHeads(t, { table: heads }),
      ids,
      (kind, contexts, outcome) => (sum += Math.log(distributions[kind].probability(contexts, outcome, UNSEEN_EVENT))),
      (tag, word, contexts) => {
        const byTag = wordProbability(tag, word);
        sum += Math.log(
          contexts.length === 0 ? byTag : words.probability(contexts, ids.symbol(word.toLowerCase()), byTag),
        );
      },
    );
    return sum;
  });
}
