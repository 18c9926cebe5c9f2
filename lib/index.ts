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
export { basicCategory, stripFunctionTags, removeEmptyElements, isEmptyElement, collapseUnaryChains, expandUnaryChains, stripRoot, ROOT_LABELS, type UnaryChainOptions } from './trees/transforms.js';
export { COLLINS_HEAD_RULES, headChildIndex, annotateHeads, type HeadedTree, type HeadRule, type HeadDirection, type HeadOptions } from './trees/heads.js';
export { evalbSentence, evalbCorpus, parseScore, evalbLabel, EvalbAccumulator, EvalbTotals, COLLINS_PARAMS, DEFAULT_CUTOFF, type EvalbParams, type EvalbInput, type EvalbSentence, type EvalbStatus, type EvalbSummary, type EvalbReport, type LabelCounts, type LabelScore, type EvalbCorpusOptions } from './eval/evalb.js';
export { readParseSentences, scoreTreebankFiles, evalbFiles, type ParseSentence, type ParseSentenceOptions, type EvalbFilesOptions } from './eval/parse-files.js';
export { readEvalbParams, type EvalbParamFile } from './eval/evalb-params.js';
export { cFixed, formatSentenceLine, formatSummary, formatLabelTable, formatTotalsLine, formatEvalbReport, EVALB_HEADER } from './eval/evalb-format.js';
