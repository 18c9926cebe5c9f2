/** The parser tests' small treebank: the shipped gum-open trees of 4 to 15 words. */
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { treeWords } from '../../lib/parser/input.js';
import type { Tree } from '../../lib/trees/tree.js';
import { repoRoot } from '../helpers.js';

/** The first `limit` trees of 4 to 15 words of gum-open's `file` (train.mrg, dev.mrg, test.mrg). */
export function gumShortTrees(file: string, limit: number): Tree[] {
  return readTreesSync(join(repoRoot, 'data', 'gum-open', file))
    .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= 15)
    .slice(0, limit);
}
