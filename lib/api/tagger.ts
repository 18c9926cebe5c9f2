/**
 * `structrank/tagger`: sequence taggers (averaged perceptron, CRF, maximum entropy) and
 * their feature templates.
 *
 * @example
 * ```ts
 * import { Tagger } from 'structrank/tagger';
 * import { readConllSync } from 'structrank/formats';
 * const train = readConllSync('train.conll').map((s) => s.rows);   // or, without a JS string per token:
 * // const train = await readTrainingColumns('train.conll', { columns: ['word', 'pos', 'ne'], label: 'ne' });
 * const tagger = await Tagger.train(train, { algo: 'crf', columns: ['word', 'pos', 'ne'], label: 'ne', templates: 'ner' });
 * ```
 * @packageDocumentation
 */
export {
  Tagger,
  type TaggerAlgorithm,
  type TaggerTrainOptions,
  type TaggerMeta,
  type TaggerInfo,
  type TagOptions,
  type TagCandidate,
  type TrainProgress as TaggerProgress,
  type TokenRows,
} from '../tagger/tagger.js';
export {
  compileTemplates,
  readTemplateConfig,
  resolveTemplateConfig,
  readClusters,
  DEFAULT_TEMPLATES,
  chooseDefaultTemplate,
  type TemplateConfig,
  type TemplateSet,
  type DefaultTemplateName,
  type TemplateChoice,
} from '../tagger/templates.js';
export { clusterWords, formatClusters, type ClusterOptions, type ClusterProgress } from '../tagger/word-clusters.js';
export { readTrainingColumns, type TrainingColumns } from '../tagger/training-columns.js';
