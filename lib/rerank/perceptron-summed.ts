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
import { extractSentences } from './extract.js';
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

  constructor(sentences: number, private readonly dictionary: FeatureDictionary) {
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
 * (undefined for tag sequences).
 */
export async function summedFeatureRows(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  dictionary: FeatureDictionary,
  options: { file: string; threads?: number; signal?: AbortSignal; onProgress?: (done: number) => void },
): Promise<NativeFeatureRows> {
  const rows = new RowCollector(sentences.length, dictionary);
  await extractSentences(options.file, withTagFeatures(sentences), {
    settings,
    treeFeatures: 'always',
    threads: options.threads,
    signal: options.signal,
    onProgress: options.onProgress,
    batchSize: 10,
    onSentence: (i, features) => rows.add(i, features),
  });
  return rows.build();
}

/**
 * Training lists' features with their own dictionary, extracted once per sentences and
 * settings: a grid of weights (the pipeline's) trains on the same rows. Neither is changed
 * by training (a model keeps a compacted copy of the dictionary).
 */
const trainingCache = new WeakMap<readonly NbestSentence[], Map<string, Promise<{ dictionary: FeatureDictionary; rows: NativeFeatureRows }>>>();

export function trainingFeatureRows(
  sentences: readonly NbestSentence[],
  settings: TreeSettings | undefined,
  options: { file: string; threads?: number; signal?: AbortSignal; onProgress?: (done: number) => void },
): Promise<{ dictionary: FeatureDictionary; rows: NativeFeatureRows }> {
  let bySettings = trainingCache.get(sentences);
  if (!bySettings) trainingCache.set(sentences, (bySettings = new Map()));
  const key = settings ? JSON.stringify(settings) : 'tags';
  let p = bySettings.get(key);
  if (!p) {
    const dictionary = new FeatureDictionary();
    p = summedFeatureRows(sentences, settings, dictionary, options).then((rows) => ({ dictionary, rows }));
    // A failed or cancelled extraction is not kept.
    p.catch(() => bySettings.delete(key));
    bySettings.set(key, p);
  }
  return p;
}

/** `summedFeatureRows` on the JS thread. */
export function summedFeatureRowsSync(sentences: readonly NbestSentence[], settings: TreeSettings | undefined, dictionary: FeatureDictionary): NativeFeatureRows {
  const rows = new RowCollector(sentences.length, dictionary);
  withTagFeatures(sentences).forEach((s, i) => rows.add(i, sentenceFeatures(s, { settings, treeFeatures: 'always' })));
  return rows.build();
}
