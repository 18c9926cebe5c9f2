/**
 * `structrank/trees`: phrase-structure trees: the `Tree` type, reading and writing bracketed
 * treebanks, the standard transforms, and head finding.
 *
 * @example
 * ```ts
 * import { parseTree, formatTree, stripFunctionTags } from 'structrank/trees';
 * console.log(formatTree(stripFunctionTags(parseTree('(S (NP-SBJ (NN it)) (VP (VBZ works)))'))));
 * ```
 * @packageDocumentation
 */
export {
  type Tree,
  formatTree,
  cloneTree,
  words,
  tags,
  preterminals,
  isPreterminal,
  countNodes,
} from '../trees/tree.js';
export { parseTree, type ParsedTree } from '../trees/bracket-parser.js';
export { readTreebank, readTreebankSync, readTreesSync, writeTreebank } from '../io/treebank.js';
export {
  basicCategory,
  stripFunctionTags,
  removeEmptyElements,
  isEmptyElement,
  collapseUnaryChains,
  expandUnaryChains,
  stripRoot,
  ROOT_LABELS,
  type UnaryChainOptions,
} from '../trees/transforms.js';
export {
  COLLINS_HEAD_RULES,
  headChildIndex,
  annotateHeads,
  type HeadedTree,
  type HeadRule,
  type HeadDirection,
  type HeadOptions,
} from '../trees/heads.js';
export {
  headRulePreset,
  headTableFromJson,
  headTableToJson,
  headCoverage,
  HEAD_RULE_PRESETS,
  HEAD_COVERAGE_WARNING,
  type HeadTable,
  type HeadTableJson,
  type HeadCoverage,
} from '../trees/head-rules.js';
export { loadHeadRules } from '../io/head-rules-file.js';
export {
  learnHeadRules,
  learnPunctuationTags,
  learnConjunctionTags,
  learnClosedClassTags,
  learnTagClasses,
  type TagClasses,
} from '../trees/learn-heads.js';
export { learnTreeClasses, type TreeClasses } from '../trees/tree-classes.js';
