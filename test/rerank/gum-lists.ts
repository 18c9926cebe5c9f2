/**
 * A small k-best list fixture shared by the generative models' list-feature tests: a
 * `--markov 1` CRF parser trained on 300 short GUM trees, and 30 further sentences to list.
 */
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { repoRoot } from '../helpers.js';

export interface GumLists {
  /** The parser's training trees (3 to 12 words). */
  train: Tree[];
  parser: ChartParserModel;
  /** Sentences to list, with their gold trees. */
  sentences: { id: string; tokens: string[]; gold: string }[];
}

export async function gumLists(): Promise<GumLists> {
  const trees = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg')).filter(
    (t) => treeWords(t).length >= 3 && treeWords(t).length <= 12,
  );
  const train = trees.slice(0, 300);
  const parser = await ChartParserModel.train(train, { markov: 1, threads: 1 });
  const sentences = trees.slice(300, 330).map((t, i) => ({ id: `s${i}`, tokens: treeWords(t), gold: formatTree(t) }));
  return { train, parser, sentences };
}
