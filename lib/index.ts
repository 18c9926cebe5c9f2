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
export { readNbest, readNbestSync, writeNbest, formatNbestLine, nbestKind, NbestParser, type NbestCandidate, type NbestSentence, type NbestKind } from './io/nbest.js';
export { chunkSpans, chunkCounts, conllevalCorpus, formatConllevalReport, splitTag, prf, ConllevalCounter, CHUNK_SCHEMES, type ChunkScheme, type ChunkSpan, type ChunkCounts, type ChunkSentence, type ConllevalReport, type ConllevalOverall, type ConllevalTypeScore } from './eval/conlleval.js';
export { alignedConll, readConllTokens, type AlignedSentence } from './eval/aligned.js';
export { evalChunkFiles } from './commands/eval-chunks.js';
export { parseColumns, checkColumnCount, writeConll, type ColumnLayout, type ConllWriteOptions } from './io/conll.js';
export { writeTextAtomic } from './io/atomic-writer.js';
export { TagCounter, tagAccuracy, formatTagAccuracy, type TagAccuracy, type TaggedSentence } from './eval/tags.js';
export { evalTagFiles, readVocabulary, type EvalTagsOptions } from './commands/eval-tags.js';
export { readConllu, readConlluSync, ConlluAssembler, type ConlluSentence, type ConlluToken, type ConlluMultiword } from './io/conllu.js';
