/**
 * The reranking features of every candidate of an n-best list as interned ids, extracted once
 * per list and tree settings and shared by every reranker of the process: boosting and the
 * log-linear reranker (candidate-sets.ts) and the features a kernel perceptron
 * adds to its kernel (perceptron-summed.ts). Feature names are interned once per process: a
 * name seen on thousands of candidates is one string and one id (holding every candidate's
 * names as strings cost the demo gigabytes).
 */
import { abortCheckpoint } from '../errors.js';
import type { NbestSentence } from '../io/nbest.js';
import { extractSentences, type ExtractRunOptions } from './extract.js';
import { buildIdFeatureTable, selectFeatureIds, type FeatureTable } from './feature-table.js';
import { NameTable } from './interned-rows.js';
import { withTagSequenceFeatures } from './tag-features.js';
import type { TreeSettings } from './tree-settings.js';

/** A list's features as a CSR of interned ids. */
export interface CandidateFeatureIds {
  /** The sentences' ids, in order. */
  ids: string[];
  /** The candidates of sentence i are sentencePtr[i] .. sentencePtr[i + 1] - 1. */
  sentencePtr: Int32Array;
  /** The features of candidate c are cols[rowPtr[c] .. rowPtr[c + 1] - 1]: distinct ids in the order the extractor named them. */
  rowPtr: Float64Array;
  cols: Int32Array;
  logprob: Float64Array;
  /** Score(x) of each candidate against the sentence's gold (lib/eval/score.ts); NaN without gold. */
  score: Float64Array;
}

export interface FeatureIdOptions {
  /** Names the list in error messages. */
  file: string;
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
}

const table = new NameTable();

/** The name of an interned feature id. */
export function featureName(id: number): string {
  return table.names[id];
}

/** The id of a feature name, interned if new (a dictionary's names map onto the same ids). */
export function internFeature(name: string): number {
  return table.intern(name);
}

/** Number of feature names interned so far (every id is below it). */
export function featureIdCount(): number {
  return table.names.length;
}

/**
 * Keyed by the list's sentences (a set rescored with another Score kind shares them), then by
 * the settings' content: the perceptron learns its own, equal, settings object.
 */
const cache = new WeakMap<readonly NbestSentence[], Map<string, Promise<CandidateFeatureIds>>>();

/** The interned features of every candidate of `sentences` (trees with `settings`), extracted once per list and settings. */
export function candidateFeatureIds(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  options: FeatureIdOptions,
): Promise<CandidateFeatureIds> {
  let byKey = cache.get(sentences);
  if (!byKey) cache.set(sentences, (byKey = new Map()));
  const key = settings ? JSON.stringify(settings) : '-';
  let p = byKey.get(key);
  if (!p) {
    // Tag candidates get the tag-sequence features; trees the parse-tree features of Collins & Koo (2005).
    p = featureIdRows(options.file, withTagSequenceFeatures(sentences), {
      settings,
      threads: options.threads,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    // A failed or cancelled extraction is not kept.
    const keyed = byKey;
    p.catch(() => keyed.delete(key));
    byKey.set(key, p);
  }
  return p;
}

/**
 * The features of every candidate of `sentences` as extracted (their own `features` objects,
 * and the tree templates for trees), interned as they arrive, laid out in sentence order.
 */
export async function featureIdRows(
  file: string,
  sentences: readonly NbestSentence[],
  options: ExtractRunOptions = {},
): Promise<CandidateFeatureIds> {
  // Sentences arrive in any order: keep each one's rows (its candidates' ids one after another,
  // and where each candidate ends), then lay them out in order.
  const sentenceCols: Int32Array[] = new Array(sentences.length);
  const rowEnds: Int32Array[] = new Array(sentences.length);
  const logprobs: Float64Array[] = new Array(sentences.length);
  const scores: Float64Array[] = new Array(sentences.length);
  await extractSentences(file, sentences, {
    ...options,
    batchSize: 10,
    // Interned at once (on the workers): the names of a few sentences at a time are garbage, not all of them.
    interned: {
      intern: (name) => table.intern(name),
      onSentence: (i, rows) => {
        sentenceCols[i] = rows.cols;
        rowEnds[i] = rows.ends;
        logprobs[i] = rows.logprob;
        scores[i] = rows.score;
      },
    },
  });
  const checkpoint = abortCheckpoint(options.signal);
  const total = sentences.reduce((a, s) => a + s.candidates.length, 0);
  let size = 0;
  for (const ids of sentenceCols) size += ids.length;
  const sentencePtr = new Int32Array(sentences.length + 1);
  const rowPtr = new Float64Array(total + 1);
  const logprob = new Float64Array(total);
  const score = new Float64Array(total);
  const cols = new Int32Array(size);
  let c = 0;
  let n = 0;
  for (let i = 0; i < sentenceCols.length; i++) {
    await checkpoint();
    cols.set(sentenceCols[i], n);
    logprob.set(logprobs[i], c);
    score.set(scores[i], c);
    for (const end of rowEnds[i]) rowPtr[++c] = n + end;
    n += sentenceCols[i].length;
    sentencePtr[i + 1] = c;
  }
  return { ids: sentences.map((s) => s.id), sentencePtr, rowPtr, cols, logprob, score };
}

/** The training table: the features seen on candidates of >= cutoff training sentences (feature-table.ts). */
export async function trainingTable(
  rows: CandidateFeatureIds,
  cutoff: number,
  signal?: AbortSignal,
): Promise<FeatureTable> {
  const selected = await selectFeatureIds(rows, cutoff, signal);
  const table = await buildIdFeatureTable(rows, selected, selected.map(featureName), signal);
  return { ...table, cutoff };
}

/** The table of `rows` over a dictionary (a trained model's names); features outside it are dropped. */
export function tableOver(
  rows: CandidateFeatureIds,
  dictionary: readonly string[],
  signal?: AbortSignal,
): Promise<FeatureTable> {
  return buildIdFeatureTable(rows, dictionary.map(internFeature), [...dictionary], signal);
}
