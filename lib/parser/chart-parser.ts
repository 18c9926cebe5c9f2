/**
 * The chart parser's TypeScript API: train a PCFG (and optionally the CRF-CFG) from
 * treebank trees, parse tokenized sentences to plain PTB trees (1-best or exact k-best,
 * each with its log-probability), save and load model files.
 */
import { InputError, ModelFileError } from '../errors.js';
import { checkNbestK } from '../io/nbest.js';
import { withRun, type TrainRun } from '../train-progress.js';
import { checkOptions } from '../options/field.js';
import { PARSER_DEFAULTS, parserTrainFields } from '../options/parser.js';

/** The CRF options checked against their declarations (beam may be Infinity: no prefilter). */
const CRF_CHECKED = {
  batch: parserTrainFields.batch,
  eta0: parserTrainFields.eta0,
  sigma2: parserTrainFields.sigma2,
  epochs: parserTrainFields.epochs,
  featureCacheMB: parserTrainFields.featureCacheMB,
};
import { loadModel, saveModel } from '../io/model-file.js';
import { native, withCancelFlag, type CancelFlagHandle } from '../native.js';
import { formatTree, preterminals, type Tree } from '../trees/tree.js';
import type { MarkovOrder } from './binarize.js';
import { prepareTree, restoreTree } from './prepare.js';
import { readClustersSync, type WordClusters } from './clusters.js';
import { buildSymbolTable, decodeTree, encodeTree, symbolTableFromLabels, type SymbolTable } from './symbols.js';

export const CHART_MODEL_KIND = 'chart-parser';
const CHART_MODEL_VERSION = 1;

interface NativeParseResult {
  nodes: Int32Array;
  candidateOffsets: Int32Array;
  sentenceOffsets: Int32Array;
  scores: Float64Array;
  fallback: Uint8Array;
}

interface NativeChartParser {
  startCrf(options: Record<string, number>): { weights: number; sparseFeatures: number };
  crfSteps(steps: number, flag: CancelFlagHandle, lbfgs: boolean): Promise<{ objective: number; keptFraction: number; steps: number; cacheBytes: number; cachedSentences: number }>;
  parse(tokens: string, offsets: Int32Array, k: number, threads: number, flag: CancelFlagHandle, forcePcfg: boolean, beam: number, maxLength: number): Promise<NativeParseResult>;
  serialize(): Uint8Array;
  info(): ChartParserInfo;
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
      extras: { relax: number; relaxWeight: number; clusterWords?: string; clusterIds?: string },
    ): NativeChartParser;
    deserialize(bytes: Uint8Array): NativeChartParser;
  };
}

export interface ChartParserInfo {
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
}

export interface ParserTrainProgress {
  epoch: number;
  epochs: number;
  step: number;
  stepsPerEpoch: number;
  /** Mean negative conditional log-likelihood per sentence over the last steps. */
  objective: number;
  /** Fraction of chart entries kept by the prefilter. */
  keptFraction: number;
  /** Bytes held by the feature-id cache, and the training sentences it covers. */
  featureCacheBytes: number;
  cachedSentences: number;
}

export interface ParserTrainOptions {
  /** Markov order of the binarization (default 2). */
  markov?: MarkovOrder;
  /** Parent annotation (default true). */
  parent?: boolean;
  /** VP head-tag annotation (default true). */
  vpHeadTag?: boolean;
  /** Words seen at most this often also get signature tags (default 1). */
  rareThreshold?: number;
  /**
   * Word clusters: a `word<TAB>cluster` file or the map itself. CRF lexicon features tag x
   * cluster, tag x 4- and 6-bit prefixes (bit-string clusters), base(tag) x cluster; rare and
   * unknown words also take the tags seen with their cluster. Stored in the model.
   */
  clusters?: string | WordClusters;
  /**
   * Grammar relaxation (seed 004): add X^Q -> alpha for every seen X^P -> alpha and every
   * other parent annotation Q of X; the PCFG interpolates each rule of X^Q with the
   * parent-pooled estimate, weight `relaxWeight` (default 0.01). Default false.
   */
  relax?: boolean;
  relaxWeight?: number;
  /**
   * CRF: verb-lexicalized rule features, a binary rule with a verb-tag (VB*) child x that
   * verb's lowercased word, for pairs seen in a gold tree (default true; a small effect,
   * see the README's extras benchmark).
   */
  verbFeatures?: boolean;
  /** Train the CRF-CFG on top of the PCFG (default false). */
  crf?: boolean;
  /** CRF optimizer: SGD as in SPEC (default), or full-batch L-BFGS (one iteration per epoch). */
  optimizer?: 'sgd' | 'lbfgs';
  /** CRF passes (SGD) or L-BFGS iterations (default 10). */
  epochs?: number;
  batch?: number;
  eta0?: number;
  sigma2?: number;
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
  seed?: number;
  signal?: AbortSignal;
  onProgress?: (p: ParserTrainProgress) => void;
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
  /** Label of the wrapper node of output trees (default 'ROOT'; '' gives `( (S ...))`). */
  rootLabel?: string;
  /**
   * Sentences of more words get the flat fallback without a chart (`fallback: true`): parsing
   * time grows with the cube of the length, chart memory with its square. Default 0: no limit.
   */
  maxLength?: number;
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
}

interface ChartMeta {
  labels: string[];
  isTag: number[];
  markov: MarkovOrder;
  parent: boolean;
  vpHeadTag: boolean;
  crf: boolean;
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
export class ChartParserModel {
  private constructor(
    private readonly handle: NativeChartParser,
    private readonly table: SymbolTable,
    private readonly meta: ChartMeta,
  ) {}

  get isCrf(): boolean {
    return this.meta.crf;
  }

  get markov(): MarkovOrder {
    return this.meta.markov;
  }

  info(): ChartParserInfo {
    return this.handle.info();
  }

  /** Trains on treebank trees (function tags, empties and the root wrapper are handled here). */
  /** Trains a parser; `run` gives cancellation and the common progress event (lib/train-progress.ts). */
  static async train(trees: Tree[], options: ParserTrainOptions = {}, run?: TrainRun): Promise<ChartParserModel> {
    options = withRun(options, run, (p: ParserTrainProgress) => ({
      phase: 'step', done: (p.epoch - 1) * p.stepsPerEpoch + p.step, total: p.epochs * p.stepsPerEpoch, loss: p.objective,
    }));
    const markov = options.markov ?? PARSER_DEFAULTS.markov;
    if (markov !== 1 && markov !== 2) throw new InputError('<options>', undefined, 'markov order must be 1 or 2');
    const grammarOptions = { markov, parent: options.parent ?? true, vpHeadTag: options.vpHeadTag ?? true };
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
      if (clusters.words.length !== clusters.clusters.length) throw new InputError('<options>', undefined, 'clusters: words and clusters differ in number');
      for (const w of [...clusters.words, ...clusters.clusters]) {
        if (w === '' || w.includes('\n')) throw new InputError('<options>', undefined, `clusters: bad entry ${JSON.stringify(w)}`);
      }
    }
    const relaxWeight = options.relaxWeight ?? 0.01;
    if (!(relaxWeight > 0 && relaxWeight < 1)) throw new InputError('<options>', undefined, 'relaxWeight must be in (0, 1)');
    const handle = addon.ChartParser.buildPcfg(
      { isTag: table.isTag, base: table.base, numBases: table.numBases, relaxGroup: table.relaxGroup, isVerb: table.isVerb },
      text,
      offsets,
      Int32Array.from(pairs),
      treeOffsets,
      options.rareThreshold ?? PARSER_DEFAULTS.rareThreshold,
      {
        relax: options.relax ? 1 : 0,
        relaxWeight,
        ...(clusters ? { clusterWords: clusters.words.join('\n'), clusterIds: clusters.clusters.join('\n') } : {}),
      },
    );
    const meta: ChartMeta = { labels: table.labels, isTag: Array.from(table.isTag), ...grammarOptions, crf: false };
    if (options.crf) {
      const batch = options.batch ?? PARSER_DEFAULTS.batch;
      // NaN or non-positive step sizes and priors would train NaN weights without a word.
      checkOptions(CRF_CHECKED, options, (message) => new InputError('<options>', undefined, message));
      if (options.beam !== undefined && !(options.beam > 0)) throw new InputError('<options>', undefined, 'beam must be a positive number');
      handle.startCrf({
        batch,
        eta0: options.eta0 ?? PARSER_DEFAULTS.eta0,
        sigma2: options.sigma2 ?? PARSER_DEFAULTS.sigma2,
        beam: options.beam ?? PARSER_DEFAULTS.beam,
        threads: options.threads ?? PARSER_DEFAULTS.threads,
        seed: options.seed ?? 1,
        priorAtPcfg: options.priorAtPcfg === false ? 0 : 1,
        verbFeatures: options.verbFeatures === false ? 0 : 1,
        featureCacheMB: options.featureCacheMB ?? PARSER_DEFAULTS.featureCacheMB,
      });
      meta.crf = true;
      const epochs = options.epochs ?? PARSER_DEFAULTS.epochs;
      const lbfgs = options.optimizer === 'lbfgs';
      if (options.optimizer !== undefined && options.optimizer !== 'sgd' && !lbfgs) throw new InputError('<options>', undefined, "optimizer must be 'sgd' or 'lbfgs'");
      const stepsPerEpoch = lbfgs ? 1 : Math.max(1, Math.ceil(prepared.length / batch));
      const chunk = Math.max(1, Math.floor(stepsPerEpoch / 20));
      for (let epoch = 1; epoch <= epochs; epoch++) {
        for (let step = 0; step < stepsPerEpoch; ) {
          const n = Math.min(chunk, stepsPerEpoch - step);
          const r = await withCancelFlag(options.signal, (flag) => handle.crfSteps(n, flag, lbfgs));
          step += n;
          options.onProgress?.({
            epoch, epochs, step, stepsPerEpoch, objective: r.objective, keptFraction: r.keptFraction,
            featureCacheBytes: r.cacheBytes, cachedSentences: r.cachedSentences,
          });
        }
      }
    }
    return new ChartParserModel(handle, table, meta);
  }

  /** 1-best parses of tokenized sentences, in order, with exactly their words. */
  async parse(sentences: string[][], options: ParseOptions = {}): Promise<ParsedSentence[]> {
    const nbest = await this.parseNbest(sentences, 1, options);
    return nbest.map((s) => ({ tree: s.candidates[0].tree, logprob: s.candidates[0].logprob, fallback: s.fallback }));
  }

  /**
   * The k best parses of each sentence, best first (exact k-best of the binarized,
   * annotated grammar; distinct derivations that restore to the same plain tree are
   * merged, keeping the best, so a sentence may get fewer than k).
   */
  async parseNbest(sentences: string[][], k: number, options: ParseOptions = {}): Promise<ParsedNbest[]> {
    checkNbestK(k);
    const maxLength = options.maxLength ?? 0;
    if (!Number.isInteger(maxLength) || maxLength < 0) throw new InputError('<options>', undefined, 'maxLength must be a non-negative integer');
    if (sentences.length === 0) return [];
    const { text, offsets } = joinTokens(sentences);
    const r = await withCancelFlag(options.signal, (flag) =>
      this.handle.parse(text, offsets, k, options.threads ?? 0, flag, options.pcfg ?? false, options.beam ?? Number.POSITIVE_INFINITY, maxLength),
    );
    const rootLabel = options.rootLabel ?? 'ROOT';
    return sentences.map((words, s) => {
      const seen = new Set<string>();
      const candidates: { tree: Tree; logprob: number }[] = [];
      for (let c = r.sentenceOffsets[s]; c < r.sentenceOffsets[s + 1]; c++) {
        const t = restoreTree(decodeTree(r.nodes, r.candidateOffsets[c], r.candidateOffsets[c + 1], words, this.table), rootLabel);
        const key = formatTree(t);
        if (seen.has(key)) continue;
        seen.add(key);
        candidates.push({ tree: t, logprob: r.scores[c] });
      }
      return { candidates, fallback: r.fallback[s] === 1 };
    });
  }

  toBytes(): Uint8Array {
    return this.handle.serialize();
  }

  save(file: string): void {
    saveModel(file, { kind: CHART_MODEL_KIND, kindVersion: CHART_MODEL_VERSION, meta: this.meta, payload: this.handle.serialize() });
  }

  static load(file: string): ChartParserModel {
    const m = loadModel<ChartMeta>(file, CHART_MODEL_KIND);
    if (m.kindVersion > CHART_MODEL_VERSION) throw new ModelFileError(file, `chart parser model version ${m.kindVersion} is newer than supported`);
    const meta = m.meta;
    if (!meta || !Array.isArray(meta.labels) || !Array.isArray(meta.isTag) || meta.labels.length !== meta.isTag.length) {
      throw new ModelFileError(file, 'chart parser model metadata is malformed');
    }
    let handle: NativeChartParser;
    try {
      handle = native<ChartAddon>().ChartParser.deserialize(m.payload);
    } catch (err) {
      throw new ModelFileError(file, (err as Error).message);
    }
    if (handle.info().symbols !== meta.labels.length) throw new ModelFileError(file, 'chart parser model metadata does not match its payload');
    return new ChartParserModel(handle, symbolTableFromLabels(meta.labels, meta.isTag.map((x) => x === 1)), meta);
  }
}

/** Convenience: train a parser (see ChartParserModel.train). */
export function trainParser(trees: Tree[], options: ParserTrainOptions = {}): Promise<ChartParserModel> {
  return ChartParserModel.train(trees, options);
}
