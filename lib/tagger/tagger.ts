/**
 * Sequence taggers as global linear models over one feature set: the averaged structured
 * perceptron (Collins 2002), the linear-chain CRF (L-BFGS or SGD, L2 prior) and a locally
 * normalized maxent tagger with beam search (Ratnaparkhi 1996). Training runs in C++ off
 * the JS thread, on all cores for the CRF and maxent gradients.
 */
import { AbortError, InputError, ModelFileError, inModelFile, optionError } from '../errors.js';
import { checkNbestK, type NbestSentence } from '../io/nbest.js';
import { withRun, type TrainRun } from '../train-progress.js';
import { decodeModel, saveModel, type ModelFile } from '../io/model-file.js';
import { readModelBytes, readModelBytesAsync } from './model-bytes.js';
import { runTraining, type ExternalTrainer, type Trainer } from '../training/loop.js';
import type { NbestProducer, PipelineSentence, StepContext } from '../training/model-contract.js';
import { cancelFlagFor, native, resolveThreads, type CancelFlagHandle } from '../native.js';
import { LBFGS_DEFAULTS } from '../options/lbfgs.js';
import type { DevScore } from './dev-score.js';
import type { WordClusters } from './word-clusters.js';
import type { TemplateChoice, DefaultTemplateName, TemplateSet } from './templates.js';
import { isTrainingColumns, type TrainingColumns } from './training-columns.js';

export type TaggerAlgorithm = 'perceptron' | 'crf' | 'maxent';
const ALGORITHMS: TaggerAlgorithm[] = ['perceptron', 'crf', 'maxent'];

interface NativeTaggerHandle {
  buildTraining(
    text: string | Uint8Array,
    labels: string | Uint8Array,
  ): { sentences: number; tokens: number; attributes: number; features: number };
  buildTrainingRows(
    sentences: TokenRows[],
    inputIdx: Int32Array,
    labelIndex: number,
  ): { sentences: number; tokens: number; attributes: number; features: number };
  createTrainer(options: {
    optimizer: number;
    c2: number;
    eta0: number;
    threads: number;
    seed: number;
    memory: number;
    sgdWarmup: number;
    startWeights: boolean;
  }): void;
  trainSteps(n: number, flag: CancelFlagHandle): Promise<{ loss: number; steps: number; converged: boolean }>;
  snapshot(): void;
  restore(): void;
  trainerState(): Uint8Array;
  loadTrainerState(bytes: Uint8Array): void;
  releaseTraining(): void;
  weights(): Float64Array;
  setWeights(w: Float64Array): void;
  shardGradient(
    w: Float64Array,
    first: number,
    last: number,
    threads: number,
    startWeights: boolean,
    flag: CancelFlagHandle,
  ): Promise<{ loss: number; gradient: Float64Array }>;
  shardPerceptronEpoch(
    w: Float64Array,
    first: number,
    last: number,
    seed: number,
    startWeights: boolean,
    flag: CancelFlagHandle,
  ): Promise<{ mistakes: number; weights: Float64Array; averaged: Float64Array }>;
  tag(text: string, threads: number): Int32Array;
  tagColumns(
    block: Uint8Array,
    final: boolean,
    width: number,
    layout: ColumnLayout,
    threads: number,
    into?: Uint8Array,
  ): ColumnBlockResult;
  tagAsync(text: string, threads: number, flag: CancelFlagHandle): Promise<Int32Array>;
  tagNbest(text: string, k: number): { counts: Int32Array; labels: Int32Array; scores: Float64Array };
  tagNbestAsync(
    text: string,
    k: number,
    threads: number,
    flag: CancelFlagHandle,
  ): Promise<{ counts: Int32Array; labels: Int32Array; scores: Float64Array }>;
  labels(): string[];
  info(): {
    algorithm: number;
    order: number;
    labels: number;
    attributes: number;
    features: number;
    weights: number;
    numColumns: number;
  };
  serialize(): Uint8Array;
}

interface TaggerAddon {
  NativeTagger: {
    new (options?: {
      algorithm: number;
      order: number;
      beam: number;
      numColumns: number;
      templates: Int32Array;
      clusters?: string;
    }): NativeTaggerHandle;
    deserialize(bytes: Uint8Array): NativeTaggerHandle;
    /** Native memory a model file is read into, so the model can use its arrays in place. */
    sharedBytes(size: number): Buffer;
  };
}

/** How CoNLL lines map onto the model's input columns (tagColumnBlock). */
export interface ColumnLayout {
  inputColumns: number;
  allColumns: number;
  /** Input column c's position in a line with all training columns. */
  fullIndex: Int32Array;
  tab: boolean;
}

/** One block of CoNLL text tagged natively; errorLine > 0 names a bad line of the block (1-based). */
export interface ColumnBlockResult {
  output: Uint8Array;
  consumed: number;
  lines: number;
  width: number;
  errorLine: number;
  errorFound: number;
  /** 1: the first token line fits neither layout; 2: a line's width differs from the first's. */
  errorKind: number;
}

/** One sentence: rows[token][column] in the training column layout (or input columns only). */
export type TokenRows = string[][];

export interface TrainProgress {
  /** Epochs (perceptron, SGD) or L-BFGS iterations done. */
  step: number;
  total: number;
  loss: number;
  dev?: DevScore;
  best?: DevScore;
}

export interface TaggerTrainOptions {
  algo: TaggerAlgorithm;
  /** Names of the columns of the training rows, e.g. ['word', 'pos', 'chunk']. */
  columns: string[];
  /** The column to predict. */
  label: string;
  /** Label order; default 1, or the chosen template's order when `templates` is not given (2 for entities). */
  order?: 1 | 2;
  /** A default set name or explicit templates (see templates.ts). Default: chosen from the training labels (chooseDefaultTemplate: entities, chunks or parts of speech). */
  templates?: DefaultTemplateName | TemplateSet;
  /** The file the templates were read from, named in template errors (default `<templates>`). */
  templatesFile?: string;
  /** The file the training sentences were read from, named in data errors (default `<train>`; a TrainingColumns names its own). */
  trainFile?: string;
  /** `word<TAB>cluster` file for cluster templates, or clusters computed by clusterWords (word-clusters.ts). */
  clusters?: string | WordClusters;
  /** Epochs (perceptron, SGD) or L-BFGS iterations (CRF L-BFGS, maxent). */
  epochs?: number;
  /** CRF optimizer. */
  optimizer?: 'lbfgs' | 'sgd';
  /** CRF with L-BFGS: run this many SGD epochs first (counted in `epochs`), then L-BFGS. */
  sgdWarmup?: number;
  /** L2 weight: the objective adds c2 * |w|^2. */
  c2?: number;
  /**
   * Learn weights for (sentence start, label) transitions (default true). `false` keeps them
   * at 0: the objective CRFsuite optimizes, for comparing with it at equal work. CRF and
   * perceptron only.
   */
  startWeights?: boolean;
  /** SGD initial gain. */
  eta0?: number;
  /** Beam width of the maxent tagger. */
  beam?: number;
  threads?: number;
  seed?: number;
  /**
   * Dev sentences (same layout as training). Perceptron, maxent and SGD: scored every
   * `evalEvery` epochs, the best model kept, early stopping by `patience`. L-BFGS: training goes
   * to convergence or `epochs` and dev scores the final model (an iterate before convergence
   * is not a regularized model).
   */
  dev?: TokenRows[];
  /** Evaluate the dev set every this many epochs (default 1), and after the last; not used with L-BFGS. */
  evalEvery?: number;
  /** Stop after this many evaluations without a dev improvement (default 3; 0 = never); not used with L-BFGS. */
  patience?: number;
  /** Write a training checkpoint to this file after every epoch / iteration (lib/io/checkpoint.ts). */
  checkpoint?: string;
  /** Continue from this checkpoint (same data and options; `epochs` may be larger). */
  resume?: string;
  signal?: AbortSignal;
  onProgress?: (p: TrainProgress) => void;
  /**
   * Runs the training steps elsewhere (lib/distributed: CRF gradients summed over shards,
   * perceptron parameter mixing), from the spec a worker needs to build the same corpus.
   * Used for the CRF's L-BFGS iterations (after any SGD warm-up) and the perceptron's epochs.
   * @internal
   */
  external?: (spec: TaggerTrainingSpec) => Promise<ExternalTrainer>;
}

/** Everything a worker needs to build the coordinator's training corpus and features. */
export interface TaggerTrainingSpec {
  algorithm: TaggerAlgorithm;
  order: 1 | 2;
  beam: number;
  numColumns: number;
  templates: number[];
  clusters?: string;
  /** The native text layout of the training sentences and their labels (see encode). */
  text: string;
  labels: string;
  sentences: number;
  startWeights: boolean;
  c2: number;
  seed: number;
}

/** Training steps run elsewhere (lib/training/loop.ts): each returns the weights to tag with after it. */
export type { ExternalTrainer };

/** A worker's copy of the training corpus: shard computations on sentences [first, last). */
export interface ShardTrainingHandle {
  gradient(
    w: Float64Array,
    first: number,
    last: number,
    threads: number,
    signal?: AbortSignal,
  ): Promise<{ loss: number; gradient: Float64Array }>;
  perceptronEpoch(
    w: Float64Array,
    first: number,
    last: number,
    seed: number,
    signal?: AbortSignal,
  ): Promise<{ mistakes: number; weights: Float64Array; averaged: Float64Array }>;
}

/** Builds the corpus and features of a training spec, as Tagger.train does. */
export function shardTrainingHandle(spec: TaggerTrainingSpec): ShardTrainingHandle {
  const { NativeTagger } = native<TaggerAddon>();
  const handle = new NativeTagger({
    algorithm: ALGORITHMS.indexOf(spec.algorithm),
    order: spec.order,
    beam: spec.beam,
    numColumns: spec.numColumns,
    templates: Int32Array.from(spec.templates),
    clusters: spec.clusters,
  });
  handle.buildTraining(spec.text, spec.labels);
  const withFlag = async <T>(
    signal: AbortSignal | undefined,
    f: (flag: CancelFlagHandle) => Promise<T>,
  ): Promise<T> => {
    const { flag, dispose } = cancelFlagFor(signal);
    try {
      return await f(flag);
    } finally {
      dispose();
    }
  };
  return {
    gradient: (w, first, last, threads, signal) =>
      withFlag(signal, (flag) => handle.shardGradient(w, first, last, threads, spec.startWeights, flag)),
    perceptronEpoch: (w, first, last, seed, signal) =>
      withFlag(signal, (flag) => handle.shardPerceptronEpoch(w, first, last, seed, spec.startWeights, flag)),
  };
}

export interface TaggerMeta {
  algo: TaggerAlgorithm;
  columns: string[];
  label: string;
  inputColumns: string[];
  order: 1 | 2;
  templates: TemplateSet;
  /** The default set chosen from the labels when no templates were given, and why. */
  templateChoice?: TemplateChoice;
  trainedSteps: number;
  dev?: DevScore;
}

/** What `Tagger.info()` reports: the model file's kind, the algorithm and the model's size. */
export interface TaggerInfo {
  kind: 'tagger';
  algo: TaggerAlgorithm;
  columns: string[];
  label: string;
  order: number;
  labels: number;
  attributes: number;
  features: number;
  weights: number;
}

/** Options of the batch verbs `tag` and `tagNbest`. */
export interface TagOptions {
  /** Cores to use (default all). */
  threads?: number;
  /** Stops tagging with an AbortError. */
  signal?: AbortSignal;
}

export interface TagCandidate {
  tags: string[];
  /** Log-probability (CRF: exact; maxent: from the beam) or score (perceptron). */
  logprob: number;
}

const MODEL_KIND = 'tagger';
/** 2: arrays aligned and used in place, the attribute hash table stored; 3: its slots of 12 bytes, not 16 (1 and 2 still load). */
const MODEL_VERSION = 3;

function checkField(v: string): string {
  if (v.includes('\t') || v.includes('\n'))
    throw new InputError('<tokens>', undefined, 'a token field contains a tab or newline');
  return v;
}

/**
 * A sequence tagger: averaged perceptron, CRF or maximum entropy, over CoNLL-style rows.
 *
 * @example
 * ```ts
 * const rows = readConllSync('train.conll').map((s) => s.rows);      // [['The', 'DT', 'O'], ...] per sentence
 * const tagger = await Tagger.train(rows, { algo: 'crf', columns: ['word', 'pos', 'ne'], label: 'ne', templates: 'ner' });
 * const [tags] = await tagger.tag([[['Ana', 'NNP'], ['duerme', 'VMI']]]);   // one string[] per sentence
 * tagger.save('ner.model');
 * const again = await Tagger.load('ner.model');
 * ```
 */
export class Tagger implements NbestProducer {
  private labelNames: string[];

  private constructor(
    private readonly handle: NativeTaggerHandle,
    readonly meta: TaggerMeta,
  ) {
    this.labelNames = handle.labels();
  }

  /** Label names, indexed by the ids the native side returns. */
  get labels(): string[] {
    return this.labelNames;
  }

  /** The model's kind, algorithm, columns and size. */
  info(): TaggerInfo {
    const { algorithm: _algorithm, numColumns: _numColumns, ...size } = this.handle.info();
    (void _algorithm, void _numColumns);
    return { kind: MODEL_KIND, algo: this.meta.algo, columns: this.meta.columns, label: this.meta.label, ...size };
  }

  /** Trains a tagger; `run` gives cancellation and the common progress event (lib/train-progress.ts). */
  static async train(
    train: TokenRows[] | TrainingColumns,
    options: TaggerTrainOptions,
    run?: TrainRun,
  ): Promise<Tagger> {
    options = withRun(options, run, (p: TrainProgress) => ({
      phase: 'epoch',
      done: p.step,
      total: p.total,
      loss: p.loss,
      devScore: p.dev?.value,
      devMetric: p.dev?.name,
    }));
    // Loaded here, not at the top: tagging with a saved model needs none of them (and the
    // option schemas' library costs a tagging process more start-up time than its model).
    const [
      { looksLikeChunkTags, scoreTags },
      { formatClusters },
      { checkOptions },
      { withDefaults },
      { TAGGER_C2, TAGGER_EPOCHS, TAGGER_EVAL_EVERY, taggerHyperFields, usesLbfgs },
      { chooseDefaultTemplate, compileTemplates, DEFAULT_TEMPLATES, defaultTemplateSet, readClusters, labelCounts },
    ] = await Promise.all([
      import('./dev-score.js'),
      import('./word-clusters.js'),
      import('../options/field.js'),
      import('../training/options.js'),
      import('../options/tagger.js'),
      import('./templates.js'),
    ]);
    const { algo, columns, label } = options;
    if (!ALGORITHMS.includes(algo)) throw optionError(`unknown algorithm '${algo}'`);
    const labelIndex = columns.indexOf(label);
    if (labelIndex < 0) throw optionError(`label column '${label}' is not among the columns [${columns.join(', ')}]`);
    const inputColumns = columns.filter((_, i) => i !== labelIndex);
    if (inputColumns.length === 0) throw optionError('no input columns besides the label');
    checkOptions(taggerHyperFields, options, (message) => optionError(message));
    const fromDefault = options.templates === undefined || typeof options.templates === 'string';
    const fromFile = isTrainingColumns(train) ? train : undefined;
    if (fromFile && (fromFile.label !== label || fromFile.columns.join('\t') !== columns.join('\t'))) {
      throw optionError(
        `${fromFile.file} was read with columns [${fromFile.columns.join(', ')}] and label '${fromFile.label}', not [${columns.join(', ')}] and '${label}'`,
      );
    }
    const rows = fromFile ? undefined : (train as TokenRows[]);
    const labels = fromFile ? fromFile.labelCounts : labelCounts(rows as TokenRows[], labelIndex);
    if (labels.size === 1) {
      const [only] = labels.keys();
      const unset = only === '_' ? " ('_' marks a field with no value in CoNLL-U)" : '';
      throw new InputError(
        fromFile?.file ?? options.trainFile ?? '<train>',
        undefined,
        `every token's ${label} is '${only}'${unset}: a tagger needs at least two labels`,
      );
    }
    const choice = options.templates === undefined ? chooseDefaultTemplate(labels, inputColumns) : undefined;
    // The options complete: the order the chosen templates want when none was given, then the
    // fields' defaults; those whose default depends on the algorithm are resolved here.
    const opts = withDefaults(taggerHyperFields, { ...options, order: options.order ?? choice?.order });
    const lbfgs = usesLbfgs(algo, opts.optimizer);
    const c2 = opts.c2 ?? TAGGER_C2[algo];
    const total = opts.epochs ?? TAGGER_EPOCHS[lbfgs ? 'lbfgs' : 'passes'];
    const evalEvery = Math.max(1, opts.evalEvery ?? TAGGER_EVAL_EVERY[lbfgs ? 'lbfgs' : 'passes']);
    const startWeights = opts.startWeights !== false;
    const { order } = opts;
    const named =
      typeof opts.templates === 'string'
        ? DEFAULT_TEMPLATES[opts.templates]
        : (opts.templates ?? DEFAULT_TEMPLATES[(choice as TemplateChoice).name]);
    if (named === undefined) throw optionError(`unknown template set '${String(opts.templates)}'`);
    const set = fromDefault ? defaultTemplateSet(named, inputColumns, labels.size) : named;
    const clusters =
      typeof opts.clusters === 'string'
        ? readClusters(opts.clusters)
        : opts.clusters
          ? formatClusters(opts.clusters)
          : undefined;
    const compiled = compileTemplates(set, inputColumns, {
      dropMissing: fromDefault,
      haveClusters: clusters !== undefined,
      where: opts.templatesFile,
    });
    const { NativeTagger } = native<TaggerAddon>();
    const handle = new NativeTagger({
      algorithm: ALGORITHMS.indexOf(algo),
      order,
      beam: opts.beam,
      numColumns: inputColumns.length,
      templates: compiled.ints,
      clusters,
    });
    const inputIdx = inputColumns.map((c) => columns.indexOf(c));
    if ((fromFile ? fromFile.sentences : (rows as TokenRows[]).length) === 0)
      throw new InputError(fromFile?.file ?? opts.trainFile ?? '<train>', undefined, 'no training sentences');
    // The encoded text is as large as the corpus, and building it in JS leaves as much again
    // for the garbage collector: only a checkpoint's fingerprint and workers (external) need
    // it; otherwise native code reads the rows themselves.
    const needText = opts.checkpoint !== undefined || opts.resume !== undefined || opts.external !== undefined;
    let encoded: { text: string; labels?: string } | undefined;
    let built: { sentences: number; tokens: number; attributes: number; features: number };
    if (fromFile) {
      if (needText)
        encoded = {
          text: Buffer.from(fromFile.text).toString('utf8'),
          labels: Buffer.from(fromFile.labels).toString('utf8'),
        };
      built = handle.buildTraining(fromFile.text, fromFile.labels);
    } else if (needText) {
      encoded = encode(rows as TokenRows[], columns.length, inputIdx, labelIndex);
      built = handle.buildTraining(encoded.text, encoded.labels ?? '');
    } else {
      checkRows(rows as TokenRows[], columns.length, [...inputIdx, labelIndex]);
      built = handle.buildTrainingRows(rows as TokenRows[], Int32Array.from(inputIdx), labelIndex);
    }
    handle.createTrainer({
      optimizer: opts.optimizer === 'sgd' ? 1 : 0,
      c2,
      eta0: opts.eta0,
      threads: resolveThreads(opts.threads),
      memory: LBFGS_DEFAULTS.memory,
      seed: opts.seed,
      sgdWarmup: opts.sgdWarmup,
      startWeights,
    });
    const meta: TaggerMeta = {
      algo,
      columns,
      label,
      inputColumns,
      order,
      templates: compiled.templates,
      trainedSteps: 0,
      ...(choice ? { templateChoice: choice } : {}),
    };
    const tagger = new Tagger(handle, meta);
    const dev = opts.dev;
    const devGold = dev?.map((s) => s.map((r) => r[labelIndex]));
    const chunked = devGold !== undefined && looksLikeChunkTags(tagger.labels);
    // Everything that shapes the model except the step count (and threads): a checkpoint
    // resumes only with the same values and data.
    const checkpointOptions = {
      algo,
      columns,
      label,
      order,
      templates: compiled.templates,
      clusters: clusters ?? null,
      optimizer: opts.optimizer,
      c2,
      eta0: opts.eta0,
      beam: opts.beam,
      seed: opts.seed,
      sgdWarmup: opts.sgdWarmup,
      startWeights,
      evalEvery,
      patience: opts.patience,
      // Training spread over shards: its optimizer state is the coordinator's (the
      // `external` section), so a local checkpoint and a distributed one do not mix.
      ...(opts.external ? { distributed: true } : {}),
    };
    const external = opts.external;
    const fingerprint = function* (): Iterable<string> {
      const text = encoded;
      // Past the fingerprint only workers building their copy need the text.
      if (!external) encoded = undefined;
      yield JSON.stringify(checkpointOptions);
      yield text?.text ?? '';
      yield text?.labels ?? '';
      if (dev) {
        const d = encode(dev, columns.length, inputIdx, labelIndex);
        yield d.text;
        yield d.labels ?? '';
      }
    };
    // What a worker needs to build the same corpus (distributed training).
    const trainingSpec = (): TaggerTrainingSpec => ({
      algorithm: algo,
      order,
      beam: opts.beam,
      numColumns: inputColumns.length,
      templates: [...compiled.ints],
      clusters,
      text: encoded?.text ?? '',
      labels: encoded?.labels ?? '',
      sentences: built.sentences,
      startWeights,
      c2,
      seed: opts.seed,
    });
    // CRF: the L-BFGS iterations after any SGD warm-up; perceptron: every epoch.
    const externalFrom = algo === 'crf' && lbfgs ? opts.sgdWarmup : algo === 'perceptron' ? 0 : Infinity;
    const { flag, dispose } = cancelFlagFor(opts.signal);
    const trainer: Trainer<DevScore> = {
      // One step at a time, so progress is reported after every epoch / iteration.
      step: async ({ done, externalStep }) => {
        if (externalStep && done >= externalFrom) {
          const e = await externalStep();
          return { done: done + 1, loss: e.loss, converged: e.converged };
        }
        const r = await handle.trainSteps(1, flag);
        return { done: r.steps, loss: r.loss, converged: r.converged };
      },
      ...(dev && devGold
        ? {
            devScore: async () =>
              scoreTags(devGold, await tagger.tag(dev, { threads: opts.threads, signal: opts.signal }), chunked),
          }
        : {}),
      snapshot: () => handle.snapshot(),
      restore: () => handle.restore(),
      sections: () => ({ trainer: handle.trainerState() }),
      loadSections: (sections) => handle.loadTrainerState(sections.trainer ?? new Uint8Array()),
      ...(external
        ? {
            external: {
              start: () => external(trainingSpec()),
              weights: () => handle.weights(),
              setWeights: (w: Float64Array) => handle.setWeights(w),
            },
          }
        : {}),
    };
    try {
      // With L-BFGS dev chooses no iterate: one before convergence is not a regularized model, and
      // dev-best iterates scored lower on held-out data than the run to convergence or the cap
      // (docs/design/tagger-templates.md). The run goes on; dev scores the final model.
      const result = await runTraining(trainer, {
        total,
        evalEvery,
        devChooses: !lbfgs,
        patience: opts.patience,
        signal: opts.signal,
        checkpoint: {
          trainer: 'tagger',
          file: opts.checkpoint,
          resume: opts.resume,
          options: checkpointOptions,
          fingerprint,
        },
        onStep: (e) => opts.onProgress?.({ step: e.done, total, loss: e.loss, dev: e.dev, best: e.best }),
      });
      meta.trainedSteps = !lbfgs && result.best !== undefined ? result.bestStep : result.done;
      meta.dev = result.best;
    } finally {
      dispose();
      handle.releaseTraining();
    }
    return tagger;
  }

  /** Input column indices of a row layout: full training columns or input columns only. */
  private inputIndices(width: number): number[] {
    const { columns, inputColumns } = this.meta;
    if (width === columns.length) return inputColumns.map((c) => columns.indexOf(c));
    if (width === inputColumns.length) return inputColumns.map((_, i) => i);
    // Wider input (extra trailing columns): the first `columns.length` follow the training layout.
    if (width > columns.length) return inputColumns.map((c) => columns.indexOf(c));
    throw new InputError(
      '<tokens>',
      undefined,
      `expected ${inputColumns.length} or ${columns.length} columns (${this.meta.columns.join(', ')}), found ${width}`,
    );
  }

  private encodeInput(sentences: TokenRows[]): string {
    if (sentences.length === 0) return '';
    const width = sentences.find((s) => s.length > 0)?.[0]?.length ?? this.meta.inputColumns.length;
    return encode(sentences, width, this.inputIndices(width), -1).text;
  }

  private split(ids: Int32Array, sentences: TokenRows[]): string[][] {
    const out: string[][] = [];
    let k = 0;
    for (const s of sentences) {
      const tags = new Array<string>(s.length);
      for (let i = 0; i < s.length; i++) tags[i] = this.labelNames[ids[k++]];
      out.push(tags);
    }
    return out;
  }

  /**
   * Tags a batch of sentences off the JS thread, on `threads` cores (default all); rows in
   * the training column layout or the input columns only. One tag sequence per sentence.
   *
   * @example
   * ```ts
   * const tags = await tagger.tag([[['Ana', 'NNP'], ['sleeps', 'VBZ']]], { signal: AbortSignal.timeout(60_000) }); // [['B-PER', 'O']]
   * ```
   */
  async tag(sentences: TokenRows[], options: TagOptions = {}): Promise<string[][]> {
    const { flag, dispose } = cancelFlagFor(options.signal);
    try {
      const ids = await this.handle.tagAsync(this.encodeInput(sentences), resolveThreads(options.threads), flag);
      return this.split(ids, sentences);
    } finally {
      dispose();
    }
  }

  /**
   * Tags a block of CoNLL column text (whole lines, valid UTF-8) without leaving native code:
   * the `tag` command's streaming path (lib/tagger/tag-stream.ts). Without `final`, lines after
   * the block's last sentence end are left unconsumed for the next block. Synchronous: keep
   * blocks small (a quarter MiB is a few milliseconds of work). The output is written at the
   * start of `into` (and is a view of it) when it fits there, else into a new array.
   * @internal
   */
  tagColumnBlock(
    block: Uint8Array,
    final: boolean,
    width: number,
    separator: 'whitespace' | 'tab',
    threads = 0,
    into?: Uint8Array,
  ): ColumnBlockResult {
    const { columns, inputColumns } = this.meta;
    const layout: ColumnLayout = {
      inputColumns: inputColumns.length,
      allColumns: columns.length,
      fullIndex: Int32Array.from(inputColumns.map((c) => columns.indexOf(c))),
      tab: separator === 'tab',
    };
    return this.handle.tagColumns(block, final, width, layout, resolveThreads(threads), into);
  }

  /** `tag` on the JS thread, on one core: cheap for a few sentences. */
  tagSync(sentences: TokenRows[]): string[][] {
    const nonEmpty = sentences.filter((s) => s.length > 0);
    if (nonEmpty.length === 0) return sentences.map(() => []);
    return this.split(this.handle.tag(this.encodeInput(nonEmpty), 1), sentences);
  }

  /** The k best tag sequences of each sentence, best first, off the JS thread (`threads` cores, default all). */
  async tagNbest(sentences: TokenRows[], k: number, options: TagOptions = {}): Promise<TagCandidate[][]> {
    checkNbestK(k);
    const nonEmpty = sentences.filter((s) => s.length > 0);
    const { flag, dispose } = cancelFlagFor(options.signal);
    try {
      return this.splitNbest(
        sentences,
        await this.handle.tagNbestAsync(this.encodeInput(nonEmpty), k, resolveThreads(options.threads), flag),
      );
    } finally {
      dispose();
    }
  }

  /**
   * The k-best tag sequences of pipeline sentences (NbestProducer: each sentence's `rows`),
   * in batches off the JS thread on all cores each, with progress and cancellation between them.
   */
  async nbest(sentences: PipelineSentence[], k: number, ctx: StepContext): Promise<NbestSentence[]> {
    const out: NbestSentence[] = [];
    const batch = 1024;
    for (let b = 0; b < sentences.length; b += batch) {
      if (ctx.signal?.aborted) throw new AbortError();
      const part = sentences.slice(b, b + batch);
      const lists = await this.tagNbest(
        part.map((s) => s.rows as string[][]),
        k,
        { threads: ctx.threads, signal: ctx.signal },
      );
      lists.forEach((cands, i) => {
        out.push({
          id: part[i].id,
          tokens: part[i].tokens,
          candidates: cands.map((x) => ({ tags: x.tags, logprob: x.logprob })),
          line: 0,
        });
      });
      ctx.progress?.(`${k}-best tags`, Math.min(sentences.length, b + batch), sentences.length);
    }
    return out;
  }

  /** `tagNbest` on the JS thread, on one core. */
  tagNbestSync(sentences: TokenRows[], k: number): TagCandidate[][] {
    checkNbestK(k);
    const nonEmpty = sentences.filter((s) => s.length > 0);
    return this.splitNbest(sentences, this.handle.tagNbest(this.encodeInput(nonEmpty), k));
  }

  private splitNbest(
    sentences: TokenRows[],
    r: { counts: Int32Array; labels: Int32Array; scores: Float64Array },
  ): TagCandidate[][] {
    const out: TagCandidate[][] = [];
    let c = 0;
    let pos = 0;
    let q = 0;
    for (const s of sentences) {
      if (s.length === 0) {
        out.push([{ tags: [], logprob: 0 }]);
        continue;
      }
      const list: TagCandidate[] = [];
      for (let j = 0; j < r.counts[q]; j++) {
        const tags = new Array<string>(s.length);
        for (let i = 0; i < s.length; i++) tags[i] = this.labelNames[r.labels[pos++]];
        list.push({ tags, logprob: r.scores[c++] });
      }
      q++;
      out.push(list);
    }
    return out;
  }

  /** Writes the model file (atomically: a temp file renamed into place). */
  save(file: string): void {
    saveModel(
      file,
      { kind: MODEL_KIND, kindVersion: MODEL_VERSION, meta: this.meta, payload: this.handle.serialize() },
      { alignPayload: true },
    );
  }

  /**
   * Reads a model file `save` (or `structrank train-tagger`) wrote. A file of another kind is
   * a ModelKindError; a damaged one a ModelFileError.
   *
   * @example
   * ```ts
   * const tagger = await Tagger.load('ner.model');
   * ```
   */
  static async load(file: string): Promise<Tagger> {
    const bytes = await readModelBytesAsync(file, sharedBytes);
    return Tagger.fromModelFile(file, decodeModel<TaggerMeta>(bytes, file, MODEL_KIND));
  }

  /** `load` on the JS thread (blocks while the file is read). */
  static loadSync(file: string): Tagger {
    return Tagger.fromModelFile(file, decodeModel<TaggerMeta>(readModelBytes(file, sharedBytes), file, MODEL_KIND));
  }

  private static fromModelFile(file: string, m: ModelFile<TaggerMeta>): Tagger {
    if (m.kindVersion > MODEL_VERSION)
      throw new ModelFileError(file, `tagger model version ${m.kindVersion} is newer than this structrank supports`);
    const meta = m.meta;
    if (!meta || !Array.isArray(meta.columns) || !Array.isArray(meta.inputColumns) || !ALGORITHMS.includes(meta.algo)) {
      throw new ModelFileError(file, 'tagger model metadata is incomplete');
    }
    let handle: NativeTaggerHandle;
    try {
      handle = native<TaggerAddon>().NativeTagger.deserialize(m.payload);
    } catch (err) {
      throw inModelFile(err, file);
    }
    return new Tagger(handle, meta);
  }
}

/** Native memory for a model file: the loaded model uses its arrays where they lie. */
function sharedBytes(size: number): Buffer {
  return native<TaggerAddon>().NativeTagger.sharedBytes(size);
}

/** The checks encode() makes, without building the text: row widths and field contents. */
function checkRows(sentences: TokenRows[], width: number, fields: number[]): void {
  for (const s of sentences) {
    for (const row of s) {
      if (row.length < width)
        throw new InputError('<tokens>', undefined, `expected ${width} columns, found ${row.length}`);
      for (const i of fields) checkField(row[i]);
    }
  }
}

/** Sentences -> the native text layout (and the label text when labelIndex >= 0). */
function encode(
  sentences: TokenRows[],
  width: number,
  inputIdx: number[],
  labelIndex: number,
): { text: string; labels?: string } {
  const text: string[] = [];
  const labels: string[] = [];
  for (const s of sentences) {
    if (s.length === 0) continue;
    for (const row of s) {
      if (row.length < width)
        throw new InputError('<tokens>', undefined, `expected ${width} columns, found ${row.length}`);
      text.push(inputIdx.map((i) => checkField(row[i])).join('\t'));
      if (labelIndex >= 0) labels.push(checkField(row[labelIndex]));
    }
    text.push('');
    if (labelIndex >= 0) labels.push('');
  }
  return { text: text.join('\n') + '\n', labels: labelIndex >= 0 ? labels.join('\n') + '\n' : undefined };
}
