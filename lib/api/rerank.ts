/**
 * `structrank/rerank`: rerankers over n-best lists: kernel perceptrons (tree, tagging and
 * linear kernels), boosting and log-linear models over sparse features, feature
 * extraction, feature tables and reranker model files.
 *
 * @example
 * ```ts
 * import { PerceptronReranker } from 'structrank/rerank';
 * import { readNbestSync } from 'structrank/formats';
 * const reranker = await PerceptronReranker.train(readNbestSync('train.nbest.jsonl'), { kernel: 'tree', lambda: 0.4 });
 * const { chosen } = await reranker.choose(readNbestSync('test.nbest.jsonl'));
 * ```
 * @packageDocumentation
 */
export {
  PerceptronReranker,
  formatChosen,
  type PerceptronTrainOptions,
  type PerceptronPrediction,
  type PerceptronKernel,
  type PerceptronMeta,
  type PerceptronProgress,
  type PerceptronInfo,
  type ChooseOptions,
  type RerankEvaluation,
  type PreparedCandidates,
} from '../rerank/perceptron.js';
export {
  FeatureDictionary as PerceptronFeatureDictionary,
  treeFeatures as perceptronTreeFeatures,
  tagFeatures as perceptronTagFeatures,
} from '../rerank/perceptron-features.js';
export {
  rerankData,
  syntheticRerankData,
  trainBoost,
  trainLoglinear,
  boostPrefixCurve,
  chooseRoundsOnDev,
  boostWeights,
  boostWork,
  rerankScores,
  chosenScore,
  encodeBoostModel,
  decodeBoostModel,
  type RerankArrays,
  type RerankDataHandle,
  type BoostModelData,
  type BoostStats,
  type TrainBoostOptions,
  type LoglinearModelData,
  type SyntheticOptions,
} from '../rerank/boost.js';
export {
  treeFeatures,
  treeFeatureCounts,
  thresholdFeatures,
  type HeadNode,
  type TreeFeatureOptions,
} from '../rerank/tree-features.js';
export { sentenceFeatures, type ExtractOptions } from '../rerank/nbest-features.js';
export { trainTreeModel } from '../rerank/tree-model.js';
export type { TreeModel } from '../trees/tree.js';
export { trainHeadModel } from '../rerank/head-model.js';
export {
  learnTreeSettings,
  legacyTreeSettings,
  type TreeSettings,
  type LearnedTreeSettings,
} from '../rerank/tree-settings.js';
export { extractSentences } from '../rerank/extract.js';
export {
  selectFeatures,
  buildFeatureTable,
  saveFeatureTable,
  loadFeatureTable,
  tableToNames,
  type FeatureTable,
  type SentenceFeatureNames,
} from '../rerank/feature-table.js';
export { libsvmText } from '../rerank/libsvm.js';
export {
  saveReranker,
  loadReranker,
  loadRerankerAsync,
  compactReranker,
  type RerankerModel,
} from '../rerank/reranker.js';
export {
  rerankerTrainers,
  type RerankerTrainer,
  type RerankerTrainInput,
  type RerankerTrainOptions,
} from '../rerank/trainers.js';
export {
  LinearReranker,
  type LinearTrainOptions,
  type LinearRerankOptions,
  type LinearRerankerInfo,
} from '../rerank/linear-reranker.js';
export { dualTreeScores, type ForestScores } from '../rerank/perceptron-forest.js';
