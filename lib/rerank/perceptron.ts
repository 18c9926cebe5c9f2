/**
 * Perceptron rerankers for n-best lists (Collins & Duffy 2002a, 2002b): the primal ranking perceptron over
 * explicit features and the dual (kernel) perceptron over tree, tagging or linear kernels,
 * optionally combined with the base model as beta * L(x) L(y) + K(x, y); last, averaged or
 * voted prediction; T epochs with seeded shuffling; k chunks trained in parallel.
 */
import { PERCEPTRON_LAMBDA, perceptronFields, perceptronKernelConflict } from '../options/rerank.js';
import { InputError, ModelFileError, inModelFile, optionError } from '../errors.js';
import { withRun, type TrainRun } from '../train-progress.js';
import { loadModel, loadModelAsync, saveModel, type ModelFile } from '../io/model-file.js';
import { runTraining, type Trainer } from '../training/loop.js';
import { fillDefaults, withDefaults } from '../training/options.js';
import type { NbestSentence } from '../io/nbest.js';
import { native, resolveThreads, withCancelFlag } from '../native.js';
import { formatTree } from '../trees/tree.js';
import {
  allHaveFeatures,
  buildCandidates,
  candidateTags,
  candidateTree,
  sentenceScores,
  taskOf,
  type KernelSettings,
  type PerceptronKernel,
} from './perceptron-data.js';
import { FeatureDictionary } from './perceptron-features.js';
import type {
  NativeCandidateSpec,
  NativePerceptronInfo,
  NativePerceptronModel,
  PerceptronAddon,
} from './perceptron-native.js';
import { f1 as f1Of, tagCounts, treeCounts, type MatchCounts, type ScoreKind } from '../eval/score.js';
import type { TagScoring } from './perceptron-data.js';
import { parseTree } from '../trees/bracket-parser.js';
import { baseIndex, oracleIndex } from './candidate-order.js';
import { rerankerMixingSpec, type RerankerMixingSpec } from './perceptron-mixing.js';
import { summedFeatureRows, summedFeatureRowsSync, trainingFeatureRows } from './perceptron-summed.js';
import { learnListSettings, learnTreeSettings, type TreeSettings } from './tree-settings.js';
import type { HeadTable } from '../trees/head-rules.js';

export type { PerceptronKernel } from './perceptron-data.js';
export type PerceptronPrediction = 'last' | 'averaged' | 'voted';

const MODEL_KIND = 'perceptron-reranker';
const MODEL_VERSION = 1;
const MODES: Record<PerceptronPrediction, number> = { last: 0, averaged: 1, voted: 2 };

export interface PerceptronProgress {
  /** 'features' while the reranking features of the training lists are extracted (featureWeight > 0): done and total count sentences. */
  phase?: 'features';
  /** Training examples visited so far (all epochs, all chunks). */
  done: number;
  total: number;
  mistakes: number;
}

export interface PerceptronTrainOptions {
  /** Default: 'tree' for tree candidates, 'tags' for tag candidates. */
  kernel?: PerceptronKernel;
  /** How the trained model predicts by default (default 'averaged'). */
  prediction?: PerceptronPrediction;
  epochs?: number;
  /** Train k perceptrons on k parts of the data in parallel and vote over all (default 1). */
  chunks?: number;
  seed?: number;
  shuffle?: boolean;
  /** Tree kernel decay (default 0.4) or tagging kernel decay (default 0.5). */
  lambda?: number;
  /** Weight of the base model: K'(x, y) = beta L(x) L(y) + K(x, y) (default 0). */
  beta?: number;
  /**
   * A fixed prior on the base model: every hypothesis (in training and prediction) scores
   * G(x) + baseWeight * L(x), so the kernel part must outweigh the base model's preference
   * to change its choice (default 0). Unlike beta's term, its weight is not learned.
   */
  baseWeight?: number;
  /**
   * Tree or tagging kernel: add the reranking features boosting uses (trees: head-to-head
   * dependencies, parallelism, lengths; tags: tag n-grams, words, shapes, whole entities;
   * lib/rerank/perceptron-summed.ts) with this weight:
   * K'(x, y) = K(x, y) + featureWeight * Phi(x) . Phi(y) (default 0: the kernel alone).
   */
  featureWeight?: number;
  /** With featureWeight on trees: the head table the features start from (default the `collins` preset; labels it misses are learned). */
  headRules?: HeadTable;
  /** Tagging kernel: Sim1 / Sim2 weights (default 1 / 0) and Sim2's word class function. */
  sim1?: number;
  sim2?: number;
  wordFeature?: 'none' | 'caps' | 'digits' | 'suffix2' | 'suffix3' | 'shape';
  /**
   * Tagging kernel: use the normalized kernel K(a, b) / sqrt(K(a, a) K(b, b)), so long
   * sentences do not outweigh short ones (default false). beta's term is added after.
   */
  normalize?: boolean;
  /**
   * The per-sentence Score training learns from (default `errors`: -50 x (missed + invented));
   * `f1` is F1 x |gold|, the Score before it, for comparisons.
   */
  score?: ScoreKind;
  /** Linear kernel features: the file's (`file`), built-in (`builtin`), or `auto` (file when every candidate has them). */
  featureSource?: 'auto' | 'file' | 'builtin';
  /** Linear kernel: train in the primal form (same decisions, faster; default true). */
  primal?: boolean;
  /**
   * Tree kernel: score training candidates against a DAG of the support trees' shared
   * subtrees, updated at each mistake. Tagging kernel: score each n-best list at once over
   * its distinct suffixes. Default true (same decisions, faster). When false, kernel sums
   * per support candidate with the kernel cache.
   */
  compressed?: boolean;
  /** Bound on the cache of kernel values between training candidates (default 512 MB). */
  cacheMB?: number;
  threads?: number;
  /** Name used in error messages. */
  file?: string;
  onProgress?: (p: PerceptronProgress) => void;
  signal?: AbortSignal;
  /** Write a training checkpoint here after every epoch (lib/io/checkpoint.ts). */
  checkpoint?: string;
  /** Continue from this checkpoint (same data and options; `epochs` may be larger). */
  resume?: string;
  /**
   * Train by iterative parameter mixing instead (lib/distributed/rerank-mixing.ts): given the
   * spec a worker rebuilds the candidates from, and the candidates built here, it runs
   * `epochs` rounds and returns the last and averaged coefficients (dense over the training
   * candidates). The model then has no voted prediction; chunks, checkpoints and resuming
   * do not apply.
   */
  mixing?: (
    spec: RerankerMixingSpec,
    candidates: NativeCandidateSpec,
    epochs: number,
  ) => Promise<{ last: Float64Array; averaged: Float64Array }>;
}

export interface PerceptronMeta {
  task: 'trees' | 'tags';
  kernel: PerceptronKernel;
  prediction: PerceptronPrediction;
  lambda: number;
  beta: number;
  /** 0 in models saved before it existed. */
  baseWeight?: number;
  /** Kernel plus reranking features: their weight, and for trees the learned head rules and classes. */
  featureWeight?: number;
  treeSettings?: TreeSettings;
  sim1: number;
  sim2: number;
  wordFeature: string;
  /** Tagging kernel normalized (absent = false, as in models saved before it existed). */
  normalize?: boolean;
  featureSource?: 'file' | 'builtin';
  /** Linear models: the feature names, by dense id. */
  features?: string[];
  tagScoring?: TagScoring;
  epochs: number;
  chunks: number;
  seed: number;
  trainSentences: number;
}

/** What `PerceptronReranker.info()` reports: the model file's kind, the task and the trained perceptron. */
export interface PerceptronInfo extends NativePerceptronInfo {
  kind: 'perceptron-reranker';
  /** Reranks trees or tag sequences. */
  task: 'trees' | 'tags';
  /** How the model predicts by default. */
  prediction: PerceptronPrediction;
}

export interface ChooseOptions {
  prediction?: PerceptronPrediction;
  threads?: number;
  /** Use the compressed scorer (tree DAG, tag suffixes) when it applies (default true). */
  compressed?: boolean;
  signal?: AbortSignal;
  file?: string;
}

/** Sentences converted for scoring by one model (see PerceptronReranker.prepare). */
export interface PreparedCandidates {
  readonly spec: NativeCandidateSpec;
  readonly sentences: number;
  readonly candidates: number;
}

export interface RerankEvaluation {
  /** F1 (chunks, brackets) or accuracy (plain tags) of the reranked choices, in percent. */
  f1: number;
  /** Of the base model's first candidate. */
  baselineF1: number;
  /** Of the best candidate by Score: the bound on reranking. */
  oracleF1: number;
  sentences: number;
  chosen: Int32Array;
}

/** The declared fields the API shares with `train-reranker --method perceptron` (lib/options/rerank.ts): their defaults. */
const { epochs, chunks, seed, shuffle, beta, baseWeight, featureWeight, wordFeature, normalize, cacheMB, threads } =
  perceptronFields;
const SHARED_FIELDS = {
  epochs,
  chunks,
  seed,
  shuffle,
  beta,
  baseWeight,
  featureWeight,
  wordFeature,
  normalize,
  cacheMB,
  threads,
};

/** The API's options with no command-line field of the same name, and their defaults. */
const API_TRAIN_DEFAULTS = { prediction: 'averaged', primal: true, compressed: true, sim1: 1, sim2: 0 } as const;

function addon(): PerceptronAddon {
  return native<PerceptronAddon>();
}

/**
 * Kernel perceptron reranker (Collins & Duffy) over n-best lists of trees (tree kernel),
 * tag sequences (tagging kernel) or explicit features (linear kernel).
 *
 * @example
 * ```ts
 * const reranker = await PerceptronReranker.train(readNbestSync('train.nbest.jsonl'), { kernel: 'tree', lambda: 0.4 });
 * const chosen = await reranker.rerank(readNbestSync('test.nbest.jsonl'));   // index of the chosen candidate per sentence
 * reranker.save('perceptron.model');
 * ```
 */
export class PerceptronReranker {
  private constructor(
    readonly handle: NativePerceptronModel,
    readonly meta: PerceptronMeta,
    private readonly dictionary: FeatureDictionary | undefined,
  ) {}

  /** Trains a reranker; `run` gives cancellation and the common progress event (lib/train-progress.ts). */
  static async train(
    sentences: readonly NbestSentence[],
    options: PerceptronTrainOptions = {},
    run?: TrainRun,
  ): Promise<PerceptronReranker> {
    options = withRun(options, run, (p: PerceptronProgress) =>
      p.phase === 'features'
        ? { phase: 'sentence', done: p.done, total: p.total }
        : { phase: 'example', done: p.done, total: p.total, loss: p.mistakes },
    );
    const opts = fillDefaults(API_TRAIN_DEFAULTS, withDefaults(SHARED_FIELDS, options));
    const file = opts.file ?? '<n-best>';
    if (sentences.length === 0) throw new InputError(file, undefined, 'no training sentences');
    const task = taskOf(sentences);
    const kernel = opts.kernel ?? (task === 'trees' ? 'tree' : 'tags');
    const featureSource =
      kernel !== 'linear'
        ? undefined
        : opts.featureSource === 'file' || opts.featureSource === 'builtin'
          ? opts.featureSource
          : allHaveFeatures(sentences)
            ? 'file'
            : 'builtin';
    const settings: KernelSettings = {
      kernel,
      lambda: opts.lambda ?? PERCEPTRON_LAMBDA[kernel === 'tags' ? 'tags' : 'tree'],
      sim1: opts.sim1,
      sim2: opts.sim2,
      wordFeature: opts.wordFeature,
      normalize: opts.normalize,
      featureSource,
    };
    if (!(settings.lambda > 0 && settings.lambda <= 1))
      throw optionError(`lambda must be in (0, 1], got ${settings.lambda}`);
    const { featureWeight, epochs, chunks, seed } = opts;
    if (!(Number.isFinite(featureWeight) && featureWeight >= 0))
      throw optionError(`featureWeight must be >= 0, got ${featureWeight}`);
    const conflict = perceptronKernelConflict(kernel, {
      normalize: settings.normalize,
      wordFeature: settings.wordFeature,
      featureWeight,
    });
    if (conflict) throw optionError(`${conflict.field}: ${conflict.message}`);
    const primal = kernel === 'linear' && opts.primal;
    if (opts.mixing) {
      const refused =
        opts.prediction === 'voted'
          ? 'voted prediction'
          : featureWeight > 0
            ? 'reranking features added to the tree kernel'
            : chunks > 1
              ? 'chunks'
              : opts.checkpoint !== undefined || opts.resume !== undefined
                ? 'checkpoints'
                : undefined;
      if (refused !== undefined)
        throw optionError(`parameter mixing has no ${refused} (a mixed model is one set of real coefficients)`);
    }
    let dictionary = kernel === 'linear' ? new FeatureDictionary() : undefined;
    const built = buildCandidates(sentences, settings, { file, withScores: true, dictionary, score: opts.score });
    let treeSettings: TreeSettings | undefined;
    if (featureWeight > 0) {
      // Training lists have gold (their Scores need it), so trees always give settings.
      if (kernel === 'tree')
        treeSettings = (learnListSettings(sentences, opts.headRules, file) ?? learnTreeSettings([], opts.headRules))
          .settings;
      const onExtracted =
        opts.onProgress &&
        ((done: number): void => opts.onProgress?.({ phase: 'features', done, total: sentences.length, mistakes: 0 }));
      const extracted = await trainingFeatureRows(sentences, treeSettings, {
        file,
        threads: opts.threads,
        signal: opts.signal,
        onProgress: onExtracted,
      });
      dictionary = extracted.dictionary;
      built.spec.features = extracted.rows;
      built.spec.featureWeight = featureWeight;
    }
    let finished = false;
    // Everything that shapes the decisions except the epoch count (not threads, the cache,
    // or `compressed`, which make the same decisions): a checkpoint resumes only with these.
    const shaping = {
      settings,
      ...(featureWeight > 0 ? { featureWeight, treeSettings } : {}),
      chunks,
      seed,
      shuffle: opts.shuffle,
      beta: opts.beta,
      baseWeight: opts.baseWeight,
      primal,
      ...(opts.score === 'f1' ? { score: opts.score } : {}),
    };
    // Epochs done and the native run state they left (from a checkpoint, or the last epoch when checkpointing).
    let doneEpochs = 0;
    let saved: Uint8Array | undefined;
    const trainTo = (upTo: number): Promise<NativePerceptronModel> =>
      withCancelFlag(opts.signal, (flag) =>
        addon().perceptronTrain(
          built.spec,
          {
            ...(saved ? { resume: saved, resumeEpochs: doneEpochs } : {}),
            epochs: upTo,
            chunks,
            seed,
            shuffle: opts.shuffle,
            threads: resolveThreads(opts.threads),
            cacheMB: opts.cacheMB,
            beta: opts.beta,
            baseWeight: opts.baseWeight,
            primal,
            compressed: opts.compressed,
          },
          flag,
          opts.onProgress
            ? (done, total, mistakes) => {
                if (!finished) opts.onProgress?.({ done, total, mistakes });
              }
            : undefined,
        ),
      );
    let handle: NativePerceptronModel | undefined;
    const mixing = opts.mixing;
    // With checkpoints an epoch per call, each continuing the previous one; else all epochs in one.
    const trainer: Trainer = {
      step: async ({ until }) => {
        if (mixing) {
          const mixingOptions = {
            shuffle: opts.shuffle,
            beta: opts.beta,
            baseWeight: opts.baseWeight,
            primal,
            cacheMB: opts.cacheMB,
          };
          const spec = rerankerMixingSpec(sentences, file, settings, mixingOptions);
          const { last, averaged } = await mixing(spec, built.spec, epochs);
          handle = addon().perceptronFromCoefficients(
            built.spec,
            { beta: mixingOptions.beta, baseWeight: mixingOptions.baseWeight },
            last,
            averaged,
          );
          return { done: epochs, loss: handle.info().mistakes };
        }
        handle = await trainTo(until);
        if (opts.checkpoint !== undefined) {
          saved = handle.runBytes();
          doneEpochs = until;
        }
        return { done: until, loss: handle.info().mistakes };
      },
      sections: (): Record<string, Uint8Array> => (saved ? { run: saved } : {}),
      loadSections: (sections) => {
        saved = sections.run;
      },
      saveState: () => null,
      loadState: (_json, step) => {
        doneEpochs = step;
        return { best: undefined, bestStep: 0, bad: 0, stopped: false };
      },
    };
    await runTraining(trainer, {
      total: epochs,
      signal: opts.signal,
      checkpoint: {
        trainer: 'perceptron-reranker',
        file: opts.checkpoint,
        resume: opts.resume,
        options: shaping,
        fingerprint: () => [JSON.stringify(shaping), JSON.stringify(sentences)],
        refuseLonger: 'epochs',
      },
    });
    // Resumed from a checkpoint of all the epochs: the model is that state's.
    handle ??= await trainTo(epochs);
    // Progress calls still queued on the event loop would arrive after the end: drop them
    // and report the final state once.
    finished = true;
    const final = handle.info();
    opts.onProgress?.({ done: final.steps, total: final.steps, mistakes: final.mistakes });
    let modelDictionary: FeatureDictionary | undefined;
    if (dictionary) {
      const old = handle.compactFeatures();
      modelDictionary = new FeatureDictionary(Array.from(old, (id) => dictionary.names[id]));
      modelDictionary.frozen = true;
    }
    const meta: PerceptronMeta = {
      task,
      kernel,
      prediction: opts.prediction,
      lambda: settings.lambda,
      beta: opts.beta,
      baseWeight: opts.baseWeight,
      sim1: settings.sim1,
      sim2: settings.sim2,
      wordFeature: settings.wordFeature,
      ...(settings.normalize ? { normalize: true } : {}),
      ...(featureWeight > 0 ? { featureWeight, treeSettings } : {}),
      featureSource,
      tagScoring: built.tagScoring,
      epochs,
      chunks,
      seed,
      trainSentences: sentences.length,
    };
    return new PerceptronReranker(handle, meta, modelDictionary);
  }

  /** Training statistics of a freshly trained model (kernel calls computed, cache hits). */
  get stats(): { kernelCalls: number; cacheHits: number } | undefined {
    return this.handle.stats;
  }

  /** The model's kind, task, kernel and the trained perceptron's size. */
  info(): PerceptronInfo {
    return { kind: MODEL_KIND, task: this.meta.task, prediction: this.meta.prediction, ...this.handle.info() };
  }

  /**
   * Converts sentences once into the native form the model scores (parsing, interning), so
   * repeated `choose` calls on the same sentences skip that work.
   */
  prepare(sentences: readonly NbestSentence[], file = '<n-best>'): PreparedCandidates {
    const built = this.build(sentences, file);
    if (this.meta.featureWeight && this.dictionary) {
      built.spec.features = summedFeatureRowsSync(sentences, this.meta.treeSettings, this.dictionary);
    }
    return { spec: built.spec, sentences: sentences.length, candidates: built.spec.logprobs.length };
  }

  /** `prepare` with the reranking features extracted off the JS thread. */
  private async prepareAsync(sentences: readonly NbestSentence[], options: ChooseOptions): Promise<PreparedCandidates> {
    if (!this.meta.featureWeight) return this.prepare(sentences, options.file);
    const file = options.file ?? '<n-best>';
    const built = this.build(sentences, file);
    if (this.dictionary) {
      built.spec.features = await summedFeatureRows(sentences, this.meta.treeSettings, this.dictionary, {
        file,
        threads: options.threads,
        signal: options.signal,
      });
    }
    return { spec: built.spec, sentences: sentences.length, candidates: built.spec.logprobs.length };
  }

  private build(sentences: readonly NbestSentence[], file: string): ReturnType<typeof buildCandidates> {
    if (sentences.length > 0 && taskOf(sentences) !== this.meta.task) {
      throw new InputError(
        file,
        undefined,
        `the model reranks ${this.meta.task === 'trees' ? 'trees' : 'tag sequences'}`,
      );
    }
    const settings: KernelSettings = { ...this.meta, featureSource: this.meta.featureSource };
    const built = buildCandidates(sentences, settings, {
      file,
      withScores: false,
      dictionary: this.meta.kernel === 'linear' ? this.dictionary : undefined,
    });
    if (this.meta.featureWeight) built.spec.featureWeight = this.meta.featureWeight;
    return built;
  }

  /** The chosen candidate index of every sentence, and each candidate's score (vote share when voted). */
  async choose(
    sentences: readonly NbestSentence[] | PreparedCandidates,
    options: ChooseOptions = {},
  ): Promise<{ chosen: Int32Array; scores: Float64Array }> {
    const prepared = Array.isArray(sentences)
      ? await this.prepareAsync(sentences as readonly NbestSentence[], options)
      : (sentences as PreparedCandidates);
    const mode = MODES[options.prediction ?? this.meta.prediction];
    return withCancelFlag(options.signal, (flag) =>
      this.handle.choose(prepared.spec, mode, resolveThreads(options.threads), options.compressed ?? true, flag),
    );
  }

  /** The chosen candidate of each sentence, off the JS thread and cancellable: `choose` without the scores. */
  async rerank(
    sentences: readonly NbestSentence[] | PreparedCandidates,
    options: ChooseOptions = {},
  ): Promise<Int32Array> {
    return (await this.choose(sentences, options)).chosen;
  }

  /** Reranks sentences with gold and reports F1 against the baseline and oracle. */
  async evaluate(sentences: readonly NbestSentence[], options: ChooseOptions = {}): Promise<RerankEvaluation> {
    const file = options.file ?? '<n-best>';
    const { chosen } = await this.choose(sentences, options);
    const scoring = this.meta.tagScoring ?? 'iob2';
    const total = (pick: (s: NbestSentence, i: number) => number): MatchCounts => {
      const sum: MatchCounts = { matched: 0, gold: 0, test: 0 };
      sentences.forEach((s, i) => {
        const c = countsFor(s, pick(s, i), file, this.meta.task, scoring);
        sum.matched += c.matched;
        sum.gold += c.gold;
        sum.test += c.test;
      });
      return sum;
    };
    const figure = (c: MatchCounts): number =>
      this.meta.task === 'tags' && scoring === 'accuracy' ? (c.gold ? (100 * c.matched) / c.gold : 0) : f1Of(c);
    const logprobs = (s: NbestSentence): number[] => s.candidates.map((c) => c.logprob);
    const oracle = sentences.map((s) => oracleIndex(sentenceScores(s, file, scoring), logprobs(s)));
    const base = sentences.map((s) => baseIndex(logprobs(s)));
    return {
      f1: figure(total((_, i) => chosen[i])),
      baselineF1: figure(total((_, i) => base[i])),
      oracleF1: figure(total((_, i) => oracle[i])),
      sentences: sentences.length,
      chosen,
    };
  }

  toBytes(): Uint8Array {
    return this.handle.save();
  }

  /** Writes the model file (atomically: a temp file renamed into place). */
  save(file: string): void {
    const meta = { ...this.meta, features: this.dictionary?.names };
    saveModel(file, { kind: MODEL_KIND, kindVersion: MODEL_VERSION, meta, payload: this.handle.save() });
  }

  /**
   * Reads a model file `save` (or `structrank train-perceptron`) wrote. A file of another
   * kind is a ModelKindError; a damaged one a ModelFileError.
   *
   * @example
   * ```ts
   * const reranker = await PerceptronReranker.load('perceptron.model');
   * ```
   */
  static async load(file: string): Promise<PerceptronReranker> {
    return PerceptronReranker.fromModelFile(file, await loadModelAsync<PerceptronMeta>(file, MODEL_KIND));
  }

  /** `load` on the JS thread (blocks while the file is read). */
  static loadSync(file: string): PerceptronReranker {
    return PerceptronReranker.fromModelFile(file, loadModel<PerceptronMeta>(file, MODEL_KIND));
  }

  private static fromModelFile(file: string, m: ModelFile<PerceptronMeta>): PerceptronReranker {
    if (m.kindVersion > MODEL_VERSION)
      throw new ModelFileError(
        file,
        `perceptron model version ${m.kindVersion} is newer than supported (${MODEL_VERSION})`,
      );
    let handle: NativePerceptronModel;
    try {
      handle = addon().PerceptronModel.load(m.payload);
    } catch (err) {
      throw inModelFile(err, file);
    }
    const meta = m.meta;
    if (meta === null || typeof meta !== 'object' || (meta.task !== 'trees' && meta.task !== 'tags')) {
      throw new ModelFileError(file, 'perceptron model metadata is missing or malformed');
    }
    const settingsMissing =
      meta.task === 'trees' && (typeof meta.treeSettings !== 'object' || meta.treeSettings === null);
    if (meta.featureWeight !== undefined && (settingsMissing || !Array.isArray(meta.features))) {
      throw new ModelFileError(file, 'perceptron model with reranking features lacks their settings or names');
    }
    let dictionary: FeatureDictionary | undefined;
    if (meta.kernel === 'linear' || meta.featureWeight) {
      dictionary = new FeatureDictionary(meta.features ?? []);
      dictionary.frozen = true;
    }
    delete meta.features;
    // Models saved before lib/eval/score.ts named the chunk scoring by its scheme.
    const legacy: Record<string, TagScoring> = { chunks: 'iob2', 'chunks-iobes': 'iobes' };
    if (meta.tagScoring !== undefined && legacy[meta.tagScoring] !== undefined)
      meta.tagScoring = legacy[meta.tagScoring];
    return new PerceptronReranker(handle, meta, dictionary);
  }
}

function countsFor(
  s: NbestSentence,
  j: number,
  file: string,
  task: 'trees' | 'tags',
  scoring: TagScoring,
): MatchCounts {
  if (s.gold === undefined) throw new InputError(file, s.line, `sentence ${s.id} has no gold`);
  if (task === 'trees') {
    if (typeof s.gold !== 'string') throw new InputError(file, s.line, `sentence ${s.id}: gold must be a tree`);
    return treeCounts(parseTree(s.gold, file, s.line), candidateTree(s, j, file));
  }
  if (!Array.isArray(s.gold)) throw new InputError(file, s.line, `sentence ${s.id}: gold must be tags`);
  return tagCounts(s.gold, candidateTags(s, j, file), scoring);
}

/** Output lines for the chosen candidates: one tree per line, or one CoNLL block (token tag) per sentence. */
export function formatChosen(sentences: readonly NbestSentence[], chosen: Int32Array, file = '<n-best>'): string {
  const out: string[] = [];
  sentences.forEach((s, i) => {
    const j = chosen[i];
    if (s.candidates[j].tree !== undefined) out.push(formatTree(candidateTree(s, j, file)) + '\n');
    else {
      const tags = candidateTags(s, j, file);
      out.push(s.tokens.map((w, t) => `${w} ${tags[t]}\n`).join('') + '\n');
    }
  });
  return out.join('');
}
