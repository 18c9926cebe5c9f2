/**
 * The chart parser's TypeScript API: train a PCFG (and optionally the CRF-CFG) from
 * treebank trees, parse tokenized sentences to plain PTB trees (1-best or exact k-best,
 * each with its log-probability), save and load model files.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { InputError, InternalError, ModelFileError, inModelFile, optionError } from '../errors.js';
import { checkNbestK, type NbestSentence } from '../io/nbest.js';
import { reporter, withRun, type TrainRun } from '../train-progress.js';
import { checkOptions, pickFields } from '../options/field.js';
import {
  CRF_DEFAULTS,
  CRF_ONLY_TRAIN_FIELDS,
  CRF_TRAINER_SETTINGS,
  PARSER_DECODES,
  PCFG_RARE_THRESHOLD,
  PCFG_SHAPE_BACKOFF,
  parserTrainFields,
} from '../options/parser.js';

import { loadModel, loadModelAsync, saveModel, type ModelFile } from '../io/model-file.js';
import { runTraining, type DevValue, type ExternalTrainer, type Trainer } from '../training/loop.js';
import type { NbestProducer, PipelineSentence, StepContext } from '../training/model-contract.js';
import { fillDefaults, withDefaults } from '../training/options.js';
import { native, resolveThreads, withCancelFlag, type CancelFlagHandle } from '../native.js';
import { formatTree, preterminals, type Tree } from '../trees/tree.js';
import { isActiveLabel, type MarkovOrder } from './binarize.js';
import { cleanTree, prepareTree, restoreTree } from './prepare.js';
import { escapeLabel, unescapeLabel } from './label-escape.js';
import { CHAIN_SEPARATOR } from './standard-transforms.js';
import { bracketKey, type BracketPosterior } from './bracket-posteriors.js';
import type { ParseSentences, ParserEvaluation } from './score-parses.js';
import { readClustersSync, type WordClusters } from './clusters.js';
import {
  baseCategory,
  buildSymbolTable,
  decodeTree,
  encodeTree,
  symbolKey,
  symbolTableFromLabels,
  verbFlags,
  type SymbolTable,
  latentSymbolTable,
} from './symbols.js';
import { learnTreebankClasses } from '../trees/tree-classes.js';
import { treeWords } from './input.js';
import { trainLatentGrammars, type LatentProgress, type NativeLatentBase } from './latent-mix.js';
import { parserNbest, parserNbestVariants, type KbestListOptions } from './nbest-lists.js';
import { learnHeadModelTable, trainHeadModel } from '../rerank/head-model.js';
import { trainTreeModel } from '../rerank/tree-model.js';
import { headTableFromJson, headTableToJson, type HeadTable, type HeadTableJson } from '../trees/head-rules.js';
import { generativeTree } from '../rerank/generative-counts.js';
import { parseTree } from '../trees/bracket-parser.js';
import type { ScoredTree } from '../trees/kbest-modes.js';
import {
  chooseRescoring,
  rescoredChoice,
  rescoringList,
  rescoringWeights,
  type HeadRescoring,
  type RescoringModels,
} from './head-rescoring.js';

/** The CRF options checked against their declarations (beam may be Infinity: no prefilter). */
const CRF_CHECKED = pickFields(parserTrainFields, [
  'batch',
  'eta0',
  'sigma2',
  'margin',
  'epochs',
  'patience',
  'featureCacheMB',
  'prune',
  'surfaceBits',
]);

export const CHART_MODEL_KIND = 'chart-parser';

/**
 * Defaults of a CRF model (chosen on the dev sets of ptb-sample and floresta-pt together,
 * the same for every treebank): the grammar backbone (horizontal Markov order 0, no parent
 * annotation, no head rules), hashed surface features, AdaGrad, coarse-to-fine pruning.
 */
export { CRF_DEFAULTS };

/** Default milliseconds between in-pass progress events of CRF training (a line every 30 s needs far fewer). */
export const PARSER_PROGRESS_EVERY_MS = 1000;
// 2: a CRF's payload may be followed by its PCFG's (ChartMeta.pcfgMix); files without one stay 1.
// 3: then by the training trees of its head model (ChartMeta.headRescore); files without stay 1 or 2.
// 4: the PCFGs mixed in are listed (ChartMeta.pcfgMix.grammars, latent PCFGs), their payloads in turn, gzip'd.
const CHART_MODEL_VERSION = 4;
/** Dev sentences parsed between progress events after a CRF pass (at least 4 per thread). */
const DEV_PARSE_CHUNK = 32;
/** Memory for the dev set's coarse-pass entries kept across a CRF training's passes. */
const DEV_COARSE_MASK_BYTES = 256 * 1024 * 1024;

interface NativeParseResult {
  nodes: Int32Array;
  candidateOffsets: Int32Array;
  sentenceOffsets: Int32Array;
  scores: Float64Array;
  fallback: Uint8Array;
  bracketOffsets: Int32Array;
  /** (start, end, base category) triples. */
  brackets: Int32Array;
  bracketPosteriors: Float64Array;
  /** Per sentence: the candidate index of its MBR tree (after every sentence's list), -1 if none. */
  mbrCandidates: Int32Array;
}

/** The arguments the native ensemble parses share: the other members, their category maps, the sentences, the settings. */
type EnsembleArgs = [
  others: NativeChartParser[],
  baseMaps: Int32Array[],
  tagMaps: Int32Array[],
  tokens: string,
  offsets: Int32Array,
  threads: number,
  flag: CancelFlagHandle,
  maxLength: number,
  prune: number,
  pruneRetry: boolean,
];

interface NativeChartParser extends NativeLatentBase<NativeChartParser> {
  startCrf(
    options: Record<
      | 'batch'
      | 'eta0'
      | 'tau'
      | 'sigma2'
      | 'beam'
      | 'threads'
      | 'seed'
      | 'priorAtPcfg'
      | 'verbFeatures'
      | 'featureCacheMB'
      | 'surfaceBits'
      | 'tagSets'
      | 'prune'
      | 'adagrad'
      | 'average'
      | 'margin',
      number
    >,
  ): { weights: number; sparseFeatures: number; surfaceGoldFeatures: number; surfaceCollisionRate: number };
  crfSteps(
    steps: number,
    flag: CancelFlagHandle,
    lbfgs: boolean,
  ): Promise<{ objective: number; keptFraction: number; steps: number; cacheBytes: number; cachedSentences: number }>;
  crfProgress(): number;
  crfState(): Uint8Array;
  loadCrfState(bytes: Uint8Array): void;
  crfAverage(op: 'reset' | 'swap'): void;
  /** Keep each sentence's coarse-pass entries (up to maxBytes) for the next parse of it; 0: off, freed. */
  keepCoarseMasks(maxBytes: number): void;
  /** Frees the training trees and trainers once the model is final. */
  endTraining(): void;
  crfWeights(): Float64Array;
  setCrfWeights(weights: Float64Array): void;
  crfShardGradient(
    weights: Float64Array,
    first: number,
    last: number,
    flag: CancelFlagHandle,
  ): Promise<{ loss: number; gradient: Float64Array }>;
  parse(
    tokens: string,
    offsets: Int32Array,
    k: number,
    threads: number,
    flag: CancelFlagHandle,
    forcePcfg: boolean,
    beam: number,
    maxLength: number,
    prune: number,
    mbr: boolean,
    pruneRetry: boolean,
    withMbrTree: boolean,
  ): Promise<NativeParseResult>;
  parseEnsemble(...args: [...EnsembleArgs, k: number, mix?: Float64Array]): Promise<NativeParseResult>;
  parseEnsembleMixes(...args: [...EnsembleArgs, mixes: Float64Array[]]): Promise<NativeParseResult[]>;
  /** parseEnsemble's MBR trees (k = 1) and this parser's own Viterbi k-best (`parse`), from one pass. */
  parseEnsembleWithViterbi(
    ...args: [...EnsembleArgs, mix: Float64Array, viterbiK: number]
  ): Promise<{ mbr: NativeParseResult; viterbi: NativeParseResult }>;
  /** A latent PCFG's log P(tree, words) of each tree (buildPcfg's pairs, one tree per sentence). */
  treeLogProbs(
    tokens: string,
    offsets: Int32Array,
    pairs: Int32Array,
    treeOffsets: Int32Array,
    threads: number,
  ): Promise<Float64Array>;
  serialize(): Uint8Array;
  info(): Omit<ChartParserInfo, 'kind' | 'pcfgWeight' | 'pcfgGrammars' | 'headWeight'>;
}

interface ChartAddon {
  ChartParser: {
    buildPcfg(
      symbols: { isTag: Uint8Array; base: Int32Array; numBases: number; relaxGroup: Int32Array; isVerb: Uint8Array },
      tokens: string,
      offsets: Int32Array,
      pairs: Int32Array,
      treeOffsets: Int32Array,
      rareThreshold: number,
      extras: { relax: number; relaxWeight: number; shapeBackoff: number; clusterWords?: string; clusterIds?: string },
    ): NativeChartParser;
    deserialize(bytes: Uint8Array): NativeChartParser;
  };
}

export interface ChartParserInfo {
  /** The model file's kind. */
  kind: 'chart-parser';
  symbols: number;
  binaryRules: number;
  unaryRules: number;
  rootRules: number;
  words: number;
  crf: boolean;
  weights: number;
  /** Rules added by grammar relaxation (0 without it, and in loaded models). */
  relaxedBinaryRules: number;
  relaxedUnaryRules: number;
  /** Words in the model's cluster map (0 without clusters). */
  clusterWords: number;
  /** The CRF has verb-lexicalized rule features. */
  verbFeatures: boolean;
  /** log2 of the CRF's hashed surface-feature table (0 = no surface features). */
  surfaceBits: number;
  /** The CRF's surface features see each word's tag set (false in models saved before them). */
  tagSets: boolean;
  /** The CRF's surface features see each word's cluster (models trained with clusters; false in models saved before them). */
  surfaceClusters: boolean;
  /**
   * Pseudo-counts with which P(tag | unknown-word signature) backs off to the signature
   * without its suffix (PCFG_SHAPE_BACKOFF for a PCFG; 0: to the tag prior, as CRF models
   * and models saved before it do).
   */
  shapeBackoff: number;
  /** Words seen at most this often trained the unknown-word model (PCFG_RARE_THRESHOLD for a PCFG, 1 for the CRF by default). */
  rareThreshold: number;
  /** The weight of the CRF's PCFGs in its MBR decoding (ParserTrainOptions.pcfgWeight; 0: the CRF alone, or a PCFG). */
  pcfgWeight: number;
  /** The PCFGs mixed in at that weight (0: none). */
  pcfgGrammars: number;
  /** The head model's weight in the rescoring of the MBR tree (ParserTrainOptions.headModel; 0: no rescoring). */
  headWeight: number;
  /** The tree model's weight in that rescoring (0: none, or no rescoring). */
  treeModelWeight: number;
  /** The weight of the expected bracket loss in that rescoring (0: none, or no rescoring). */
  lossWeight: number;
}

export interface ParserTrainProgress {
  epoch: number;
  epochs: number;
  step: number;
  stepsPerEpoch: number;
  /** Training sentences done in this pass (their objective computed, the prefilter included), of `sentencesPerEpoch`. */
  sentences: number;
  sentencesPerEpoch: number;
  /** Mean negative conditional log-likelihood per sentence over the last steps (NaN before the pass's first steps end). */
  objective: number;
  /** Fraction of chart entries kept by the prefilter. */
  keptFraction: number;
  /** Bytes held by the feature-id cache, and the training sentences it covers. */
  featureCacheBytes: number;
  cachedSentences: number;
  /** While the dev set is parsed after the pass: its sentences parsed so far, of `devTotal`. */
  devSentences?: number;
  devTotal?: number;
  /** The dev parse after training that chooses the PCFGs' weight (`pcfgWeight`): the last pass's event otherwise. */
  pcfgMix?: boolean;
  /** The dev parse after that, which chooses the head model's weight (`headModel`). */
  headModel?: boolean;
  /** Before the PCFGs' weight is chosen: their training (`pcfgGrammars` latent PCFGs, one after the other). */
  latent?: LatentProgress;
}

/** One finished CRF pass (reported whether or not a dev set is given). */
export interface ParserPassReport {
  epoch: number;
  epochs: number;
  /** Wall and CPU (process user + system) seconds of the pass, dev parsing excluded. */
  seconds: number;
  cpuSeconds: number;
  objective: number;
  /** Dev F1 after the pass (EVALB-equal), when `dev` is given. */
  devF1?: number;
  /** This pass is the best on dev so far (its weights are the ones kept). */
  best?: boolean;
}

/** What the CRF's surface features and hashing came to (set after CRF training). */
export interface ParserTrainSummary {
  /** Distinct surface features seen in the gold trees, and the fraction sharing a hash slot with another. */
  surfaceGoldFeatures: number;
  surfaceCollisionRate: number;
  bestEpoch?: number;
  bestDevF1?: number;
  /**
   * The kept pass's EVALB scores on dev, as the returned model parses (the weight floor
   * applied); absent when that pass was scored before a resumed checkpoint.
   */
  bestDev?: ParserEvaluation;
  /** CRF weights left non-zero by the weight floor (set when the floor is above 0). */
  nonZeroWeights?: number;
  /** The weight of the PCFG's posteriors in MBR decoding (0: the CRF alone), and dev F1 by weight when dev chose it. */
  pcfgWeight?: number;
  pcfgWeightsDev?: { weight: number; f1: number }[];
  /**
   * The weights of the rescoring of the MBR tree (headWeight 0: none), and with dev, the MBR
   * trees' dev F1 and by head weight the best rescored dev F1 and the other weights that gave it.
   */
  headWeight?: number;
  treeModelWeight?: number;
  lossWeight?: number;
  headWeightsDev?: {
    mbrF1: number;
    byWeight: { weight: number; f1: number; treeModelWeight: number; lossWeight: number }[];
  };
}

export interface ParserTrainOptions {
  /** Horizontal Markov order of the binarization, 0-2 (default 2; CRF: CRF_DEFAULTS). */
  markov?: MarkovOrder;
  /** Parent annotation (default true; CRF: false). */
  parent?: boolean;
  /**
   * VP head-tag annotation (the PTB's `VP` label, Collins' head rules; default true; CRF:
   * false). A scheme without `VP` gets none: the same annotation on the verb phrases learned
   * from Floresta was worse on its dev set (docs/design/parser-defaults.md, "Options that stay off").
   */
  vpHeadTag?: boolean;
  /** Words seen at most this often also get signature tags (default 1). */
  rareThreshold?: number;
  /**
   * Word clusters: a `word<TAB>cluster` file or the map itself (clusterWords computes one from
   * plain text). CRF lexicon features tag x cluster, tag x 4- and 6-bit prefixes (bit-string
   * clusters), base(tag) x cluster; the surface features see each word's cluster as a fourth
   * representation; rare and unknown words also take the tags seen with their cluster. Stored
   * in the model.
   */
  clusters?: string | WordClusters;
  /**
   * Grammar relaxation (Finkel, Kleeman & Manning 2008): add X^Q -> alpha for every seen X^P -> alpha and every
   * other parent annotation Q of X; the PCFG interpolates each rule of X^Q with the
   * parent-pooled estimate, weight `relaxWeight` (default 0.01). Needs parent annotation
   * (`parent`, off by default with `crf`). Default false.
   */
  relax?: boolean;
  relaxWeight?: number;
  /**
   * CRF: verb-lexicalized rule features, a binary rule with a verb-tag child x that verb's
   * lowercased word, for pairs seen in a gold tree (default false). The verb-like tags are
   * learned from the training trees (lib/trees/tree-classes.ts).
   */
  verbFeatures?: boolean;
  /** Train the CRF-CFG on top of the PCFG (default false). */
  crf?: boolean;
  /**
   * CRF surface span features (Hall, Durrett & Klein 2014): each anchored rule's first and
   * last word, the words just outside it and at its split point (word and word shape),
   * conjoined with the rule and with the parent; span shape x parent category; tag x word
   * shape. Hashed into 2^surfaceBits weights. 0 = none (default CRF_DEFAULTS.surfaceBits).
   */
  surfaceBits?: number;
  /**
   * The surface span features also see each word's tag set, the tags the lexicon allows it
   * (its ambiguity class): a representation between the word and its shape (default
   * CRF_DEFAULTS.tagSets).
   */
  tagSets?: boolean;
  /**
   * Coarse-to-fine: the CRF's chart keeps only entries whose PCFG posterior is >= prune, in
   * training (the gold tree is always kept) and, by default, in parsing. 0 = exhaustive
   * (default CRF_DEFAULTS.prune; stored in the model as the parse default).
   */
  prune?: number;
  /**
   * CRF 1-best decoding, stored in the model as the parse default (and used for dev F1):
   * 'viterbi', the most probable tree, or 'mbr', the tree with the most expected correct
   * nodes under the posteriors of the (pruned) chart (default CRF_DEFAULTS.decode).
   */
  decode?: 'viterbi' | 'mbr';
  /**
   * CRF: the weight of the posteriors of latent-annotation PCFGs (`pcfgGrammars` of them, each
   * of `pcfgCycles` split-merge cycles, native/chart/latent_pcfg.h) mixed into the CRF's for
   * MBR decoding. They are trained on the same trees and stored in the model: their
   * subsymbols learn the contexts the CRF's states lack. Default: chosen on `dev` among
   * CRF_DEFAULTS.pcfgWeights, else CRF_DEFAULTS.pcfgWeight; 0 = the CRF alone.
   */
  pcfgWeight?: number;
  /** CRF: the number of latent PCFGs mixed in, trained with seeds 1, 2, ... (default CRF_DEFAULTS.pcfgGrammars). */
  pcfgGrammars?: number;
  /** CRF: the split-merge cycles of each (default CRF_DEFAULTS.pcfgCycles; 0: the grammar's plain PCFG). */
  pcfgCycles?: number;
  /**
   * CRF with `dev`, MBR decoding: rescore the MBR tree with a head-lexicalized and a
   * label-only generative model of the training trees and the expected bracket loss
   * (lib/parser/head-rescoring.ts; the trees are stored in the model): the weights are chosen
   * on `dev` among CRF_DEFAULTS.headWeights, treeModelWeights and lossWeights, none when no
   * combination beats the MBR tree there (default CRF_DEFAULTS.headModel; without `dev`, none).
   */
  headModel?: boolean;
  /**
   * The trees the head model (`headModel`) is counted from; default: the training trees.
   * train-parser passes all of --train, --max-length aside: counting is cheap, and the long
   * sentences' heads are evidence the CRF's length limit need not throw away.
   */
  headModelTrees?: readonly Tree[];
  /** Evaluated after each CRF pass; the best pass's weights are kept. */
  dev?: Tree[];
  /** CRF with `dev`: stop after this many passes without a dev F1 improvement (default 2; 0 = never). */
  patience?: number;
  /** Called after each CRF pass. */
  onPass?: (r: ParserPassReport) => void;
  /** Filled in after training. */
  summary?: ParserTrainSummary;
  /** CRF optimizer: AdaGrad on minibatches (default), SGD with a decaying gain, or full-batch L-BFGS (one iteration per epoch). */
  optimizer?: 'sgd' | 'adagrad' | 'lbfgs';
  /** CRF passes (SGD, AdaGrad) or L-BFGS iterations (default CRF_DEFAULTS.epochs). */
  epochs?: number;
  /**
   * AdaGrad/SGD: each pass's model is the mean of its iterates (the weights after each
   * batch of that pass), not the last one (default CRF_DEFAULTS.average).
   */
  average?: boolean;
  batch?: number;
  eta0?: number;
  sigma2?: number;
  /**
   * Softmax-margin (Gimpel & Smith 2010): in the training objective's normalizer each tree's
   * score is raised by `margin` per bracket (span and base category) that the gold tree does
   * not have, so training presses hardest on the worst competitors; 0 = the conditional
   * log-likelihood (default CRF_DEFAULTS.margin). Parsing is unchanged.
   */
  margin?: number;
  /**
   * After training, CRF weights of magnitude below this are set to zero (default
   * CRF_DEFAULTS.weightFloor; 0 keeps every weight). Model files store only non-zero weights:
   * most of a hashed surface table ends near zero, touched by a step or two in a pass.
   */
  weightFloor?: number;
  /** PCFG max-marginal beam (nats) for the CRF's chart prefilter; Infinity = exact boolean pass. */
  beam?: number;
  /** Center the L2 prior at the PCFG weights the CRF starts from (default true), else at 0. */
  priorAtPcfg?: boolean;
  /**
   * Cap (MB) on the CRF's per-sentence cache of resolved sparse feature ids, kept across
   * passes (default 1024); sentences past the cap look their features up every pass. 0 = off.
   */
  featureCacheMB?: number;
  threads?: number;
  /** CRF (AdaGrad/SGD): the seed of the batch sampling (default 1). */
  seed?: number;
  signal?: AbortSignal;
  /**
   * Called after each group of steps (about 20 per pass) and, while a group runs, every
   * `progressEvery` ms with the sentences done so far in the pass.
   */
  onProgress?: (p: ParserTrainProgress) => void;
  /** Milliseconds between progress events inside a group of CRF steps (default PARSER_PROGRESS_EVERY_MS). */
  progressEvery?: number;
  /** CRF: write a training checkpoint here after every pass (lib/io/checkpoint.ts). */
  checkpoint?: string;
  /** CRF: continue from this checkpoint (same trees and options; `epochs` may be larger). */
  resume?: string;
  /**
   * CRF with L-BFGS: the iterations run elsewhere (lib/distributed: the objective summed over
   * sentence shards computed by workers), from the spec a worker needs to build the same model.
   * @internal
   */
  external?: (spec: ParserTrainingSpec) => Promise<ParserExternalTrainer>;
  /**
   * CRF with MBR decoding: train the latent PCFGs and keep them in the model even at weight 0
   * (given, or chosen on dev), for their tree scores (`mixTreeLogProbs`, the pipeline's
   * `base.latentModel`); at weight 0 they take no part in parsing.
   * @internal
   */
  keepPcfgs?: boolean;
}

/** The options that shape a CRF parser's model and objective, as plain data (no files, no callbacks). */
export type ParserSpecOptions = Omit<
  ParserTrainOptions,
  | 'clusters'
  | 'dev'
  | 'patience'
  | 'onPass'
  | 'summary'
  | 'signal'
  | 'onProgress'
  | 'progressEvery'
  | 'checkpoint'
  | 'resume'
  | 'external'
  | 'epochs'
  | 'threads'
  | 'featureCacheMB'
> & {
  clusters?: WordClusters;
};

/** Everything a worker needs to build the coordinator's CRF parser training (its trees and options). */
export interface ParserTrainingSpec {
  trees: Tree[];
  options: ParserSpecOptions;
  /** Training sentences (the trees with words), numbered as shards count them. */
  sentences: number;
  /** The L2 prior: variance, and its mean (the starting weights) or 0. */
  sigma2: number;
  priorAtStart: boolean;
}

/** L-BFGS iterations run elsewhere (lib/training/loop.ts): each returns the weights after it and the objective per sentence. */
export type ParserExternalTrainer = ExternalTrainer;

/** A worker's copy of a CRF parser training: objective and gradient of sentences [first, last). */
export interface ParserShardHandle {
  gradient(
    weights: Float64Array,
    first: number,
    last: number,
    signal?: AbortSignal,
  ): Promise<{ loss: number; gradient: Float64Array }>;
}

/** Builds the model of a training spec as ChartParserModel.train does (threads: the shards' native threads). */
export function parserShardHandle(spec: ParserTrainingSpec, threads: number): ParserShardHandle {
  const { handle } = buildTraining(
    spec.trees,
    completeParserOptions({ ...spec.options, crf: true, optimizer: 'lbfgs', threads }),
  );
  return {
    gradient: (w, first, last, signal) =>
      withCancelFlag(signal, (flag) => handle.crfShardGradient(w, first, last, flag)),
  };
}

/** The CRF parser trainer's bookkeeping in a checkpoint, beside the native trainer state. */
interface ParserCheckpointState {
  best: { f1: number; epoch: number } | null;
}

export interface ParseOptions {
  threads?: number;
  signal?: AbortSignal;
  /** Parse with the PCFG even if the model has CRF weights. */
  pcfg?: boolean;
  /**
   * Parse-time pruning: after each span's unary layer, drop states more than `beam` (log
   * units) below the span's best. Default Infinity: exact. Costs F1 (see the README).
   */
  beam?: number;
  /**
   * Coarse-to-fine for CRF models: the CRF chart keeps only entries whose PCFG posterior
   * is >= prune; 0 = exhaustive. Default: the value the model was trained with.
   */
  prune?: number;
  /**
   * CRF 1-best: 'viterbi' or 'mbr' (max expected recall). Default: the model's. k-best lists
   * (k > 1) are Viterbi unless 'mbr' is given here: then the k best trees under the MBR objective.
   */
  decode?: 'viterbi' | 'mbr';
  /**
   * CRF: when the tag dictionary leaves a sentence without a tree, the retry with every tag
   * for every word is pruned by the coarse pass too (true), or exhaustive (false: slower on
   * large tag sets, its log-probability over the whole chart). Default: the model's (true for
   * models trained with `prune` > 0 by this version; false for older files).
   */
  pruneRetry?: boolean;
  /** Label of the wrapper node of output trees (default 'ROOT'; '' gives `( (S ...))`). */
  rootLabel?: string;
  /**
   * Sentences of more words get the flat fallback without a chart (`fallback: true`): parsing
   * time grows with the cube of the length, chart memory with its square. Default 0: no limit.
   */
  maxLength?: number;
  /**
   * Other CRF parsers trained on the same treebank (any Markov order, annotation or
   * features): the 1-best is the MBR tree of the mean of all their posteriors and this one's,
   * decoded by this parser's grammar; k > 1 gives the k best trees under that objective (most
   * expected correct brackets first), each with its log-probability under this parser. Needs
   * a CRF model and MBR decoding.
   */
  ensemble?: ChartParserModel[];
  /**
   * CRF, MBR decoding: the weight of the model's PCFG posteriors in the mean (default: the
   * model's, `info().pcfgWeight`, and 0 with `ensemble`; 0 = the CRF alone). With `ensemble`
   * and a weight, the CRFs share the rest equally.
   */
  pcfgWeight?: number;
  /**
   * `parseNbest` also gives each sentence's MBR tree (`mbrTree`), from the same chart as a
   * Viterbi list: the list and the MBR tree at the cost of one parse. A PCFG's is its best tree.
   */
  mbrTree?: boolean;
  /**
   * CRF, MBR decoding, 1-best: false gives the MBR tree without the model's head-model
   * rescoring (ParserTrainOptions.headModel). Default true.
   */
  headModel?: boolean;
}

export interface ParsedSentence {
  tree: Tree;
  /** log P(tree, words) for the PCFG, log P(tree | words) for the CRF. */
  logprob: number;
  /** True when no tree of the grammar covers the sentence: the tree is (X tag...) over the best tags. */
  fallback: boolean;
}

export interface ParsedNbest {
  candidates: { tree: Tree; logprob: number }[];
  fallback: boolean;
  /**
   * A CRF's MBR parse: the brackets the posteriors expect (label, words [start, end), expected
   * count), those of expected count >= 0.001; binarization nodes are left out.
   */
  brackets?: BracketPosterior[];
  /** With `mbrTree`: the sentence's MBR tree (the list's first when the list is MBR, or a fallback). */
  mbrTree?: { tree: Tree; logprob: number };
}

interface ChartMeta {
  labels: string[];
  isTag: number[];
  markov: MarkovOrder;
  parent: boolean;
  vpHeadTag: boolean;
  crf: boolean;
  /** The coarse-to-fine threshold the CRF was trained with: the parse default (absent = 0). */
  prune?: number;
  /** The CRF's 1-best decoding, the parse default (absent = 'viterbi'). */
  decode?: 'viterbi' | 'mbr';
  /**
   * The retry with every tag is coarse-to-fine like the first attempt: the parse default
   * (absent = false, an exhaustive retry: files written before the option keep their parses).
   */
  pruneRetry?: boolean;
  /**
   * A CRF's PCFGs mixed into its MBR decoding: their weight together, and each one's metadata
   * and the length of its payload; the payloads (gzip'd) follow the CRF's in the file, in
   * order (absent: the CRF alone). Files written before latent PCFGs have one PCFG, as `meta` and
   * `bytes` (file kind version 2 or 3).
   */
  pcfgMix?: {
    weight: number;
    grammars?: { meta: ChartMeta; bytes?: number }[];
    meta?: ChartMeta;
    bytes?: number;
  };
  /** A latent-annotation PCFG (whose `labels` are its base grammar's): each label's number of subsymbols. */
  latentSubs?: number[];
  /**
   * A CRF's rescoring of its MBR tree (lib/parser/head-rescoring.ts): the weights, the
   * candidates and pool, the length of the training trees its models are counted from
   * (one bracketed tree per line, UTF-8, gzip'd), which end the file's payload, and the head
   * table learned from them (absent in files before it: learned again on loading). Absent: no
   * rescoring.
   */
  headRescore?: HeadRescoring & { bytes?: number; headTable?: HeadTableJson };
}

/**
 * Whether a chart parser model file holds a CRF, from its metadata alone (the file is read and
 * checked, the grammar not built): what a sharded run's coordinator needs before queueing.
 */
export async function chartModelIsCrf(file: string): Promise<boolean> {
  const m = await loadModelAsync<ChartMeta>(file, CHART_MODEL_KIND);
  refuseNewerVersion(file, m);
  return m.meta?.crf === true;
}

function refuseNewerVersion(file: string, m: ModelFile<ChartMeta>): void {
  if (m.kindVersion > CHART_MODEL_VERSION)
    throw new ModelFileError(file, `chart parser model version ${m.kindVersion} is newer than supported`);
}

/** Whether metadata's `bytes` can be a section that ends a payload of `payloadLength` bytes, leaving some before it. */
function isTrailingSection(bytes: unknown, payloadLength: number): bytes is number {
  return typeof bytes === 'number' && Number.isInteger(bytes) && bytes > 0 && bytes < payloadLength;
}

/** Stored training trees, one bracketed tree per line, parsed one at a time. */
function* storedTrees(text: string): Generator<Tree> {
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    if (end > start) yield parseTree(text.slice(start, end));
    start = end + 1;
  }
}

/** The rescoring's stored training trees and head table (from files before the table: learned from the trees). */
interface StoredHeadModel {
  trees: string;
  table: HeadTable;
}

/** The rescoring's generative models, counted from the stored trees, one at a time (a few seconds). */
function rescoringModelsOf(stored: StoredHeadModel): RescoringModels {
  return {
    head: trainHeadModel(storedTrees(stored.trees), stored.table),
    tree: trainTreeModel(storedTrees(stored.trees)),
  };
}

/**
 * How one grammar's categories meet another's, by name: with `tags`, tag symbol -> the other's
 * tag of the same label, else of its base label (a parent-annotated `NN^NP` pools into `NN`),
 * -1 for none; without, base category -> the other's base category of the same label and kind
 * (-1: none).
 */
function categoryMap(from: SymbolTable, to: SymbolTable, tags: boolean): Int32Array {
  const tag = (label: string): number =>
    to.ids.get(symbolKey(label, true)) ?? to.ids.get(symbolKey(baseCategory(label), true)) ?? -1;
  if (tags) return Int32Array.from(from.labels, (label, x) => (from.isTag[x] ? tag(label) : -1));
  const target = new Map<string, number>();
  to.labels.forEach((label, x) => target.set(symbolKey(baseCategory(label), to.isTag[x] === 1), to.base[x]));
  const out = new Int32Array(from.numBases).fill(-1);
  from.labels.forEach(
    (label, x) => (out[from.base[x]] = target.get(symbolKey(baseCategory(label), from.isTag[x] === 1)) ?? -1),
  );
  return out;
}

/** Whether every node of a prepared tree is a symbol of `table` (what encodeTree needs). */
function hasSymbols(t: Tree, table: SymbolTable): boolean {
  return table.ids.has(symbolKey(t.label, t.word !== undefined)) && t.children.every((c) => hasSymbols(c, table));
}

/**
 * `trees` as a grammar of `meta` reads them (buildPcfg's pairs, one tree per sentence);
 * `position[i]`: tree i's place among them, -1 when the grammar lacks one of its labels.
 */
function encodeForGrammar(
  trees: readonly Tree[],
  meta: ChartMeta,
): { text: string; offsets: Int32Array; pairs: Int32Array; treeOffsets: Int32Array; position: Int32Array } {
  const table = symbolTableFromLabels(
    meta.labels,
    meta.isTag.map((x) => x === 1),
  );
  const grammarOptions = { markov: meta.markov, parent: meta.parent, vpHeadTag: meta.vpHeadTag };
  const pairs: number[] = [];
  const treeOffsets = [0];
  const words: string[][] = [];
  const position = new Int32Array(trees.length).fill(-1);
  trees.forEach((t, i) => {
    const prepared = prepareTree(t, grammarOptions);
    if (prepared === undefined || !hasSymbols(prepared, table)) return;
    position[i] = words.length;
    encodeTree(prepared, table, pairs);
    treeOffsets.push(pairs.length / 2);
    words.push(preterminals(prepared).map((p) => p.word as string));
  });
  return {
    ...joinTokens(words),
    pairs: Int32Array.from(pairs),
    treeOffsets: Int32Array.from(treeOffsets),
    position,
  };
}

function joinTokens(sentences: string[][]): { text: string; offsets: Int32Array } {
  const offsets = new Int32Array(sentences.length + 1);
  const all: string[] = [];
  sentences.forEach((s, i) => {
    if (s.length === 0) throw new InputError('<input>', i + 1, 'empty sentence');
    for (const w of s) {
      if (w.includes('\n') || w === '') throw new InputError('<input>', i + 1, `bad token ${JSON.stringify(w)}`);
      all.push(w);
    }
    offsets[i + 1] = all.length;
  });
  return { text: all.join('\n'), offsets };
}

/** The verb-like tags of a treebank (lib/trees/tree-classes.ts), with heads from Collins' table plus learned rules. */
function learnedVerbTags(trees: readonly Tree[]): string[] {
  return learnTreebankClasses(trees.map(cleanTree).filter((t): t is Tree => t !== undefined)).classes.verbTags;
}

/** The API's training options with no command-line field (lib/options/parser.ts), and their defaults. */
const API_TRAIN_DEFAULTS = {
  optimizer: 'adagrad',
  relaxWeight: 0.01,
  priorAtPcfg: true,
  progressEvery: PARSER_PROGRESS_EVERY_MS,
} as const;

/** The grammar's defaults: the PCFG's, and the CRF's own (CRF_DEFAULTS). */
const PCFG_GRAMMAR = {
  markov: 2,
  parent: true,
  vpHeadTag: true,
  rareThreshold: PCFG_RARE_THRESHOLD,
  weightFloor: 0,
} as const;
const CRF_GRAMMAR = {
  markov: CRF_DEFAULTS.markov,
  parent: CRF_DEFAULTS.parent,
  vpHeadTag: CRF_DEFAULTS.vpHeadTag,
  rareThreshold: CRF_DEFAULTS.rareThreshold,
  weightFloor: CRF_DEFAULTS.weightFloor,
} as const;

/** train-parser's CRF-only fields that are API options too (its --sgd and --lbfgs are the API's `optimizer`). */
const CRF_ONLY_API_FIELDS = CRF_ONLY_TRAIN_FIELDS.filter(
  (key): key is Exclude<typeof key, 'sgd' | 'lbfgs'> => key !== 'sgd' && key !== 'lbfgs',
);

/** The declared training fields the API shares with `train-parser` (their defaults, their checks). */
const SHARED_FIELDS = pickFields(parserTrainFields, ['crf', 'relax', 'threads', ...CRF_ONLY_API_FIELDS]);

/**
 * ParserTrainOptions that only the CRF's training reads (besides checkpoint and resume):
 * refused without `crf`. train-parser's CRF-only fields (CRF_ONLY_API_FIELDS), and the
 * options the command line does not have.
 */
const CRF_ONLY_TRAIN_OPTIONS: readonly (keyof ParserTrainOptions)[] = [
  ...CRF_ONLY_API_FIELDS,
  'optimizer',
  'weightFloor',
  'priorAtPcfg',
  'dev',
  'headModelTrees',
  'onPass',
  'onProgress',
  'progressEvery',
  'external',
];

/** ParseOptions that only CRF parsing reads: refused for a PCFG model or with `pcfg`. */
const CRF_ONLY_PARSE_OPTIONS = [
  'prune',
  'decode',
  'pruneRetry',
  'pcfgWeight',
  'headModel',
] as const satisfies readonly (keyof ParseOptions)[];

/** ParserTrainOptions with every option that has a default filled in. */
type CompleteParserOptions = ParserTrainOptions &
  Required<
    Pick<ParserTrainOptions, keyof typeof API_TRAIN_DEFAULTS | keyof typeof PCFG_GRAMMAR | keyof typeof SHARED_FIELDS>
  >;

/** The grammar options a run trains with: those given, else the PCFG's or (with `crf`) the CRF's defaults. */
export function parserGrammar(
  crf: boolean,
  given: { markov?: MarkovOrder; parent?: boolean; vpHeadTag?: boolean },
): { markov: MarkovOrder; parent: boolean; vpHeadTag: boolean } {
  const { markov, parent, vpHeadTag } = fillDefaults(crf ? CRF_GRAMMAR : PCFG_GRAMMAR, given);
  return { markov, parent, vpHeadTag };
}

/** The given options completed once: the declared fields' defaults, the PCFG's or the CRF's grammar, the API's own. */
function completeParserOptions(given: ParserTrainOptions): CompleteParserOptions {
  const declared = withDefaults(SHARED_FIELDS, given);
  return fillDefaults(
    { ...API_TRAIN_DEFAULTS, ...(declared.crf ? CRF_GRAMMAR : PCFG_GRAMMAR) },
    declared,
  ) as CompleteParserOptions;
}

/** A pass's dev score: its F1, with the whole evaluation while this process scored it. */
interface ParserDevValue extends DevValue {
  evaluation?: ParserEvaluation;
}

/** The weights with every one below `floor` in magnitude set to 0, and how many stay non-zero. */
function floorWeights(weights: Float64Array, floor: number): { weights: Float64Array; kept: number } {
  const out = new Float64Array(weights.length);
  let kept = 0;
  for (let i = 0; i < weights.length; i++) {
    if (!(Math.abs(weights[i]) < floor)) {
      out[i] = weights[i];
      kept++;
    }
  }
  return { weights: out, kept };
}

/**
 * The CRF's side of the training loop: a step is a pass over the training sentences (in
 * groups of steps with progress events between), dev is the EVALB F1, and the best pass is
 * kept as model bytes.
 */
function crfTrainer(
  start: NativeChartParser,
  modelOf: (handle: NativeChartParser) => ChartParserModel,
  sentences: number,
  options: CompleteParserOptions,
  spec: () => ParserTrainingSpec,
): {
  trainer: Trainer<ParserDevValue>;
  handle: () => NativeChartParser;
  lastPass: () => Pick<ParserPassReport, 'seconds' | 'cpuSeconds' | 'objective'>;
} {
  let handle = start;
  const epochs = options.epochs;
  const lbfgs = options.optimizer === 'lbfgs';
  const average = !lbfgs && options.average;
  const stepsPerEpoch = lbfgs ? 1 : Math.max(1, Math.ceil(sentences / options.batch));
  const chunk = Math.max(1, Math.floor(stepsPerEpoch / 20));
  let bestBytes: Uint8Array | undefined;
  let last: Pick<ParserPassReport, 'seconds' | 'cpuSeconds' | 'objective'> = {
    seconds: 0,
    cpuSeconds: 0,
    objective: Number.NaN,
  };
  const dev = options.dev;
  const make = options.external;
  let lastEvent: ParserTrainProgress | undefined;
  const trainer: Trainer<ParserDevValue> = {
    async step({ done, externalStep }) {
      const epoch = done + 1;
      const wall = Date.now();
      const cpu = process.cpuUsage();
      let objective = 0;
      let objectiveSteps = 0;
      if (average) handle.crfAverage('reset');
      // Sentences done in the pass: the native trainer's count of sentence objectives (read
      // while a group of steps runs); workers of a distributed run count their own.
      const passStart = externalStep ? 0 : handle.crfProgress();
      let step = 0;
      let latest = { objective: Number.NaN, keptFraction: 1, cacheBytes: 0, cachedSentences: 0 };
      const reportSteps = (): void => {
        const sentencesDone = externalStep
          ? step === stepsPerEpoch
            ? sentences
            : 0
          : Math.min(sentences, handle.crfProgress() - passStart);
        lastEvent = {
          epoch,
          epochs,
          step,
          stepsPerEpoch,
          sentences: sentencesDone,
          sentencesPerEpoch: sentences,
          objective: latest.objective,
          keptFraction: latest.keptFraction,
          featureCacheBytes: latest.cacheBytes,
          cachedSentences: latest.cachedSentences,
        };
        options.onProgress?.(lastEvent);
      };
      const timer = options.onProgress && !externalStep ? setInterval(reportSteps, options.progressEvery) : undefined;
      timer?.unref();
      try {
        while (step < stepsPerEpoch) {
          const n = Math.min(chunk, stepsPerEpoch - step);
          // One L-BFGS iteration elsewhere: the weights it arrives at are set here (dev, saving).
          const r = externalStep
            ? { objective: (await externalStep()).loss, keptFraction: 1, cacheBytes: 0, cachedSentences: 0 }
            : await withCancelFlag(options.signal, (flag) => handle.crfSteps(n, flag, lbfgs));
          step += n;
          objective += r.objective * n;
          objectiveSteps += n;
          latest = r;
          reportSteps();
        }
      } finally {
        clearInterval(timer);
      }
      // The pass's mean iterate stays swapped in for dev, the kept bytes and, after the
      // last pass, the model (the next pass's reset swaps the raw iterate back).
      if (average) handle.crfAverage('swap');
      const used = process.cpuUsage(cpu);
      last = {
        seconds: (Date.now() - wall) / 1000,
        cpuSeconds: (used.user + used.system) / 1e6,
        objective: objective / objectiveSteps,
      };
      return { done: epoch, loss: last.objective };
    },
    ...(dev && dev.length > 0
      ? {
          devScore: async () => {
            // The PCFG is fixed while the CRF trains: the dev set's coarse passes run once.
            handle.keepCoarseMasks(DEV_COARSE_MASK_BYTES);
            const current = modelOf(handle);
            const { scoreParses } = await import('./score-parses.js');
            // In chunks: a long dev parse reports its sentences and stops on the signal.
            const parse: ParseSentences = async (all, o) => {
              const out: ParsedSentence[] = [];
              const chunk = Math.max(DEV_PARSE_CHUNK, 4 * resolveThreads(options.threads));
              for (let i = 0; i < all.length; i += chunk) {
                out.push(...(await current.parse(all.slice(i, i + chunk), { ...o, signal: options.signal })));
                if (lastEvent) options.onProgress?.({ ...lastEvent, devSentences: out.length, devTotal: all.length });
              }
              return out;
            };
            // Scored as it will be saved: with the weight floor applied (the pass's raw
            // weights go back after, and training goes on from them).
            const raw = options.weightFloor > 0 ? handle.crfWeights() : undefined;
            if (raw) handle.setCrfWeights(floorWeights(raw, options.weightFloor).weights);
            try {
              const evaluation = await scoreParses(parse, dev, { threads: options.threads });
              return { value: evaluation.f1, evaluation };
            } finally {
              if (raw) handle.setCrfWeights(raw);
            }
          },
        }
      : {}),
    // The best pass's weights as bytes (put back after the last pass unless it is the best).
    snapshot: () => {
      bestBytes = handle.serialize();
    },
    restore: (bestStep, done) => {
      if (bestStep !== done && bestBytes) handle = native<ChartAddon>().ChartParser.deserialize(bestBytes);
    },
    sections: () => ({ trainer: handle.crfState(), ...(bestBytes ? { best: bestBytes } : {}) }),
    loadSections: (sections) => {
      handle.loadCrfState(sections.trainer ?? new Uint8Array());
      bestBytes = sections.best;
    },
    // The checkpoint keeps the best pass and its F1; every pass is scored, so the passes
    // since it are the evaluations without an improvement.
    saveState: (s): ParserCheckpointState => ({ best: s.best ? { f1: s.best.value, epoch: s.bestStep } : null }),
    loadState: (json, step, sections) => {
      const best = (json as ParserCheckpointState | null)?.best;
      return best && sections.best
        ? { best: { value: best.f1 }, bestStep: best.epoch, bad: step - best.epoch, stopped: false }
        : { best: undefined, bestStep: 0, bad: 0, stopped: false };
    },
    ...(make
      ? {
          external: {
            start: () => make(spec()),
            weights: () => handle.crfWeights(),
            setWeights: (w: Float64Array) => handle.setCrfWeights(w),
          },
        }
      : {}),
  };
  return { trainer, handle: () => handle, lastPass: () => last };
}

/**
 * The grammar of a training run and, with `crf`, the CRF's features and starting weights:
 * shared by ChartParserModel.train and a worker's shard handle, so both build the same model.
 */
function buildTraining(
  trees: Tree[],
  options: CompleteParserOptions,
): {
  handle: NativeChartParser;
  table: SymbolTable;
  meta: ChartMeta;
  sentences: number;
  started?: ReturnType<NativeChartParser['startCrf']>;
} {
  const { crf, markov } = options;
  if (markov !== 0 && markov !== 1 && markov !== 2) throw optionError('markov order must be 0, 1 or 2');
  const grammarOptions = { markov, parent: options.parent, vpHeadTag: options.vpHeadTag };
  // Relaxation pools the parent annotations of a label: without them it would add no rule.
  if (options.relax && !options.parent)
    throw optionError('relax needs parent annotation (parent: true; the CRF has none by default)');
  const prepared: Tree[] = [];
  for (const t of trees) {
    const p = prepareTree(t, grammarOptions);
    if (p) prepared.push(p);
  }
  if (prepared.length === 0) throw new InputError('<treebank>', undefined, 'no training trees with words');
  const table = buildSymbolTable(prepared);
  const pairs: number[] = [];
  const treeOffsets = new Int32Array(prepared.length + 1);
  prepared.forEach((t, i) => {
    encodeTree(t, table, pairs);
    treeOffsets[i + 1] = pairs.length / 2;
  });
  const { text, offsets } = joinTokens(prepared.map((t) => preterminals(t).map((p) => p.word as string)));
  const addon = native<ChartAddon>();
  const clusters = typeof options.clusters === 'string' ? readClustersSync(options.clusters) : options.clusters;
  if (clusters) {
    if (clusters.words.length !== clusters.clusters.length)
      throw optionError('clusters: words and clusters differ in number');
    for (const w of [...clusters.words, ...clusters.clusters]) {
      if (w === '' || w.includes('\n')) throw optionError(`clusters: bad entry ${JSON.stringify(w)}`);
    }
  }
  const { relaxWeight } = options;
  if (!(relaxWeight > 0 && relaxWeight < 1)) throw optionError('relaxWeight must be in (0, 1)');
  const handle = addon.ChartParser.buildPcfg(
    {
      isTag: table.isTag,
      base: table.base,
      numBases: table.numBases,
      relaxGroup: table.relaxGroup,
      isVerb: verbFlags(table, options.verbFeatures ? learnedVerbTags(trees).map(escapeLabel) : []),
    },
    text,
    offsets,
    Int32Array.from(pairs),
    treeOffsets,
    options.rareThreshold,
    {
      relax: options.relax ? 1 : 0,
      relaxWeight,
      shapeBackoff: crf ? 0 : PCFG_SHAPE_BACKOFF,
      ...(clusters ? { clusterWords: clusters.words.join('\n'), clusterIds: clusters.clusters.join('\n') } : {}),
    },
  );
  const meta: ChartMeta = { labels: table.labels, isTag: Array.from(table.isTag), ...grammarOptions, crf: false };
  if (!crf) return { handle, table, meta, sentences: prepared.length };
  // NaN or non-positive step sizes and priors would train NaN weights without a word.
  checkOptions(CRF_CHECKED, options, (message) => optionError(message));
  if (options.beam !== undefined && !(options.beam > 0)) throw optionError('beam must be a positive number');
  const { surfaceBits, prune } = options;
  if (!['sgd', 'adagrad', 'lbfgs'].includes(options.optimizer))
    throw optionError("optimizer must be 'sgd', 'adagrad' or 'lbfgs'");
  const started = handle.startCrf({
    batch: options.batch,
    eta0: options.eta0,
    tau: CRF_TRAINER_SETTINGS.tau,
    sigma2: options.sigma2,
    beam: options.beam,
    threads: resolveThreads(options.threads),
    seed: options.seed,
    priorAtPcfg: options.priorAtPcfg ? 1 : 0,
    verbFeatures: options.verbFeatures ? 1 : 0,
    featureCacheMB: options.featureCacheMB,
    surfaceBits,
    tagSets: options.tagSets ? 1 : 0,
    prune,
    adagrad: options.optimizer === 'adagrad' ? 1 : 0,
    average: options.optimizer !== 'lbfgs' && options.average ? 1 : 0,
    margin: options.margin,
  });
  meta.crf = true;
  if (prune > 0) {
    meta.prune = prune;
    meta.pruneRetry = true;
  }
  const { decode } = options;
  if (!PARSER_DECODES.includes(decode)) throw optionError("decode must be 'viterbi' or 'mbr'");
  if (decode !== 'viterbi') meta.decode = decode;
  return { handle, table, meta, sentences: prepared.length, started };
}

/**
 * A chart parser: a PCFG read off a treebank (Markov-binarized, parent-annotated), or the
 * CRF-CFG trained on top of it (`crf: true`); exact 1-best and k-best parsing.
 *
 * @example
 * ```ts
 * const parser = await ChartParserModel.train(readTreesSync('train.mrg'), { crf: true, epochs: 3 });
 * const [best] = await parser.parse([['The', 'dog', 'barks', '.']]);
 * const [kbest] = await parser.parseNbest([['The', 'dog', 'barks', '.']], 20);
 * parser.save('parser.model');
 * ```
 */
export class ChartParserModel implements NbestProducer {
  private constructor(
    private readonly handle: NativeChartParser,
    private readonly table: SymbolTable,
    private readonly meta: ChartMeta,
    /** The PCFGs of `meta.pcfgMix`. */
    private readonly mixPcfgs: readonly ChartParserModel[] = [],
    /** What `meta.headRescore`'s head model is counted from. */
    private readonly headStored?: StoredHeadModel,
  ) {}

  private rescoringModelsCache?: RescoringModels;
  /**
   * A mixed PCFG read from a file: its payload as stored (gzip'd), which `save` writes again:
   * another build's zlib may compress the same bytes differently, and a re-save must not change.
   */
  private storedPayload?: Uint8Array;
  /** The generative models of `meta.headRescore`, counted when first needed. */
  private rescoringModels(): RescoringModels {
    if (this.headStored === undefined) throw new InternalError('a rescoring chart parser without its head model');
    this.rescoringModelsCache ??= rescoringModelsOf(this.headStored);
    return this.rescoringModelsCache;
  }

  get isCrf(): boolean {
    return this.meta.crf;
  }

  get markov(): MarkovOrder {
    return this.meta.markov;
  }

  /** How the model parses its 1-best unless told otherwise ('mbr' for CRF models trained with it). */
  get decode(): 'viterbi' | 'mbr' {
    return this.meta.decode ?? 'viterbi';
  }

  /** The model's kind, grammar size and CRF settings (`crf` false: a PCFG). */
  info(): ChartParserInfo {
    return {
      kind: CHART_MODEL_KIND,
      ...this.handle.info(),
      pcfgWeight: this.meta.pcfgMix?.weight ?? 0,
      pcfgGrammars: this.mixPcfgs.length,
      headWeight: this.meta.headRescore?.weight ?? 0,
      treeModelWeight: this.meta.headRescore?.treeWeight ?? 0,
      lossWeight: this.meta.headRescore?.lossWeight ?? 0,
    };
  }

  /**
   * Trains a PCFG on treebank trees (function tags, empties and the root wrapper are handled
   * here), and the CRF-CFG on top of it with `crf: true`; `run` gives cancellation and the
   * common progress event (TrainProgress).
   *
   * @example
   * ```ts
   * const pcfg = await ChartParserModel.train(readTreesSync('train.mrg'));
   * const crf = await ChartParserModel.train(readTreesSync('train.mrg'), { crf: true }, { onProgress: (p) => console.error(p.done, p.total) });
   * ```
   */
  static async train(trees: Tree[], options: ParserTrainOptions = {}, run?: TrainRun): Promise<ChartParserModel> {
    // An option only the CRF reads, given for a PCFG, would be ignored: refused instead.
    if (!(options.crf ?? false)) {
      if (options.checkpoint !== undefined || options.resume !== undefined)
        throw optionError(
          'checkpoints are for CRF training: the PCFG is counted from the trees in one pass, with nothing to continue',
        );
      const crfOnly = CRF_ONLY_TRAIN_OPTIONS.find((key) => options[key] !== undefined);
      if (crfOnly !== undefined) throw optionError(`${crfOnly} applies to CRF training (crf: true)`);
    }
    const reportPcfg = reporter(run?.onProgress);
    // The common event counts steps over the run; inside a group of steps, the pass's
    // fraction of sentences done moves it on (fractional steps, one event a second). It
    // carries the dev F1 of the last pass that had one.
    let lastDevF1: number | undefined;
    if (run?.onProgress) {
      const onPass = options.onPass;
      options = {
        ...options,
        onPass: (r) => {
          if (r.devF1 !== undefined) lastDevF1 = r.devF1;
          onPass?.(r);
        },
      };
    }
    options = withRun(options, run, (p: ParserTrainProgress) => ({
      phase: 'step',
      done: (p.epoch - 1 + Math.max(p.step / p.stepsPerEpoch, p.sentences / p.sentencesPerEpoch)) * p.stepsPerEpoch,
      total: p.epochs * p.stepsPerEpoch,
      ...(Number.isFinite(p.objective) ? { loss: p.objective } : {}),
      ...(lastDevF1 !== undefined ? { devScore: lastDevF1, devMetric: 'F1' } : {}),
    }));
    const opts = completeParserOptions(options);
    // The last event of training: the PCFG weight's dev parse reports as its continuation.
    let lastProgress: ParserTrainProgress | undefined;
    const onProgress = opts.onProgress;
    if (onProgress)
      opts.onProgress = (p) => {
        if (!p.pcfgMix && !p.latent) lastProgress = p;
        onProgress(p);
      };
    const built = buildTraining(trees, opts);
    const { table, meta, sentences } = built;
    // The PCFG is counted in one pass: one event when its trees are read.
    reportPcfg?.({ phase: 'tree', done: sentences, total: sentences });
    if (!opts.crf || !built.started) return new ChartParserModel(built.handle, table, meta);
    if (!(opts.weightFloor >= 0)) throw optionError('weightFloor must be a non-negative number');
    if (!(opts.progressEvery > 0)) throw optionError('progressEvery must be a positive number of milliseconds');
    if (opts.external && opts.optimizer !== 'lbfgs')
      throw new InputError('<options>', undefined, 'CRF parser training spread over workers takes L-BFGS');
    const summary: ParserTrainSummary = {
      surfaceGoldFeatures: built.started.surfaceGoldFeatures,
      surfaceCollisionRate: built.started.surfaceCollisionRate,
    };
    // Checkpoints: everything that shapes the model but the pass count, the weight floor
    // applied after the last pass and patience (and threads, the feature cache, callbacks),
    // as given, with the training and dev trees.
    const {
      epochs: _e,
      threads: _t,
      featureCacheMB: _f,
      signal: _s,
      onProgress: _p,
      progressEvery: _v,
      weightFloor: _w,
      onPass: _o,
      summary: _y,
      dev: _d,
      checkpoint: _c,
      resume: _r,
      external: _x,
      patience: _n,
      pcfgWeight: _m,
      pcfgGrammars: _pg,
      pcfgCycles: _pc,
      headModel: _h,
      headModelTrees: _ht,
      ...shaping
    } = options;
    // What a worker needs to build the same model (distributed L-BFGS).
    const spec = (): ParserTrainingSpec => {
      const { clusters, beam, ...rest } = shaping;
      return {
        trees,
        options: {
          ...rest,
          ...(Number.isFinite(beam ?? Infinity) ? { beam } : {}),
          ...(clusters !== undefined
            ? { clusters: typeof clusters === 'string' ? readClustersSync(clusters) : clusters }
            : {}),
        },
        sentences,
        sigma2: opts.sigma2,
        priorAtStart: opts.priorAtPcfg,
      };
    };
    // Distributed: the optimizer state is the coordinator's, so local and distributed checkpoints do not mix.
    // tagSets is named even when defaulted: checkpoints written before it existed trained without.
    // So is surfaceClusters with clusters: before it, clusters did not enter the surface features.
    const checkpointOptions = {
      ...shaping,
      tagSets: opts.tagSets,
      ...(shaping.clusters !== undefined ? { surfaceClusters: true } : {}),
      ...(opts.external ? { distributed: true } : {}),
    };
    const crf = crfTrainer(built.handle, (h) => new ChartParserModel(h, table, meta), sentences, opts, spec);
    const result = await runTraining(crf.trainer, {
      total: opts.epochs,
      patience: opts.patience,
      signal: opts.signal,
      checkpoint: {
        trainer: 'crf-parser',
        file: opts.checkpoint,
        resume: opts.resume,
        options: checkpointOptions,
        fingerprint: () => [
          JSON.stringify(checkpointOptions),
          ...trees.map((t) => formatTree(t)),
          '',
          ...(opts.dev ?? []).map((t) => formatTree(t)),
        ],
        refuseLonger: 'passes',
      },
      onStep: (e) =>
        opts.onPass?.({
          epoch: e.done,
          epochs: opts.epochs,
          ...crf.lastPass(),
          ...(e.dev ? { devF1: e.dev.value, best: e.improved } : {}),
        }),
    });
    if (result.best) {
      summary.bestEpoch = result.bestStep;
      summary.bestDevF1 = result.best.value;
      if (result.best.evaluation) summary.bestDev = result.best.evaluation;
    }
    const handle = crf.handle();
    handle.keepCoarseMasks(0);
    // The CRF's trainer (its feature cache) would stay beside the latent PCFGs' training.
    handle.endTraining();
    if (opts.weightFloor > 0) {
      const { weights, kept } = floorWeights(handle.crfWeights(), opts.weightFloor);
      handle.setCrfWeights(weights);
      summary.nonZeroWeights = kept;
    }
    const devReport =
      (phase: 'pcfgMix' | 'headModel') =>
      (done: number, total: number): void => {
        if (lastProgress) opts.onProgress?.({ ...lastProgress, devSentences: done, devTotal: total, [phase]: true });
      };
    const mixed = await new ChartParserModel(handle, table, meta).withPcfgMix(
      trees,
      opts,
      summary,
      devReport('pcfgMix'),
      (latent) => {
        if (lastProgress) opts.onProgress?.({ ...lastProgress, latent });
      },
    );
    const model = await mixed.withHeadRescoring(trees, opts, summary, devReport('headModel'));
    if (opts.summary) Object.assign(opts.summary, summary);
    return model;
  }

  /**
   * This model with its MBR tree rescored by generative models of `trees` and its expected
   * bracket loss (lib/parser/head-rescoring.ts) at the weights dev chooses among CRF_DEFAULTS's;
   * this model where `opts.headModel` is false, without dev, without MBR decoding, or where no
   * weights beat the MBR tree on dev. With weights, `summary.bestDev` becomes the returned model's.
   */
  private async withHeadRescoring(
    trees: Tree[],
    opts: CompleteParserOptions,
    summary: ParserTrainSummary,
    report: (done: number, total: number) => void,
  ): Promise<ChartParserModel> {
    summary.headWeight = 0;
    const dev = opts.dev?.filter((t) => treeWords(t).length > 0) ?? [];
    if (opts.headModel === false || this.decode !== 'mbr' || dev.length === 0) return this;
    const text = (opts.headModelTrees ?? trees)
      .map((t) => generativeTree(t))
      .filter((t): t is Tree => t !== undefined)
      .map((t) => formatTree(t))
      .join('\n');
    const { headK: k, headPool: pool } = CRF_DEFAULTS;
    // Counted from the text the model stores, as a loaded model counts it.
    const stored = { trees: text, table: learnHeadModelTable([...storedTrees(text)]) };
    const models = rescoringModelsOf(stored);
    const sentences: Parameters<typeof chooseRescoring>[0][number][] = [];
    const fallbacks: boolean[] = [];
    for (let b = 0; b < dev.length; b += DEV_PARSE_CHUNK) {
      const chunk = dev.slice(b, b + DEV_PARSE_CHUNK);
      const parsed = await this.parseNbest(
        chunk.map((t) => treeWords(t)),
        pool,
        { threads: opts.threads, signal: opts.signal, mbrTree: true },
      );
      parsed.forEach((p, i) => {
        const { candidates, terms, mbr } = rescoringList(p, models, k, pool);
        sentences.push({ candidates, terms, mbr: mbr.tree, gold: chunk[i] });
        fallbacks.push(p.fallback);
      });
      report(Math.min(dev.length, b + DEV_PARSE_CHUNK), dev.length);
    }
    const choice = chooseRescoring(sentences, {
      head: CRF_DEFAULTS.headWeights,
      tree: CRF_DEFAULTS.treeModelWeights,
      loss: CRF_DEFAULTS.lossWeights,
    });
    summary.headWeightsDev = {
      mbrF1: choice.mbrF1,
      byWeight: choice.byHeadWeight.map(({ weights, f1 }) => ({
        weight: weights.head,
        f1,
        treeModelWeight: weights.tree,
        lossWeight: weights.loss,
      })),
    };
    const weights = choice.weights;
    if (weights === undefined) return this;
    summary.headWeight = weights.head;
    summary.treeModelWeight = weights.tree;
    summary.lossWeight = weights.loss;
    const { scoreParses } = await import('./score-parses.js');
    summary.bestDev = await scoreParses(
      async () =>
        sentences.map((s, i) => ({
          tree: s.candidates[rescoredChoice(s.candidates, s.terms, weights)].tree,
          fallback: fallbacks[i],
        })),
      dev,
      { threads: opts.threads },
    );
    const headRescore: HeadRescoring = {
      weight: weights.head,
      treeWeight: weights.tree,
      lossWeight: weights.loss,
      k,
      pool,
    };
    const out = new ChartParserModel(this.handle, this.table, { ...this.meta, headRescore }, this.mixPcfgs, stored);
    out.rescoringModelsCache = models;
    return out;
  }

  /** parseNbest's 1-best where the model rescores its MBR tree: the candidates, rescored. */
  private async parseRescored(sentences: string[][], options: ParseOptions): Promise<ParsedNbest[]> {
    const rescore = this.meta.headRescore as HeadRescoring;
    const { decode: _d, headModel: _h, ...rest } = options;
    const parsed = await this.parseNbest(sentences, rescore.pool, { ...rest, mbrTree: true });
    return parsed.map((p) => {
      const best = this.rescoredBest(p);
      return { candidates: [best], fallback: p.fallback, ...(options.mbrTree ? { mbrTree: best } : {}) };
    });
  }

  /**
   * How many trees a sentence's parseNbest (with `mbrTree`) must hold for rescoredBest to give
   * the 1-best `parse` gives with `options`: the rescoring's pool; 0 where the model does not
   * rescore with them (no rescoring, `headModel: false`, `pcfg`, an ensemble, Viterbi decoding).
   */
  rescoringPool(options: ParseOptions = {}): number {
    const rescore = this.meta.headRescore;
    const decode = options.decode ?? this.decode;
    const off = options.headModel === false || options.pcfg === true || (options.ensemble ?? []).length > 0;
    return rescore === undefined || off || decode !== 'mbr' ? 0 : rescore.pool;
  }

  /**
   * The rescored 1-best of a sentence's parseNbest with `mbrTree` and at least rescoringPool()
   * trees: its first rescoringPool() trees are the rescoring's pool (a k-best list is the
   * prefix of any deeper one), so one parse gives a deeper list and this 1-best.
   */
  rescoredBest(p: ParsedNbest): ScoredTree {
    const rescore = this.meta.headRescore;
    if (rescore === undefined) throw optionError('rescoredBest: this model does not rescore its MBR tree');
    const { candidates, terms } = rescoringList(p, this.rescoringModels(), rescore.k, rescore.pool);
    return candidates[rescoredChoice(candidates, terms, rescoringWeights(rescore))];
  }

  /**
   * This CRF with opts.pcfgGrammars latent PCFGs (opts.pcfgCycles split-merge cycles over the
   * CRF's default grammar), trained on the same trees, mixed into its MBR decoding at
   * `opts.pcfgWeight`, else at the weight of CRF_DEFAULTS.pcfgWeights with the best dev F1
   * (without dev, CRF_DEFAULTS.pcfgWeight); at weight 0, this CRF alone. With dev,
   * `summary.bestDev` becomes the returned model's.
   */
  private async withPcfgMix(
    trees: Tree[],
    opts: CompleteParserOptions,
    summary: ParserTrainSummary,
    report: (done: number, total: number) => void,
    reportLatent: (p: LatentProgress) => void,
  ): Promise<ChartParserModel> {
    const given = opts.pcfgWeight;
    if (given !== undefined && !(given >= 0 && given < 1)) throw optionError('pcfgWeight must be in [0, 1)');
    if ((given === 0 && opts.keepPcfgs !== true) || this.decode !== 'mbr') {
      summary.pcfgWeight = 0;
      return this;
    }
    const grammars = await ChartParserModel.latentGrammars(trees, opts, reportLatent);
    const dev = opts.dev?.filter((t) => treeWords(t).length > 0) ?? [];
    let weight: number = given ?? CRF_DEFAULTS.pcfgWeight;
    // Kept at weight 0 (keepPcfgs) the PCFGs change no parse: the CRF's dev F1 stands.
    if (dev.length > 0 && given !== 0) {
      const weights = given === undefined ? [...CRF_DEFAULTS.pcfgWeights] : [given];
      const { scoreParses } = await import('./score-parses.js');
      const sentences = dev.map((t) => treeWords(t));
      const parsed = await this.parseMixes(sentences, grammars, weights, opts, report);
      let best: { weight: number; evaluation: ParserEvaluation } | undefined;
      summary.pcfgWeightsDev = [];
      for (const [x, w] of weights.entries()) {
        const evaluation = await scoreParses(async () => parsed[x], dev, { threads: opts.threads });
        summary.pcfgWeightsDev.push({ weight: w, f1: evaluation.f1 });
        if (!best || evaluation.f1 > best.evaluation.f1) best = { weight: w, evaluation };
      }
      if (best) {
        weight = best.weight;
        summary.bestDev = best.evaluation;
      }
    }
    summary.pcfgWeight = weight;
    if (weight === 0 && opts.keepPcfgs !== true) return this;
    const pcfgMix = { weight, grammars: grammars.map((g) => ({ meta: g.meta })) };
    return new ChartParserModel(this.handle, this.table, { ...this.meta, pcfgMix }, grammars);
  }

  /** The latent PCFGs of `withPcfgMix`, from a plain PCFG of the CRF's default grammar over `trees`. */
  private static async latentGrammars(
    trees: Tree[],
    opts: CompleteParserOptions,
    report: (p: LatentProgress) => void,
  ): Promise<ChartParserModel[]> {
    const { threads, signal } = opts;
    const base = await ChartParserModel.train(trees, {
      markov: CRF_DEFAULTS.markov,
      parent: CRF_DEFAULTS.parent,
      vpHeadTag: CRF_DEFAULTS.vpHeadTag,
      threads,
      signal,
    });
    let trained;
    try {
      trained = await trainLatentGrammars(base.handle, base.table.labels.length, {
        grammars: opts.pcfgGrammars,
        cycles: opts.pcfgCycles,
        threads,
        signal,
        report,
      });
    } finally {
      base.handle.endTraining();
    }
    return trained.map(({ parser, subs }) => {
      const meta: ChartMeta = { ...base.meta, latentSubs: subs };
      return new ChartParserModel(
        parser,
        latentSymbolTable(
          meta.labels,
          meta.isTag.map((x) => x === 1),
          subs,
        ),
        meta,
      );
    });
  }

  /**
   * Each tree's log-probability under the latent PCFGs stored with this CRF (those its MBR
   * decoding mixes in), summed over them (a product of the grammars), words included: how
   * probable a second kind of parser finds a candidate as a whole. Trees as `parse` gives
   * them; -Infinity where a grammar gives a tree none (a rule or a word's tag it never saw).
   * Empty without such PCFGs.
   */
  async mixTreeLogProbs(trees: readonly Tree[], opts: { threads?: number } = {}): Promise<Float64Array> {
    const latent = this.mixPcfgs.filter((m) => m.meta.latentSubs !== undefined);
    if (latent.length === 0) return new Float64Array(0);
    const out = new Float64Array(trees.length);
    // The grammars of one CRF share their base grammar: its encoding of the trees serves each.
    const encodings = new Map<string, ReturnType<typeof encodeForGrammar>>();
    for (const pcfg of latent) {
      const { meta } = pcfg;
      const key = JSON.stringify([meta.labels, meta.isTag, meta.markov, meta.parent, meta.vpHeadTag]);
      let encoded = encodings.get(key);
      if (encoded === undefined) encodings.set(key, (encoded = encodeForGrammar(trees, meta)));
      const logProbs =
        encoded.treeOffsets.length > 1
          ? await pcfg.handle.treeLogProbs(
              encoded.text,
              encoded.offsets,
              encoded.pairs,
              encoded.treeOffsets,
              resolveThreads(opts.threads),
            )
          : new Float64Array(0);
      // A tree with a label the grammar lacks has no probability under it.
      encoded.position.forEach((k, i) => (out[i] += k < 0 ? Number.NEGATIVE_INFINITY : logProbs[k]));
    }
    return out;
  }

  /**
   * Each sentence's MBR tree with the posteriors of `pcfgs` mixed in at each of `weights`
   * (out[x][s]; the PCFGs share the weight), every model's posteriors computed once; progress
   * as the dev parse's, in chunks.
   */
  private async parseMixes(
    sentences: string[][],
    pcfgs: readonly ChartParserModel[],
    weights: readonly number[],
    opts: CompleteParserOptions,
    report: (done: number, total: number) => void,
  ): Promise<ParsedSentence[][]> {
    const out: ParsedSentence[][] = weights.map(() => []);
    const threads = resolveThreads(opts.threads);
    const chunk = Math.max(DEV_PARSE_CHUNK, 4 * threads);
    const baseMaps = pcfgs.map((p) => categoryMap(p.table, this.table, false));
    const tagMaps = pcfgs.map((p) => categoryMap(p.table, this.table, true));
    for (let i = 0; i < sentences.length; i += chunk) {
      const batch = sentences.slice(i, i + chunk);
      const { text, offsets } = joinTokens(batch);
      const results = await withCancelFlag(opts.signal, (flag) =>
        this.handle.parseEnsembleMixes(
          pcfgs.map((p) => p.handle),
          baseMaps,
          tagMaps,
          text,
          offsets,
          threads,
          flag,
          0,
          this.meta.prune ?? 0,
          this.meta.pruneRetry ?? false,
          weights.map((w) => Float64Array.from([1 - w, ...pcfgs.map(() => w / pcfgs.length)])),
        ),
      );
      results.forEach((r, x) =>
        out[x].push(
          ...this.toNbest(r, batch, 'ROOT', false).map((p) => ({ ...p.candidates[0], fallback: p.fallback })),
        ),
      );
      report(out[0].length, sentences.length);
    }
    return out;
  }

  /** 1-best parses of tokenized sentences, in order, with exactly their words. */
  async parse(sentences: string[][], options: ParseOptions = {}): Promise<ParsedSentence[]> {
    const nbest = await this.parseNbest(sentences, 1, options);
    return nbest.map((s) => ({ tree: s.candidates[0].tree, logprob: s.candidates[0].logprob, fallback: s.fallback }));
  }

  /**
   * The k best parses of each sentence, best first (exact Viterbi k-best of the binarized,
   * annotated grammar; distinct derivations that restore to the same plain tree are merged,
   * keeping the best, so a sentence may get fewer than k). With k = 1 the `decode` choice
   * (or the model's) applies: a CRF's MBR tree. With k > 1 and `decode: 'mbr'` given, a CRF's
   * k best trees under the MBR objective (most expected correct brackets first), each with its
   * log-probability.
   */
  async parseNbest(sentences: string[][], k: number, options: ParseOptions = {}): Promise<ParsedNbest[]> {
    checkNbestK(k);
    // The CRF's parse options, given for PCFG parsing, would be ignored: refused instead.
    if (!this.meta.crf || options.pcfg) {
      const crfOnly = CRF_ONLY_PARSE_OPTIONS.find((key) => options[key] !== undefined);
      if (crfOnly !== undefined)
        throw optionError(`${crfOnly} applies to CRF parsing (${options.pcfg ? 'pcfg: true' : 'a PCFG model'})`);
    }
    const maxLength = options.maxLength ?? 0;
    if (!Number.isInteger(maxLength) || maxLength < 0) throw optionError('maxLength must be a non-negative integer');
    const prune = options.prune ?? this.meta.prune ?? 0;
    if (!(prune >= 0 && prune < 1)) throw optionError('prune must be in [0, 1)');
    const decode = options.decode ?? this.meta.decode ?? 'viterbi';
    if (!PARSER_DECODES.includes(decode)) throw optionError("decode must be 'viterbi' or 'mbr'");
    const pruneRetry = options.pruneRetry ?? this.meta.pruneRetry ?? false;
    // The model's decode is its 1-best; k-best lists are MBR only when asked for.
    const mbrDecode = k === 1 ? decode === 'mbr' : options.decode === 'mbr';
    const ensemble = options.ensemble ?? [];
    if (k === 1 && this.rescoringPool(options) > 0) return this.parseRescored(sentences, options);
    if (ensemble.length > 0) {
      if (!this.meta.crf || ensemble.some((m) => !m.meta.crf))
        throw optionError('ensemble: every parser must be a CRF model');
      if (decode !== 'mbr' || options.pcfg) throw optionError("ensemble: parses with decode 'mbr'");
      if (options.beam !== undefined && options.beam !== Number.POSITIVE_INFINITY)
        throw optionError('ensemble: no beam (it prunes with the coarse pass)');
    }
    // The model's PCFG joins MBR decoding at its weight (the model's, or the one given); an
    // ensemble's grammars already see its context, so there only when a weight is given.
    const ownWeight = ensemble.length > 0 ? 0 : (this.meta.pcfgMix?.weight ?? 0);
    const pcfgWeight = options.pcfg ? 0 : (options.pcfgWeight ?? ownWeight);
    if (!(pcfgWeight >= 0 && pcfgWeight < 1)) throw optionError('pcfgWeight must be in [0, 1)');
    if (pcfgWeight > 0 && this.mixPcfgs.length === 0)
      throw optionError(
        'pcfgWeight: this model has no PCFG to mix in (trained with pcfgWeight 0 or before the option)',
      );
    const mixes = pcfgWeight > 0 && (mbrDecode || ensemble.length > 0 || options.mbrTree === true);
    if (mixes && options.beam !== undefined && options.beam !== Number.POSITIVE_INFINITY)
      throw optionError(
        'beam: MBR decoding with the PCFG mixed in prunes with the coarse pass (pcfgWeight 0 takes a beam)',
      );
    if (sentences.length === 0) return [];
    const { text, offsets } = joinTokens(sentences);
    const rootLabel = options.rootLabel ?? 'ROOT';
    // MBR decoding over the mean posteriors of this CRF, the ensemble's and the PCFG mixed in.
    const mixPcfgs = mixes ? this.mixPcfgs : [];
    const members = [...ensemble, ...mixPcfgs];
    // Without the PCFGs the members weigh alike (no mix given: the same arithmetic as before weights).
    const crfWeight = (1 - pcfgWeight) / (ensemble.length + 1);
    const pcfgShare = pcfgWeight / Math.max(1, mixPcfgs.length);
    const mix = mixes
      ? Float64Array.from([this, ...members], (m) => (mixPcfgs.includes(m) ? pcfgShare : crfWeight))
      : undefined;
    const ensembleArgs = (flag: CancelFlagHandle): EnsembleArgs => [
      members.map((m) => m.handle),
      members.map((m) => categoryMap(m.table, this.table, false)),
      members.map((m) => categoryMap(m.table, this.table, true)),
      text,
      offsets,
      resolveThreads(options.threads),
      flag,
      maxLength,
      prune,
      pruneRetry,
    ];
    if (ensemble.length > 0 || (mixes && mbrDecode)) {
      const r = await withCancelFlag(options.signal, (flag) =>
        this.handle.parseEnsemble(...ensembleArgs(flag), k, mix),
      );
      return this.toNbest(r, sentences, rootLabel, options.mbrTree === true);
    }
    if (mixes && mix !== undefined) {
      // A Viterbi list with its MBR tree and bracket posteriors from the mixed posteriors, in
      // one pass: the list is what the Viterbi parse below gives.
      const both = await withCancelFlag(options.signal, (flag) =>
        this.handle.parseEnsembleWithViterbi(...ensembleArgs(flag), mix, k),
      );
      return this.withMbrOf(this.toNbest(both.viterbi, sentences, rootLabel, false), both.mbr, sentences, rootLabel);
    }
    const r = await withCancelFlag(options.signal, (flag) =>
      this.handle.parse(
        text,
        offsets,
        k,
        resolveThreads(options.threads),
        flag,
        options.pcfg ?? false,
        options.beam ?? Number.POSITIVE_INFINITY,
        maxLength,
        prune,
        mbrDecode,
        pruneRetry,
        options.mbrTree === true && !mbrDecode && !mixes,
      ),
    );
    return this.toNbest(r, sentences, rootLabel, options.mbrTree === true);
  }

  /** A Viterbi list's MBR tree and bracket posteriors from the mixed posteriors' parse `mbr`. */
  private withMbrOf(
    out: ParsedNbest[],
    mbr: NativeParseResult,
    sentences: string[][],
    rootLabel: string,
  ): ParsedNbest[] {
    const trees = this.toNbest(mbr, sentences, rootLabel, false);
    out.forEach((o, s) => {
      o.mbrTree = trees[s].candidates[0];
      if (trees[s].brackets) o.brackets = trees[s].brackets;
      else delete o.brackets;
    });
    return out;
  }

  /** A native parse result as restored trees per sentence (distinct trees, best first). */
  private toNbest(r: NativeParseResult, sentences: string[][], rootLabel: string, mbrTree: boolean): ParsedNbest[] {
    return sentences.map((words, s) => {
      const candidate = (c: number): { tree: Tree; logprob: number } => ({
        tree: restoreTree(
          decodeTree(r.nodes, r.candidateOffsets[c], r.candidateOffsets[c + 1], words, this.table),
          rootLabel,
        ),
        logprob: r.scores[c],
      });
      const seen = new Set<string>();
      const candidates: { tree: Tree; logprob: number }[] = [];
      for (let c = r.sentenceOffsets[s]; c < r.sentenceOffsets[s + 1]; c++) {
        const parsed = candidate(c);
        const key = formatTree(parsed.tree);
        if (seen.has(key)) continue;
        seen.add(key);
        candidates.push(parsed);
      }
      const out: ParsedNbest = { candidates, fallback: r.fallback[s] === 1 };
      if (r.bracketOffsets[s + 1] > r.bracketOffsets[s]) out.brackets = this.bracketPosteriors(r, s);
      if (mbrTree) out.mbrTree = r.mbrCandidates[s] >= 0 ? candidate(r.mbrCandidates[s]) : candidates[0];
      return out;
    });
  }

  /**
   * Sentence s's bracket posteriors in `r`, as the restored trees label their nodes: a unary
   * chain's state counts for each of its labels, and the states of one label at one span add up;
   * binarization nodes are left out.
   */
  private bracketPosteriors(r: NativeParseResult, s: number): BracketPosterior[] {
    const names = this.baseLabels();
    const byKey = new Map<string, BracketPosterior>();
    for (let b = r.bracketOffsets[s]; b < r.bracketOffsets[s + 1]; b++) {
      const [start, end] = [r.brackets[3 * b], r.brackets[3 * b + 1]];
      for (const label of names[r.brackets[3 * b + 2]]) {
        const key = bracketKey(label, start, end);
        const seen = byKey.get(key);
        if (seen) seen.posterior += r.bracketPosteriors[b];
        else byKey.set(key, { label, start, end, posterior: r.bracketPosteriors[b] });
      }
    }
    return [...byKey.values()];
  }

  private baseLabelsCache?: string[][];
  /** The tree labels of each base category id: a unary chain's, none for a binarization node. */
  private baseLabels(): string[][] {
    if (!this.baseLabelsCache) {
      const labels: string[][] = Array.from({ length: this.table.numBases }, () => []);
      this.table.labels.forEach((label, id) => {
        const base = baseCategory(label);
        if (!this.table.isTag[id] && !isActiveLabel(base))
          labels[this.table.base[id]] = base.split(CHAIN_SEPARATOR).map(unescapeLabel);
      });
      this.baseLabelsCache = labels;
    }
    return this.baseLabelsCache;
  }

  /**
   * The k-best lists of pipeline sentences (NbestProducer), parsed in batches with progress and
   * cancellation between them; `lists` keeps k trees of a larger pool by a k-best mode
   * (default: the k best trees, `parseNbest`).
   */
  nbest(
    sentences: PipelineSentence[],
    k: number,
    ctx: StepContext,
    lists: KbestListOptions = {},
  ): Promise<NbestSentence[]> {
    return parserNbest(this, sentences, k, ctx, lists);
  }

  /** `nbest`, and with `lists.pool` larger than k the lists of every k-best mode from the same pool. */
  nbestVariants(
    sentences: PipelineSentence[],
    k: number,
    ctx: StepContext,
    lists: KbestListOptions = {},
  ): Promise<{ main: NbestSentence[]; variants: Record<string, NbestSentence[]> }> {
    return parserNbestVariants(this, sentences, k, ctx, lists);
  }

  /** This parser as the producer of the lists `lists` asks for (the pipeline's `base.kbest` and `base.pool`). */
  nbestProducer(lists: KbestListOptions): NbestProducer {
    return {
      nbest: (sentences, k, ctx) => this.nbest(sentences, k, ctx, lists),
      nbestVariants: (sentences, k, ctx) => this.nbestVariants(sentences, k, ctx, lists),
    };
  }

  toBytes(): Uint8Array {
    return this.handle.serialize();
  }

  /** Writes the model file (atomically: a temp file renamed into place). */
  save(file: string): void {
    // The CRF's payload, then its PCFGs' (version 4; one PCFG: version 2), then its head
    // model's trees (version 3); a file with neither stays version 1, which readers from
    // before the PCFG mix read too.
    const parts = [this.handle.serialize()];
    const meta: ChartMeta = { ...this.meta };
    let kindVersion = 1;
    const mix = this.meta.pcfgMix;
    if (mix && this.mixPcfgs.length > 0) {
      // gzip'd: a latent PCFG's quantized rules and lexicon shrink to a third.
      const payloads = this.mixPcfgs.map((g) => g.storedPayload ?? gzipSync(g.handle.serialize()));
      parts.push(...payloads);
      meta.pcfgMix = {
        weight: mix.weight,
        grammars: this.mixPcfgs.map((g, i) => ({ meta: g.meta, bytes: payloads[i].length })),
      };
      kindVersion = 4;
    } else delete meta.pcfgMix;
    const rescore = this.meta.headRescore;
    if (rescore && this.headStored !== undefined) {
      const trees = gzipSync(this.headStored.trees);
      parts.push(trees);
      meta.headRescore = { ...rescore, bytes: trees.length, headTable: headTableToJson(this.headStored.table) };
      kindVersion = Math.max(kindVersion, 3);
    } else delete meta.headRescore;
    const payload = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      payload.set(p, at);
      at += p.length;
    }
    saveModel(file, { kind: CHART_MODEL_KIND, kindVersion, meta, payload });
  }

  /**
   * Reads a model file `save` (or `structrank train-parser`) wrote. A file of another kind is
   * a ModelKindError; a damaged one a ModelFileError.
   *
   * @example
   * ```ts
   * const parser = await ChartParserModel.load('parser.model');
   * ```
   */
  static async load(file: string): Promise<ChartParserModel> {
    return ChartParserModel.fromModelFile(file, await loadModelAsync<ChartMeta>(file, CHART_MODEL_KIND));
  }

  /** `load` on the JS thread (blocks while the file is read). */
  static loadSync(file: string): ChartParserModel {
    return ChartParserModel.fromModelFile(file, loadModel<ChartMeta>(file, CHART_MODEL_KIND));
  }

  private static fromModelFile(file: string, m: ModelFile<ChartMeta>): ChartParserModel {
    refuseNewerVersion(file, m);
    const rescore = m.meta?.headRescore;
    if (rescore === undefined) return ChartParserModel.withoutHeadModel(file, m);
    if (
      typeof rescore !== 'object' ||
      !(rescore.weight > 0) ||
      !(rescore.treeWeight === undefined || rescore.treeWeight >= 0) ||
      !(rescore.lossWeight === undefined || rescore.lossWeight >= 0) ||
      !Number.isInteger(rescore.k) ||
      rescore.k < 1 ||
      !Number.isInteger(rescore.pool) ||
      rescore.pool < rescore.k ||
      !isTrailingSection(rescore.bytes, m.payload.length)
    )
      throw new ModelFileError(
        file,
        "chart parser model metadata is malformed (its rescoring's weights or its trees' length)",
      );
    const split = m.payload.length - rescore.bytes;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(gunzipSync(m.payload.subarray(split)));
    } catch {
      throw new ModelFileError(file, "chart parser model's head-model trees are damaged (not gzip'd UTF-8 text)");
    }
    let table: HeadTable;
    try {
      table =
        rescore.headTable === undefined
          ? learnHeadModelTable([...storedTrees(text)])
          : headTableFromJson(rescore.headTable, file);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      throw new ModelFileError(file, `chart parser model's head model is damaged: ${e.problem}`);
    }
    const rest = ChartParserModel.withoutHeadModel(file, { ...m, payload: m.payload.subarray(0, split) });
    const meta: ChartMeta = { ...rest.meta, headRescore: rescore };
    return new ChartParserModel(rest.handle, rest.table, meta, rest.mixPcfgs, { trees: text, table });
  }

  /** A model file's CRF (or PCFG) and its mixed PCFGs, its payload ending with theirs. */
  private static withoutHeadModel(file: string, m: ModelFile<ChartMeta>): ChartParserModel {
    const mix = m.meta?.pcfgMix;
    if (mix === undefined) return ChartParserModel.fromParts(file, m.meta, m.payload);
    const malformed = () =>
      new ModelFileError(file, "chart parser model metadata is malformed (its PCFGs' weight or lengths)");
    if (typeof mix !== 'object' || mix === null || !(mix.weight > 0 && mix.weight < 1)) throw malformed();
    // Version 4 lists its PCFGs, their payloads gzip'd; versions 2 and 3 hold one, as it is.
    const listed = mix.grammars !== undefined;
    const grammars = mix.grammars ?? [{ meta: mix.meta, bytes: mix.bytes }];
    if (!Array.isArray(grammars) || grammars.length === 0) throw malformed();
    // The payloads end the file's, in order: read them from the last.
    const pcfgs: ChartParserModel[] = [];
    let end = m.payload.length;
    for (let g = grammars.length - 1; g >= 0; g--) {
      const { meta, bytes } = grammars[g] ?? {};
      if (!isTrailingSection(bytes, end)) throw malformed();
      const stored = m.payload.subarray(end - bytes, end);
      let payload = stored;
      if (listed) {
        try {
          payload = gunzipSync(stored);
        } catch {
          throw new ModelFileError(file, "chart parser model's PCFG is damaged (not gzip'd)");
        }
      }
      const pcfg = ChartParserModel.fromParts(file, meta, payload);
      if (listed) pcfg.storedPayload = Uint8Array.from(stored);
      if (pcfg.isCrf) throw new ModelFileError(file, 'chart parser model metadata is malformed (its PCFG is a CRF)');
      pcfgs.unshift(pcfg);
      end -= bytes;
    }
    const crf = ChartParserModel.fromParts(file, m.meta, m.payload.subarray(0, end));
    return new ChartParserModel(crf.handle, crf.table, crf.meta, pcfgs);
  }

  /** One grammar's model from its metadata and native payload, checked against each other. */
  private static fromParts(file: string, meta: ChartMeta | undefined, payload: Uint8Array): ChartParserModel {
    if (
      !meta ||
      !Array.isArray(meta.labels) ||
      !Array.isArray(meta.isTag) ||
      meta.labels.length !== meta.isTag.length
    ) {
      throw new ModelFileError(file, 'chart parser model metadata is malformed');
    }
    let handle: NativeChartParser;
    try {
      handle = native<ChartAddon>().ChartParser.deserialize(payload);
    } catch (err) {
      throw inModelFile(err, file);
    }
    const isTag = meta.isTag.map((x) => x === 1);
    const subs = meta.latentSubs;
    let table: SymbolTable;
    try {
      table =
        subs === undefined
          ? symbolTableFromLabels(meta.labels, isTag)
          : latentSymbolTable(meta.labels, isTag, Array.isArray(subs) ? subs : []);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      throw new ModelFileError(file, `chart parser model metadata is malformed: ${e.problem}`);
    }
    if (handle.info().symbols !== table.labels.length)
      throw new ModelFileError(file, 'chart parser model metadata does not match its payload');
    return new ChartParserModel(handle, table, meta);
  }
}

/** Convenience: train a parser (see ChartParserModel.train). */
export function trainParser(trees: Tree[], options: ParserTrainOptions = {}): Promise<ChartParserModel> {
  return ChartParserModel.train(trees, options);
}
