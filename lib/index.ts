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
export { ChartParserModel, trainParser, type ParserTrainOptions, type ParseOptions, type ParsedSentence, type NbestSentence, type ChartParserInfo, type ParserTrainProgress } from './parser/chart-parser.js';
export { prepareTree, restoreTree, type GrammarOptions } from './parser/prepare.js';
export { annotate, deannotate, baseLabel } from './parser/annotate.js';
export { binarize, debinarize, type MarkovOrder } from './parser/binarize.js';
export { readParserInput, type ParserInput } from './parser/input.js';
export { evaluateParser, scoreBrackets, type ParserEvaluation } from './parser/evaluate.js';
