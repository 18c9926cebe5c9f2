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
import { extractSentences } from './extract.js';
import { NameTable } from './interned-rows.js';
import { withTagSequenceFeatures } from './tag-features.js';
import type { TreeSettings } from './tree-settings.js';

/** A list's features as a CSR of interned ids. */
export interface CandidateFeatureIds {
  /** The candidates of sentence i are sentencePtr[i] .. sentencePtr[i + 1] - 1. */
  sentencePtr: Int32Array;
  /** The features of candidate c are cols[rowPtr[c] .. rowPtr[c + 1] - 1]: distinct ids in the order the extractor named them. */
  rowPtr: Float64Array;
  cols: Int32Array;
  logprob: Float64Array;
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
    p = extract(sentences, settings, options);
    // A failed or cancelled extraction is not kept.
    const keyed = byKey;
    p.catch(() => keyed.delete(key));
    byKey.set(key, p);
  }
  return p;
}

async function extract(
  sentencesIn: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  options: FeatureIdOptions,
): Promise<CandidateFeatureIds> {
  // Tag candidates carry their features; trees get the parse-tree features of Collins & Koo (2005) in extractSentences.
  const sentences = withTagSequenceFeatures(sentencesIn);
  // Sentences arrive in any order: keep each one's rows (its candidates' ids one after another,
  // and where each candidate ends), then lay them out in order.
  const sentenceCols: Int32Array[] = new Array(sentences.length);
  const rowEnds: Int32Array[] = new Array(sentences.length);
  const logprobs: Float64Array[] = new Array(sentences.length);
  await extractSentences(options.file, sentences, {
    settings,
    threads: options.threads,
    signal: options.signal,
    batchSize: 10,
    onProgress: options.onProgress,
    // Interned at once (on the workers): the names of a few sentences at a time are garbage, not all of them.
    interned: {
      intern: (name) => table.intern(name),
      onSentence: (i, rows) => {
        sentenceCols[i] = rows.cols;
        rowEnds[i] = rows.ends;
        logprobs[i] = rows.logprob;
      },
    },
  });
  const checkpoint = abortCheckpoint(options.signal);
  const total = sentencesIn.reduce((a, s) => a + s.candidates.length, 0);
  let size = 0;
  for (const ids of sentenceCols) size += ids.length;
  const sentencePtr = new Int32Array(sentencesIn.length + 1);
  const rowPtr = new Float64Array(total + 1);
  const logprob = new Float64Array(total);
  const cols = new Int32Array(size);
  let c = 0;
  let n = 0;
  for (let i = 0; i < sentenceCols.length; i++) {
    await checkpoint();
    cols.set(sentenceCols[i], n);
    logprob.set(logprobs[i], c);
    for (const end of rowEnds[i]) rowPtr[++c] = n + end;
    n += sentenceCols[i].length;
    sentencePtr[i + 1] = c;
  }
  return { sentencePtr, rowPtr, cols, logprob };
}
