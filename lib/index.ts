/** structrank's public API. */
export { InputError, UsageError, AbortError } from './errors.js';
export { readLines, readLinesSync, type Line } from './io/lines.js';
export { type Tree, formatTree, cloneTree, words, tags, preterminals, isPreterminal, countNodes } from './trees/tree.js';
export { parseTree, BracketParser, type ParsedTree } from './trees/bracket-parser.js';
export { readTreebank, readTreebankSync, readTreesSync, writeTreebank } from './io/treebank.js';
export { saveModel, loadModel, encodeModel, decodeModel, writeFileAtomic, type ModelFile } from './io/model-file.js';
export { Progress, type ProgressOptions } from './progress.js';
export { native, defaultThreads, cancelFlagFor } from './native.js';
export { readConll, readConllSync, columnIndex, ConllAssembler, type ConllSentence, type ConllReadOptions } from './io/conll.js';
export * from './kernels/index.js';
export { ChartParserModel, trainParser, type ParserTrainOptions, type ParseOptions, type ParsedSentence, type ParsedNbest, type ChartParserInfo, type ParserTrainProgress } from './parser/chart-parser.js';
export { prepareTree, restoreTree, type GrammarOptions } from './parser/prepare.js';
export { annotate, deannotate, baseLabel } from './parser/annotate.js';
export { binarize, debinarize, type MarkovOrder } from './parser/binarize.js';
export { readParserInput, type ParserInput } from './parser/input.js';
export { evaluateParser, scoreBrackets, type ParserEvaluation } from './parser/evaluate.js';
export { basicCategory, stripFunctionTags, removeEmptyElements, isEmptyElement, collapseUnaryChains, expandUnaryChains, stripRoot, ROOT_LABELS, type UnaryChainOptions } from './trees/transforms.js';
export { COLLINS_HEAD_RULES, headChildIndex, annotateHeads, type HeadedTree, type HeadRule, type HeadDirection, type HeadOptions } from './trees/heads.js';
export { evalbSentence, evalbCorpus, parseScore, evalbLabel, EvalbAccumulator, EvalbTotals, COLLINS_PARAMS, DEFAULT_CUTOFF, type EvalbParams, type EvalbInput, type EvalbSentence, type EvalbStatus, type EvalbSummary, type EvalbReport, type LabelCounts, type LabelScore, type EvalbCorpusOptions } from './eval/evalb.js';
export { readParseSentences, scoreTreebankFiles, evalbFiles, type ParseSentence, type ParseSentenceOptions, type EvalbFilesOptions } from './eval/parse-files.js';
export { readEvalbParams, type EvalbParamFile } from './eval/evalb-params.js';
export { cFixed, formatSentenceLine, formatSummary, formatLabelTable, formatTotalsLine, formatEvalbReport, EVALB_HEADER } from './eval/evalb-format.js';
export { readNbest, readNbestSync, writeNbest, formatNbestLine, nbestKind, NbestParser, isOneWellFormedTree, type NbestCandidate, type NbestSentence, type NbestKind } from './io/nbest.js';
export { chunkSpans, chunkCounts, conllevalCorpus, formatConllevalReport, splitTag, prf, ConllevalCounter, CHUNK_SCHEMES, type ChunkScheme, type ChunkSpan, type ChunkCounts, type ChunkSentence, type ConllevalReport, type ConllevalOverall, type ConllevalTypeScore } from './eval/conlleval.js';
export { alignedConll, readConllTokens, type AlignedSentence, type EvalSentence } from './eval/aligned.js';
export { evalChunkFiles } from './commands/eval-chunks.js';
export { parseColumns, checkColumnCount, writeConll, type ColumnLayout, type ConllWriteOptions } from './io/conll.js';
export { writeTextAtomic } from './io/atomic-writer.js';
export { TagCounter, tagAccuracy, formatTagAccuracy, type TagAccuracy, type TaggedSentence } from './eval/tags.js';
export { evalTagFiles, readVocabulary, type EvalTagsOptions } from './commands/eval-tags.js';
export { PerceptronReranker, formatChosen, type PerceptronTrainOptions, type PerceptronPrediction, type PerceptronKernel, type PerceptronMeta, type PerceptronProgress, type ChooseOptions, type RerankEvaluation, type PreparedCandidates } from './rerank/perceptron.js';
export { FeatureDictionary as PerceptronFeatureDictionary, treeFeatures as perceptronTreeFeatures, tagFeatures as perceptronTagFeatures } from './rerank/perceptron-features.js';
export { validatePipelineConfig, readPipelineConfig, pipelineConfigSchema, pipelineJsonSchema, type PipelineConfig, type PipelineConfigInput, type RerankerConfig } from './pipeline/config.js';
export { runPipeline, type PipelineResults, type SystemResult, type RunPipelineOptions, type ComponentFactory } from './pipeline/run.js';
export { ComponentUnavailable, type BaseModel, type NbestProducer, type Reranker, type TrainedReranker, type CandidateSet, type PipelineSentence, type StepContext, type Curve } from './pipeline/components.js';
export { scoreSet, corpusF1, oracleChoice, relativeErrorReduction, f1ByLength, type ScoredSet, type MatchCounts } from './pipeline/evaluate.js';
export { formatResultsTable, renderReport, writeReport, lineChart } from './pipeline/report.js';
export { demoConfig, demoConfigInput, DEMO_SIZES } from './pipeline/demo.js';
export { StepCache, stepKey, type StepResult } from './pipeline/step-cache.js';
export { readConllu, readConlluSync, ConlluAssembler, type ConlluSentence, type ConlluToken, type ConlluMultiword } from './io/conllu.js';
export { Tagger, type TaggerAlgorithm, type TaggerTrainOptions, type TaggerMeta, type TagCandidate, type TrainProgress, type TokenRows } from './tagger/tagger.js';
export { compileTemplates, readTemplateConfig, resolveTemplateConfig, readClusters, DEFAULT_TEMPLATES, type TemplateConfig, type TemplateSet, type DefaultTemplateName } from './tagger/templates.js';
export {
  rerankData, syntheticRerankData, trainBoost, trainLoglinear, boostPrefixCurve, chooseRoundsOnDev, boostWeights, boostWork,
  rerankScores, chosenScore, encodeBoostModel, decodeBoostModel,
  type RerankArrays, type RerankDataHandle, type BoostModelData, type BoostStats, type TrainBoostOptions, type LoglinearModelData, type SyntheticOptions,
} from './rerank/boost.js';
export { treeFeatures, treeFeatureCounts, thresholdFeatures, CLOSED_CLASS_TAGS, type HeadNode, type TreeFeatureOptions } from './rerank/tree-features.js';
export { sentenceFeatures, candidateScore, type ExtractOptions } from './rerank/nbest-features.js';
export { extractSentences } from './rerank/extract.js';
export { selectFeatures, buildFeatureTable, saveFeatureTable, loadFeatureTable, tableToNames, type FeatureTable, type SentenceFeatureNames } from './rerank/feature-table.js';
export { tableData } from './rerank/table-data.js';
export { libsvmLines, libsvmText } from './rerank/libsvm.js';
export { saveReranker, loadReranker, compactReranker, type RerankerModel } from './rerank/reranker.js';
export { rerankerTrainers, type RerankerTrainer, type RerankerTrainInput, type RerankerTrainOptions } from './rerank/trainers.js';
export { dualTreeScores, type ForestScores } from './rerank/perceptron-forest.js';
export { realComponents } from './pipeline/adapters/index.js';
export { tagSequenceFeatures } from './pipeline/adapters/tag-features.js';
