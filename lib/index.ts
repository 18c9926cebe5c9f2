/**
 * structrank: taggers, a chart parser, rerankers, tree and tagging kernels, and evaluation
 * equal to EVALB and conlleval. The root holds what a script needs; specialised parts live
 * in subpaths: `structrank/trees`, `structrank/formats`, `structrank/eval`,
 * `structrank/kernels`, `structrank/parser`, `structrank/tagger`, `structrank/rerank`,
 * `structrank/pipeline`.
 *
 * Every model family has the same verbs: `await X.train(data, options, { signal, onProgress })`
 * returns a model, `model.save(file)`, `await X.load(file)` (a file of another kind is refused
 * with a `ModelKindError`), batch prediction (`tagger.tag`, `parser.parse`, `reranker.rerank`)
 * that runs off the JavaScript thread and takes an `AbortSignal`, and `model.info()`.
 *
 * @example
 * ```ts
 * import { ChartParserModel, readTreesSync, formatTree } from 'structrank';
 * const parser = await ChartParserModel.train(readTreesSync('train.mrg'));
 * const [parsed] = await parser.parse([['The', 'dog', 'barks', '.']]);
 * console.log(formatTree(parsed.tree));
 * ```
 * @packageDocumentation
 */

// Errors: one family with stable codes (docs/errors.md).
export {
  StructrankError,
  InputError,
  ModelFileError,
  ModelKindError,
  IoError,
  UsageError,
  AbortError,
  InternalError,
  type StructrankErrorCode,
} from './errors.js';

// Models: the same verbs for every family.
export {
  Tagger,
  type TaggerAlgorithm,
  type TaggerTrainOptions,
  type TaggerMeta,
  type TaggerInfo,
  type TagOptions,
  type TagCandidate,
  type TokenRows,
} from './tagger/tagger.js';
export { readTrainingColumns, type TrainingColumns } from './tagger/training-columns.js';
export {
  ChartParserModel,
  type ParserTrainOptions,
  type ParseOptions,
  type ParsedSentence,
  type ParsedNbest,
  type ChartParserInfo,
} from './parser/chart-parser.js';
export type { BracketPosterior } from './parser/bracket-posteriors.js';
export type { KbestListOptions } from './parser/nbest-lists.js';
export { trainTreeModel } from './rerank/tree-model.js';
export { trainHeadModel } from './rerank/head-model.js';
export {
  PerceptronReranker,
  type PerceptronTrainOptions,
  type PerceptronKernel,
  type PerceptronInfo,
  type ChooseOptions,
  type RerankEvaluation,
} from './rerank/perceptron.js';
export {
  LinearReranker,
  type LinearTrainOptions,
  type LinearRerankOptions,
  type LinearRerankerInfo,
} from './rerank/linear-reranker.js';
export { type TrainProgress, type TrainRun } from './train-progress.js';

// Data.
export { type Tree, type TreeModel, formatTree } from './trees/tree.js';
export { parseTree } from './trees/bracket-parser.js';
export { readTreebank, readTreesSync, writeTreebank } from './io/treebank.js';
export { readConll, readConllSync, writeConll, type ConllSentence, type ConllReadOptions } from './io/conll.js';
export { readConllu, readConlluSync, type ConlluSentence } from './io/conllu.js';
export { readNbest, readNbestSync, writeNbest, type NbestCandidate, type NbestSentence } from './io/nbest.js';

// Evaluation.
export { evalbCorpus, type EvalbReport } from './eval/evalb.js';
export { evalbFiles } from './eval/parse-files.js';
export { conllevalCorpus, type ConllevalReport } from './eval/conlleval.js';
export { chunkSpans, type TagScheme, type ChunkSpan } from './eval/spans.js';
export { tagAccuracy, type TagAccuracy } from './eval/tags.js';
export { evalChunkFiles } from './eval/chunk-files.js';

// Kernels.
export { TreeBank, SequenceBank, kernel, gram, gramAsync, type Bank } from './kernels/index.js';

// The reranking pipeline.
export { runPipeline, type PipelineResults, type RunPipelineOptions } from './pipeline/run.js';
export {
  readPipelineConfig,
  validatePipelineConfig,
  type PipelineConfig,
  type PipelineConfigInput,
} from './pipeline/config.js';
export { formatResultsTable, writeReport } from './pipeline/report.js';

// Threads.
export { defaultThreads } from './native.js';
