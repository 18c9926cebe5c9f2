/**
 * The reranking features a tree- or tagging-kernel perceptron can add to its kernel:
 * K(x, y) = K(x, y) + featureWeight * Phi(x) . Phi(y) (native/perceptron/linear_sum_bank.h),
 * where Phi(x) are the binary features boosting and the log-linear reranker use: for trees
 * lib/rerank/tree-features.ts (rules, head-to-head dependencies, parallelism, lengths) with
 * head rules and word classes learned from the training trees (lib/rerank/tree-settings.ts);
 * for tag sequences lib/rerank/tag-features.ts (tag n-grams, words, shapes, whole entities).
 * The kernels count shared fragments; these features see what fragments cannot.
 */
import type { NbestSentence } from '../io/nbest.js';
import { IntBuffer } from '../kernels/symbols.js';
import { candidateFeatureIds, featureIdCount, featureName, type CandidateFeatureIds } from './candidate-feature-ids.js';
import type { SentenceFeatureNames } from './feature-table.js';
import { sentenceFeatures } from './nbest-features.js';
import { FeatureDictionary } from './perceptron-features.js';
import type { NativeFeatureRows } from './perceptron-native.js';
import type { TreeSettings } from './tree-settings.js';
import { taskOf } from './perceptron-data.js';
import { withTagSequenceFeatures } from './tag-features.js';

/**
 * Collects each sentence's candidates as rows of distinct ids, then lays them out in order.
 * Worker threads deliver sentences in any order; an open dictionary gets its new names in
 * sentence order at the end, so the ids (and the model's bytes) do not depend on timing.
 */
export class RowCollector {
  private readonly rows: Int32Array[][];
  private readonly row = new IntBuffer();
  private readonly seen = new Set<number>();
  // Open dictionary: names are first numbered here in arrival order.
  private readonly arrival: FeatureDictionary | undefined;

  constructor(
    sentences: number,
    private readonly dictionary: FeatureDictionary,
  ) {
    this.rows = new Array<Int32Array[]>(sentences);
    this.arrival = dictionary.frozen ? undefined : new FeatureDictionary();
  }

  add(index: number, features: SentenceFeatureNames): void {
    const ids = this.arrival ?? this.dictionary;
    this.rows[index] = features.candidates.map((cand) => {
      this.row.length = 0;
      this.seen.clear();
      for (const name of cand.names) {
        const id = ids.id(name);
        if (id >= 0 && !this.seen.has(id)) {
          this.seen.add(id);
          this.row.push(id);
        }
      }
      return this.row.toArray();
    });
  }

  build(): NativeFeatureRows {
    const final = this.arrival ? new Int32Array(this.arrival.size).fill(-1) : undefined;
    const cols = new IntBuffer();
    const rowPtr: number[] = [0];
    for (const candidates of this.rows) {
      for (const ids of candidates) {
        for (const id of ids) {
          if (final && this.arrival) {
            if (final[id] < 0) final[id] = this.dictionary.id(this.arrival.names[id]);
            cols.push(final[id]);
          } else cols.push(id);
        }
        rowPtr.push(cols.length);
      }
    }
    return { rowPtr: Float64Array.from(rowPtr), cols: cols.toArray() };
  }
}

/** Tag candidates with their features attached (the extractor turns counts into threshold names); trees as they are. */
function withTagFeatures(sentences: readonly NbestSentence[]): readonly NbestSentence[] {
  return taskOf(sentences) === 'tags' ? withTagSequenceFeatures(sentences) : sentences;
}

/**
 * Binary feature rows of every candidate, ids from `dictionary` (a frozen one drops unseen
 * names); off the JS thread with `threads` > 1. `settings`: the trees' head rules and classes
 * (undefined for tag sequences). The names come from the process's shared extraction
 * (candidate-feature-ids.ts), so a pipeline extracts a list's features once for boosting, the
 * log-linear reranker and the perceptron; the rows equal `summedFeatureRowsSync`'s.
 */
export async function summedFeatureRows(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  dictionary: FeatureDictionary,
  options: { file: string; threads?: number; signal?: AbortSignal; onProgress?: (done: number) => void },
): Promise<NativeFeatureRows> {
  const shared = await candidateFeatureIds(sentences, settings, options);
  return inDictionary(shared, dictionary);
}

/**
 * Shared rows renumbered by `dictionary`: an open one numbers new names in sentence,
 * candidate and feature order, as RowCollector does, so the ids do not depend on which
 * reranker extracted the list first.
 */
function inDictionary(shared: CandidateFeatureIds, dictionary: FeatureDictionary): NativeFeatureRows {
  const unseen = -2;
  const local = new Int32Array(featureIdCount()).fill(unseen);
  const cols = new Int32Array(shared.cols.length);
  const rowPtr = new Float64Array(shared.rowPtr.length);
  let n = 0;
  for (let c = 0; c + 1 < shared.rowPtr.length; c++) {
    for (let k = shared.rowPtr[c]; k < shared.rowPtr[c + 1]; k++) {
      const global = shared.cols[k];
      let id = local[global];
      if (id === unseen) id = local[global] = dictionary.id(featureName(global));
      if (id >= 0) cols[n++] = id;
    }
    rowPtr[c + 1] = n;
  }
  return { rowPtr, cols: n === cols.length ? cols : cols.slice(0, n) };
}

/**
 * Training lists' features with a dictionary of their own. The extraction is shared (a grid
 * of weights, and the pipeline's other rerankers, use the same); the renumbering is cheap
 * beside training and is not kept, so a list's features are held once.
 */
export async function trainingFeatureRows(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  options: { file: string; threads?: number; signal?: AbortSignal; onProgress?: (done: number) => void },
): Promise<{ dictionary: FeatureDictionary; rows: NativeFeatureRows }> {
  const dictionary = new FeatureDictionary();
  const rows = await summedFeatureRows(sentences, settings, dictionary, options);
  return { dictionary, rows };
}

/** `summedFeatureRows` on the JS thread. */
export function summedFeatureRowsSync(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  dictionary: FeatureDictionary,
): NativeFeatureRows {
  const rows = new RowCollector(sentences.length, dictionary);
  withTagFeatures(sentences).forEach((s, i) => rows.add(i, sentenceFeatures(s, { settings })));
  return rows.build();
}
