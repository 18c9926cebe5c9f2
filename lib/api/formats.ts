/**
 * `structrank/formats`: the file formats: text lines, CoNLL columns, CoNLL-U, n-best lists
 * (JSON lines) and the model file container; writes are atomic (temp file + rename).
 *
 * @example
 * ```ts
 * import { readConllSync, readNbest } from 'structrank/formats';
 * const sentences = readConllSync('train.conll');            // [{ rows: [['The', 'DT', 'O'], ...], line }]
 * for await (const s of readNbest('dev.nbest.jsonl')) console.log(s.id, s.candidates.length);
 * ```
 * @packageDocumentation
 */
export { readLines, readLinesSync, type Line } from '../io/lines.js';
export {
  readConll,
  readConllSync,
  writeConll,
  columnIndex,
  parseColumns,
  checkColumnCount,
  type ConllSentence,
  type ConllReadOptions,
  type ColumnLayout,
  type ConllWriteOptions,
} from '../io/conll.js';
export {
  readConllu,
  readConlluSync,
  type ConlluSentence,
  type ConlluToken,
  type ConlluMultiword,
} from '../io/conllu.js';
export {
  readNbest,
  readNbestSync,
  writeNbest,
  formatNbestLine,
  nbestKind,
  type NbestCandidate,
  type NbestSentence,
  type NbestKind,
} from '../io/nbest.js';
export {
  saveModel,
  loadModel,
  loadModelAsync,
  modelKind,
  encodeModel,
  decodeModel,
  writeFileAtomic,
  type ModelFile,
  type EncodeOptions,
} from '../io/model-file.js';
export { writeTextAtomic } from '../io/atomic-writer.js';
