/**
 * `structrank/parser`: the chart parser (PCFG and CRF-CFG) and its grammar preparation:
 * annotation, Markov binarization, input reading and evaluation.
 *
 * @example
 * ```ts
 * import { ChartParserModel } from 'structrank/parser';
 * import { readTreesSync } from 'structrank/trees';
 * const parser = await ChartParserModel.train(readTreesSync('train.mrg'), { crf: false });
 * const [best] = await parser.parse([['Dogs', 'bark', '.']]);
 * ```
 * @packageDocumentation
 */
export {
  ChartParserModel,
  type ParserTrainOptions,
  type ParseOptions,
  type ParsedSentence,
  type ParsedNbest,
  type ChartParserInfo,
  type ParserTrainProgress,
} from '../parser/chart-parser.js';
export type { BracketPosterior } from '../parser/bracket-posteriors.js';
export type { LatentProgress } from '../parser/latent-mix.js';
export { prepareTree, restoreTree, type GrammarOptions } from '../parser/prepare.js';
export { annotate, deannotate, baseLabel } from '../parser/annotate.js';
export { binarize, debinarize, type MarkovOrder } from '../parser/binarize.js';
export { readParserInput, type ParserInput } from '../parser/input.js';
export { evaluateParser, scoreBrackets, type ParserEvaluation } from '../parser/evaluate.js';
export { readClustersSync, type WordClusters } from '../parser/clusters.js';
export type { KbestListOptions } from '../parser/nbest-lists.js';
export type { TreeModel } from '../trees/tree.js';
