/**
 * Boosting, LogLoss selection and the log-linear reranker with the same verbs as the other
 * model families: `await LinearReranker.train(nbest, options, run)`, `rerank`, `save`,
 * `LinearReranker.load`, `info`. The one path every linear reranker is trained by:
 * `LinearReranker.train` (the API), `train-reranker` (features from files or a feature
 * table) and the pipeline's reranker steps (interned features) build the native problems
 * over one dictionary (the count cutoff of feature-table.ts) and call `trainLinearReranker`,
 * which runs one of `linearTrainers` and makes the model.
 */
import { listKind, type NbestKind, type NbestSentence } from '../io/nbest.js';
import { InputError, optionError } from '../errors.js';
import { resolveThreads } from '../native.js';
import { FEATURE_CUTOFF } from '../options/rerank.js';
import { withRun, type TrainProgress, type TrainRun } from '../train-progress.js';
import { rerankScores } from './boost.js';
import { featureIdRows, tableOver, trainingTable } from './candidate-feature-ids.js';
import type { ExtractOptions } from './nbest-features.js';
import { loadReranker, loadRerankerAsync, saveReranker, type RerankerModel } from './reranker.js';
import { tableData } from './table-data.js';
import { linearTrainers, type RerankerTrainOptions, type TrainedLinear, type TrainerKnobs } from './trainers.js';
import type { RerankDataHandle } from './boost.js';
import type { TreeSettings } from './tree-settings.js';

/** Options of `LinearReranker.train`. */
export interface LinearTrainOptions extends Omit<RerankerTrainOptions, 'progress'> {
  /** 'boost' (default), 'logloss' or 'loglinear'. */
  method?: 'boost' | 'logloss' | 'loglinear';
  /** Keep features seen on candidates of at least this many training sentences (default 5). */
  cutoff?: number;
  /** Dev n-best lists: the number of rounds (and eps, or C) is chosen on them. */
  dev?: readonly NbestSentence[];
  /** How features are extracted (default: the candidates' own, else tree templates). */
  extract?: ExtractOptions;
  onProgress?: (p: TrainProgress) => void;
}

/** What `LinearReranker.info()` reports. */
export type LinearRerankerInfo = RerankerModel['info'] & {
  kind: 'reranker';
  method: string;
  a0: number;
  features: number;
};

/** Options of `rerank`. */
export interface LinearRerankOptions {
  threads?: number;
  signal?: AbortSignal;
}

/** What training a linear reranker needs: the native problems over one feature dictionary. */
export interface LinearProblem {
  train: RerankDataHandle;
  dev?: RerankDataHandle;
  /** Feature id -> name (the count cutoff applied on the training set). */
  dictionary: readonly string[];
  trainSentences: number;
  /** What the candidates are (recorded in the model's info; unknown for a feature table). */
  candidates?: NbestKind;
  /** The tree features' head rules and word classes: kept in a tree model, so that reranking extracts as training did. */
  treeSettings?: TreeSettings;
}

/** The training options of `trainLinearReranker`: the method, the cutoff the dictionary was made with, the trainer's options. */
export type LinearTrainSettings = Omit<LinearTrainOptions, 'dev' | 'extract'> & Pick<RerankerTrainOptions, 'progress'>;

let wrap: (model: RerankerModel) => LinearReranker;

/**
 * Trains a linear reranker on a problem (`settings.method`, default boost); the model's info
 * records the cutoff, the training sentences and the dictionary's size. `trained` keeps a0 and
 * the dense weights over the problem's dictionary, for data built over that dictionary.
 */
export async function trainLinearReranker(
  problem: LinearProblem,
  settings: LinearTrainSettings,
  knobs?: TrainerKnobs,
): Promise<{ reranker: LinearReranker; trained: TrainedLinear }> {
  const { method = 'boost', cutoff = FEATURE_CUTOFF, ...options } = settings;
  const trainer = linearTrainers[method];
  if (trainer === undefined) throw optionError(`unknown method '${String(method)}' (boost, logloss or loglinear)`);
  const { train, dev, dictionary } = problem;
  const trained = await trainer({ train, dev, dictionary, options }, knobs);
  trained.model.info.cutoff = cutoff;
  trained.model.info.trainSentences = problem.trainSentences;
  trained.model.info.features = dictionary.length;
  if (problem.candidates) trained.model.info.candidates = problem.candidates;
  if (problem.treeSettings && problem.candidates === 'trees') trained.model.treeSettings = problem.treeSettings;
  return { reranker: wrap(trained.model), trained };
}

/**
 * A linear reranker over sparse features: boosting (Collins & Koo), LogLoss selection or a
 * log-linear model.
 *
 * @example
 * ```ts
 * import { LinearReranker } from 'structrank';
 * const reranker = await LinearReranker.train(trainLists, { method: 'boost', dev: devLists, rounds: 5000 });
 * const chosen = await reranker.rerank(testLists);   // the chosen candidate of each sentence
 * reranker.save('boost.model');
 * ```
 */
export class LinearReranker {
  static {
    wrap = (model) => new LinearReranker(model);
  }

  private constructor(readonly model: RerankerModel) {}

  /** Trains on n-best lists with gold; `run` gives cancellation and the common progress event. */
  static async train(
    sentences: readonly NbestSentence[],
    options: LinearTrainOptions = {},
    run?: TrainRun,
  ): Promise<LinearReranker> {
    const o = withRun(options, run, (p: TrainProgress) => p);
    const method = o.method ?? 'boost';
    if (linearTrainers[method] === undefined)
      throw optionError(`unknown method '${String(method)}' (boost, logloss or loglinear)`);
    const cutoff = o.cutoff ?? FEATURE_CUTOFF;
    const threads = resolveThreads(o.threads);
    const extract = { ...o.extract, threads, signal: o.signal };
    const table = await trainingTable(await featureIdRows('<train>', sentences, extract), cutoff, o.signal);
    const dictionary = table.names;
    if (table.score.some((v) => Number.isNaN(v)))
      throw new InputError('<train>', undefined, 'every training sentence needs a gold analysis');
    const dev = o.dev
      ? await tableData(await tableOver(await featureIdRows('<dev>', o.dev, extract), dictionary, o.signal), threads)
      : undefined;
    const { dev: _d, extract: _e, ...settings } = o;
    (void _d, void _e);
    const problem = {
      train: await tableData(table, threads),
      dev,
      dictionary,
      trainSentences: table.ids.length,
      candidates: listKind(sentences),
      treeSettings: o.extract?.settings,
    };
    return (await trainLinearReranker(problem, { ...settings, method, cutoff, progress: false })).reranker;
  }

  /** The chosen candidate of each sentence, computed on native threads. */
  async rerank(sentences: readonly NbestSentence[], options: LinearRerankOptions = {}): Promise<Int32Array> {
    const threads = resolveThreads(options.threads);
    const rows = await featureIdRows('<n-best>', sentences, {
      threads,
      signal: options.signal,
      settings: this.model.treeSettings,
    });
    const data = await tableData(await tableOver(rows, this.model.names, options.signal), threads);
    return Int32Array.from(rerankScores(data, this.model.a0, this.model.weights, threads).chosen);
  }

  /** The model file's kind, the method, a0, the feature count and the training facts (eps, rounds, dev Score, ...). */
  info(): LinearRerankerInfo {
    return {
      ...this.model.info,
      kind: 'reranker',
      method: this.model.method,
      a0: this.model.a0,
      features: this.model.names.length,
    };
  }

  /** Writes the model file (atomically: a temp file renamed into place). */
  save(file: string): void {
    saveReranker(file, this.model);
  }

  /**
   * Reads a model file `save` (or `structrank train-reranker`) wrote. A file of another kind
   * is a ModelKindError; a damaged one a ModelFileError.
   *
   * @example
   * ```ts
   * const reranker = await LinearReranker.load('boost.model');
   * ```
   */
  static async load(file: string): Promise<LinearReranker> {
    return new LinearReranker(await loadRerankerAsync(file));
  }

  /** `load` on the JS thread (blocks while the file is read). */
  static loadSync(file: string): LinearReranker {
    return new LinearReranker(loadReranker(file));
  }
}
