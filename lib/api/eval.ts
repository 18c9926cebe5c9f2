/**
 * `structrank/eval`: evaluation equal to EVALB (parses) and conlleval (chunks, entities),
 * tag accuracy, and the one definition of task scoring: chunk spans in IOB1/IOB2/IOBES/BILOU,
 * match counts, F1 and the rerankers' per-sentence Score.
 *
 * @example
 * ```ts
 * import { conllevalCorpus, chunkSpans } from 'structrank/eval';
 * chunkSpans(['B-PER', 'I-PER', 'O', 'S-LOC'], 'iobes'); // [{ type: 'PER', start: 0, end: 2 }, { type: 'LOC', start: 3, end: 4 }]
 * conllevalCorpus([{ gold: ['B-PER', 'O'], predicted: ['B-PER', 'O'] }]).overall.f1; // 100
 * ```
 * @packageDocumentation
 */
export {
  evalbSentence,
  evalbCorpus,
  parseScore,
  evalbLabel,
  EvalbAccumulator,
  EvalbTotals,
  COLLINS_PARAMS,
  DEFAULT_CUTOFF,
  type EvalbParams,
  type EvalbInput,
  type EvalbSentence,
  type EvalbStatus,
  type EvalbSummary,
  type EvalbReport,
  type LabelCounts,
  type LabelScore,
  type EvalbCorpusOptions,
} from '../eval/evalb.js';
export {
  readParseSentences,
  scoreTreebankFiles,
  evalbFiles,
  type ParseSentence,
  type ParseSentenceOptions,
  type EvalbFilesOptions,
} from '../eval/parse-files.js';
export { readEvalbParams, type EvalbParamFile } from '../eval/evalb-params.js';
export { formatEvalbReport } from '../eval/evalb-format.js';
export {
  chunkCounts,
  conllevalCorpus,
  formatConllevalReport,
  prf,
  ConllevalCounter,
  CHUNK_SCHEMES,
  type ChunkScheme,
  type ChunkCounts,
  type ChunkSentence,
  type ConllevalReport,
  type ConllevalOverall,
  type ConllevalTypeScore,
} from '../eval/conlleval.js';
export {
  chunkSpans,
  splitTag,
  detectTagScheme,
  isChunkTag,
  TAG_SCHEMES,
  type TagScheme,
  type ChunkSpan,
} from '../eval/spans.js';
export {
  f1,
  candidateScore,
  f1GoldScore,
  scoreFunction,
  SCORE_KINDS,
  addCounts,
  treeCounts,
  tagCounts,
  tagScoring,
  type MatchCounts,
  type ScoreKind,
  type TaskScoring,
} from '../eval/score.js';
export { TagCounter, tagAccuracy, formatTagAccuracy, type TagAccuracy, type TaggedSentence } from '../eval/tags.js';
export { alignedConll, readConllTokens, type AlignedSentence, type EvalSentence } from '../eval/aligned.js';
export { evalChunkFiles } from '../eval/chunk-files.js';
export { evalTagFiles, readVocabulary, type EvalTagsOptions } from '../eval/tag-files.js';
