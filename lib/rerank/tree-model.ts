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
import type { Tree, TreeModel } from '../trees/tree.js';
import { BackoffDistribution, EventIds, generativeModel, generativeTree, trainWordModel } from './generative-counts.js';

const START = '<s>';
const STOP = '</s>';
const TOP = '<top>';
/** The probability of a child label its phrase label never generated: a floor, so every candidate has a score. */
const UNSEEN_CHILD = 1e-4;

/** The steps that generate a tree, as EventIds: each phrase's children in order (and its end), each tag's word. */
function generate(
  tree: Tree,
  ids: EventIds,
  child: (contexts: readonly number[], label: number) => void,
  word: (tag: string, word: string) => void,
): void {
  const start = ids.symbol(START);
  const stop = ids.symbol(STOP);
  const walk = (t: Tree, parent: number): void => {
    if (t.word !== undefined) {
      word(t.label, t.word);
      return;
    }
    const label = ids.symbol(t.label);
    let previous = start;
    for (const c of [...t.children.map((c) => ids.symbol(c.label)), stop]) {
      // Finest first: label, parent and previous child; label and previous child; label.
      child([ids.tuple(label, parent, previous), ids.tuple(label, previous), label], c);
      previous = c;
    }
    for (const c of t.children) walk(c, label);
  };
  walk(tree, ids.symbol(TOP));
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
export function trainTreeModel(trees: Iterable<Tree>): TreeModel {
  const ids = new EventIds();
  const children = new BackoffDistribution(3);
  const tagged: [string, string][] = [];
  for (const tree of trees) {
    const t = generativeTree(tree);
    if (t === undefined) continue;
    generate(
      t,
      ids,
      (cs, child) => children.count(cs, child),
      (tag, word) => tagged.push([tag, word]),
    );
  }
  ids.freeze();
  const wordProbability = trainWordModel(tagged);
  return generativeModel((t) => {
    let sum = 0;
    generate(
      t,
      ids,
      (cs, child) => (sum += Math.log(children.probability(cs, child, UNSEEN_CHILD))),
      (tag, word) => (sum += Math.log(wordProbability(tag, word))),
    );
    return sum;
  });
}
