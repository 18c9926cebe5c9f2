/**
 * The chart parser's k-best lists of pipeline sentences (its side of NbestProducer,
 * lib/training/model-contract.ts): parsed in batches, so that progress and cancellation stay
 * responsive, a pool of trees per sentence, of which a k-best mode (lib/trees/kbest-modes.ts)
 * keeps k.
 */
import { optionError } from '../errors.js';
import { kbestPoolSize, type NbestCandidate, type NbestSentence } from '../io/nbest.js';
import type { PipelineSentence, StepContext } from '../training/model-contract.js';
import {
  bracketingKey,
  KBEST_TAG_MODES,
  selectKbest,
  type KbestTagMode,
  type ScoredTree,
} from '../trees/kbest-modes.js';
import { formatTree, type Tree, type TreeModel } from '../trees/tree.js';
import { treeCounts } from '../eval/score.js';
import { expectedBracketLoss, nodePosteriors, posteriorsByKey, type BracketPosterior } from './bracket-posteriors.js';

/** How the k-best lists are drawn from the parser (the pipeline's `base.kbest` and `base.pool`). */
export interface KbestListOptions {
  /** Which k trees of the pool are kept (default 'all': the k best). */
  kbest?: KbestTagMode;
  /**
   * Trees parsed per sentence (default k for 'all', else KBEST_POOL_FACTOR x k, at most MAX_NBEST). When
   * given, `nbestVariants` also gives the lists of every mode.
   */
  pool?: number;
  /**
   * Also parse each sentence's MBR tree: every candidate gets the reranking features of its
   * distance to it (MBR_FEATURES), and a list without it gets it appended (default false).
   */
  mbr?: boolean;
  /**
   * With `mbr`, every candidate also gets POSTERIOR_FEATURES: how likely its brackets are under
   * the posteriors the MBR parse reports (default true).
   */
  posteriors?: boolean;
  /** Parses the MBR tree with `mbr` (default the lists' parser): e.g. an ensemble's. */
  mbrParser?: KbestParser;
  /**
   * Further parsers (an ensemble's other members) whose lists join the first parser's: each
   * list is the union of the members' lists and the `mbr` tree, and every candidate carries
   * MEMBER_FEATURES.
   */
  members?: KbestParser[];
  /**
   * A generative model of the treebank's trees (lib/rerank/tree-model.ts; the lists need its
   * log-probability of a tree): every candidate gets its TREE_MODEL_FEATURES.
   */
  treeModel?: TreeModel;
  /**
   * A head-lexicalized generative model of the treebank's trees (lib/rerank/head-model.ts):
   * every candidate gets its HEAD_MODEL_FEATURES.
   */
  headModel?: TreeModel;
  /**
   * The latent PCFGs the parser mixes into its MBR decoding (KbestParser.mixTreeLogProbs):
   * every candidate gets its LATENT_MODEL_FEATURES (default false).
   */
  latentModel?: boolean;
}

/**
 * The features of a union list (`KbestListOptions.members`): for each member m (1 = the
 * first parser), `gap` counts how far the candidate's log-probability under m lies below m's
 * best, in halves (threshold features up to MBR_COUNT_CAP), and `absent` marks a candidate
 * outside m's pool of trees.
 */
export const MEMBER_FEATURES = { gap: 'member gap', absent: 'member absent' } as const;

/**
 * The features that tell the rerankers how far a candidate is from the parser's MBR tree
 * (`KbestListOptions.mbr`), so that they learn how far to trust it: MBR decoding, not the most
 * probable tree, is the CRF parser's 1-best, and it is better on dev
 * (docs/design/parser-defaults.md). `tree` marks the candidate with its bracketing; `missed`
 * and `extra` count the MBR tree's EVALB brackets the candidate lacks and those it adds, as
 * threshold features (a count c gives name, name|>=2, .., name|>=c) up to MBR_COUNT_CAP.
 */
export const MBR_FEATURES = { tree: 'MBR tree', missed: 'MBR missed', extra: 'MBR extra' } as const;
export const MBR_COUNT_CAP = 8;

/** The MBR features of a candidate (none for the MBR tree's labelled brackets exactly). */
function mbrFeatures(candidate: Tree, mbr: Tree, same: boolean): Record<string, number> {
  const c = treeCounts(mbr, candidate);
  const out: Record<string, number> = {};
  if (same) out[MBR_FEATURES.tree] = 1;
  const missed = Math.min(MBR_COUNT_CAP, c.gold - c.matched);
  const extra = Math.min(MBR_COUNT_CAP, c.test - c.matched);
  if (missed > 0) out[MBR_FEATURES.missed] = missed;
  if (extra > 0) out[MBR_FEATURES.extra] = extra;
  return out;
}

/**
 * The features that tell the rerankers how likely a candidate's brackets are under the CRF's
 * posteriors (the MBR parse's BracketPosterior list): `low` counts its brackets whose expected
 * count is below each threshold, `loss` its expected missed plus invented brackets above the
 * list's least, in halves; threshold features (as MBR_FEATURES) up to MBR_COUNT_CAP.
 */
export const POSTERIOR_FEATURES = { low: 'posterior <', loss: 'expected loss' } as const;
const POSTERIOR_THRESHOLDS = [0.5, 0.1, 0.01] as const;

/** The POSTERIOR_FEATURES of each candidate, added to its `features`. */
function addPosteriorFeatures(
  list: readonly Tree[],
  brackets: readonly BracketPosterior[],
  out: NbestCandidate[],
): void {
  const posteriors = posteriorsByKey(brackets);
  const nodes = list.map((t) => nodePosteriors(t, posteriors));
  const loss = nodes.map(expectedBracketLoss);
  const least = Math.min(...loss);
  nodes.forEach((ps, i) => {
    const f: Record<string, number> = { ...out[i].features };
    for (const threshold of POSTERIOR_THRESHOLDS) {
      const low = Math.min(MBR_COUNT_CAP, ps.filter((p) => p < threshold).length);
      if (low > 0) f[`${POSTERIOR_FEATURES.low} ${threshold}`] = low;
    }
    const halves = Math.min(MBR_COUNT_CAP, Math.round(2 * (loss[i] - least)));
    if (halves > 0) f[POSTERIOR_FEATURES.loss] = halves;
    if (Object.keys(f).length > 0) out[i].features = f;
  });
}

/**
 * The features that tell the rerankers how probable a candidate is under a generative model of
 * the treebank (`KbestListOptions.treeModel`, tree-model.ts): `best` marks the list's most
 * probable candidates, and `gap` how far below them a candidate's log-probability lies, one
 * feature per step of GENERATIVE_MODEL_GAPS it reaches (nats).
 */
export const TREE_MODEL_FEATURES = { best: 'tree model best', gap: 'tree model gap >=' } as const;
/** TREE_MODEL_FEATURES's counterparts under the head-lexicalized model (`KbestListOptions.headModel`, head-model.ts). */
export const HEAD_MODEL_FEATURES = { best: 'head model best', gap: 'head model gap >=' } as const;
/** TREE_MODEL_FEATURES's counterparts under the latent PCFGs of the parser's MBR decoding (`KbestListOptions.latentModel`). */
export const LATENT_MODEL_FEATURES = { best: 'latent PCFG best', gap: 'latent PCFG gap >=' } as const;
const GENERATIVE_MODEL_GAPS = [0.5, 1, 2, 4, 8, 16] as const;

/** The features (TREE_MODEL_FEATURES or HEAD_MODEL_FEATURES) of `model` for each candidate, added to its `features`. */
function addTreeModelFeatures(
  list: readonly Tree[],
  model: TreeModel,
  names: { readonly best: string; readonly gap: string },
  out: NbestCandidate[],
): void {
  addGapFeatures(
    list.map((t) => model.logprob(t)),
    names,
    out,
  );
}

/** The `best` and `gap` features of each candidate's log-probability `logprobs[i]` under one model. */
function addGapFeatures(
  logprobs: ArrayLike<number>,
  names: { readonly best: string; readonly gap: string },
  out: NbestCandidate[],
): void {
  const values = Array.from(logprobs);
  const best = Math.max(...values);
  values.forEach((lp, i) => {
    const f: Record<string, number> = { ...out[i].features };
    const gap = best - lp;
    if (gap === 0) f[names.best] = 1;
    for (const step of GENERATIVE_MODEL_GAPS) if (gap >= step) f[`${names.gap} ${step}`] = 1;
    if (Object.keys(f).length > 0) out[i].features = f;
  });
}

/** Every listed candidate's LATENT_MODEL_FEATURES, its trees scored by the parser's latent PCFGs in one call. */
async function addLatentFeatures(
  parser: KbestParser,
  listed: readonly { candidates: NbestCandidate[]; trees: Tree[] }[],
  threads: number | undefined,
): Promise<void> {
  const none = 'latentModel: the parser has no latent PCFGs (a PCFG, or a CRF trained with pcfgWeight 0)';
  if (parser.mixTreeLogProbs === undefined) throw optionError(none);
  const logprobs = await parser.mixTreeLogProbs(
    listed.flatMap((l) => l.trees),
    { threads },
  );
  if (logprobs.length === 0) throw optionError(none);
  let at = 0;
  for (const { candidates, trees } of listed) {
    addGapFeatures(logprobs.subarray(at, at + trees.length), LATENT_MODEL_FEATURES, candidates);
    at += trees.length;
  }
}

/** What the lists need of a parser: its k-best parses (ChartParserModel.parseNbest). */
export interface KbestParser {
  parseNbest(
    sentences: string[][],
    k: number,
    options: { threads?: number; signal?: AbortSignal; decode?: 'viterbi' | 'mbr'; mbrTree?: boolean },
  ): Promise<{ candidates: ScoredTree[]; brackets?: BracketPosterior[]; mbrTree?: ScoredTree }[]>;
  /** Each tree's log-probability under the latent PCFGs of the parser's MBR decoding (ChartParserModel.mixTreeLogProbs). */
  mixTreeLogProbs?(trees: readonly Tree[], options: { threads?: number }): Promise<Float64Array>;
}

/** Sentences per native call, so progress and cancellation stay responsive. */
const BATCH = 64;

function poolSize(k: number, options: KbestListOptions): number {
  return kbestPoolSize(k, options.kbest, options.pool);
}

/** What makes two candidates the same: their bracketing for `max` and `sum`, whose candidates stand for it; else the tree. */
function candidateKey(mode: KbestTagMode): (tree: Tree) => string {
  return mode === 'max' || mode === 'sum' ? bracketingKey : formatTree;
}

/**
 * A list's candidates as n-best entries; with `mbr`, each carries its MBR_FEATURES, and the
 * candidate equal to the MBR tree (its bracketing for `max` and `sum`, whose candidates stand
 * for their bracketing) is marked, or the MBR tree is appended with its own log-probability.
 */
function listCandidates(list: readonly ScoredTree[], mode: KbestTagMode, mbr?: ScoredTree): NbestCandidate[] {
  const out: NbestCandidate[] = list.map((c) => ({ tree: formatTree(c.tree), logprob: c.logprob }));
  if (mbr === undefined) return out;
  const key = candidateKey(mode);
  const want = key(mbr.tree);
  const at = list.findIndex((c) => key(c.tree) === want);
  list.forEach((c, i) => {
    const features = mbrFeatures(c.tree, mbr.tree, i === at);
    if (Object.keys(features).length > 0) out[i].features = features;
  });
  if (at < 0)
    out.push({ tree: formatTree(mbr.tree), logprob: mbr.logprob, features: mbrFeatures(mbr.tree, mbr.tree, true) });
  return out;
}

/**
 * A list's candidates (listCandidates), with the POSTERIOR_FEATURES of `mbr`'s brackets when it
 * has them, and the features of the generative models `options` gives.
 */
function candidatesOf(
  list: readonly ScoredTree[],
  mode: KbestTagMode,
  mbr: { tree: ScoredTree; brackets?: BracketPosterior[] } | undefined,
  posteriors: boolean,
  models: Pick<KbestListOptions, 'treeModel' | 'headModel'>,
): { candidates: NbestCandidate[]; trees: Tree[] } {
  const out = listCandidates(list, mode, mbr?.tree);
  const trees = list.map((c) => c.tree);
  if (mbr !== undefined && out.length > list.length) trees.push(mbr.tree.tree);
  if (posteriors && mbr?.brackets) addPosteriorFeatures(trees, mbr.brackets, out);
  if (models.treeModel !== undefined) addTreeModelFeatures(trees, models.treeModel, TREE_MODEL_FEATURES, out);
  if (models.headModel !== undefined) addTreeModelFeatures(trees, models.headModel, HEAD_MODEL_FEATURES, out);
  return { candidates: out, trees };
}

/**
 * The union of the members' k-best lists (the first member's first, then each further
 * member's candidates not yet in it), each candidate scored by the mean of its members'
 * log-probabilities (a member whose pool lacks it counts its pool's least, less 1), with
 * its MEMBER_FEATURES. Each pool is selected by `mode` once: its first k are the member's
 * list (selectKbest keeps a prefix), all of it the member's scores. An `mbr` tree (the
 * ensemble's) that no member's list holds is appended and scored the same way, so that its
 * log-probability is on the others' scale and its features say which pools lack it.
 */
function unionList(
  pools: readonly (readonly ScoredTree[])[],
  k: number,
  mode: KbestTagMode,
  mbr?: ScoredTree,
): { list: ScoredTree[]; features: Record<string, number>[] } {
  const key = candidateKey(mode);
  const selected = pools.map((pool) => selectKbest(pool, pool.length, mode).map((c) => ({ c, at: key(c.tree) })));
  const list: { c: ScoredTree; at: string }[] = [];
  const seen = new Set<string>();
  const extra = mbr === undefined ? [] : [{ c: mbr, at: key(mbr.tree) }];
  for (const entries of [...selected.map((member) => member.slice(0, k)), extra])
    for (const entry of entries) {
      if (seen.has(entry.at)) continue;
      seen.add(entry.at);
      list.push(entry);
    }
  const features = list.map(() => ({}) as Record<string, number>);
  const logprobs = list.map(() => 0);
  selected.forEach((member, m) => {
    const byKey = new Map<string, number>();
    for (const { c, at } of member) if (!byKey.has(at)) byKey.set(at, c.logprob);
    const values = [...byKey.values()];
    const best = Math.max(...values);
    const floor = Math.min(...values) - 1;
    list.forEach(({ at }, i) => {
      const lp = byKey.get(at);
      if (lp === undefined) features[i][`${MEMBER_FEATURES.absent} ${m + 1}`] = 1;
      else {
        const halves = Math.min(MBR_COUNT_CAP, Math.round(2 * (best - lp)));
        if (halves > 0) features[i][`${MEMBER_FEATURES.gap} ${m + 1}`] = halves;
      }
      logprobs[i] += (lp ?? floor) / pools.length;
    });
  });
  return { list: list.map(({ c }, i) => ({ ...c, logprob: logprobs[i] })), features };
}

/** Parses a pool of trees per sentence and keeps k of them by each mode asked for. */
async function listsByMode(
  parser: KbestParser,
  sentences: PipelineSentence[],
  k: number,
  modes: readonly KbestTagMode[],
  options: KbestListOptions,
  ctx: StepContext,
): Promise<Record<string, NbestSentence[]>> {
  const pool = poolSize(k, options);
  const out: Record<string, NbestSentence[]> = Object.fromEntries(modes.map((m) => [m, []]));
  for (let b = 0; b < sentences.length; b += BATCH) {
    const batch = sentences.slice(b, b + BATCH);
    const tokens = batch.map((s) => s.tokens);
    const run = { threads: ctx.threads, signal: ctx.signal };
    // The list's own chart gives its MBR tree; another parser's (an ensemble's) takes its own parse.
    const ownMbr = options.mbr === true && options.mbrParser === undefined;
    const parsed = await parser.parseNbest(tokens, pool, { ...run, mbrTree: ownMbr });
    const memberPools: ScoredTree[][][] = [];
    for (const member of options.members ?? [])
      memberPools.push((await member.parseNbest(tokens, pool, run)).map((p) => p.candidates));
    const other = options.mbr ? options.mbrParser : undefined;
    const mbr = ownMbr
      ? parsed.map((p) => (p.mbrTree ? { tree: p.mbrTree, brackets: p.brackets } : undefined))
      : (await other?.parseNbest(tokens, 1, { ...run, decode: 'mbr' }))?.map((o) => ({
          tree: o.candidates[0],
          brackets: o.brackets,
        }));
    const listed: { candidates: NbestCandidate[]; trees: Tree[] }[] = [];
    parsed.forEach((p, i) => {
      for (const m of modes) {
        const union =
          memberPools.length > 0
            ? unionList([p.candidates, ...memberPools.map((pools) => pools[i])], k, m, mbr?.[i]?.tree)
            : undefined;
        const list = union?.list ?? selectKbest(p.candidates, k, m);
        const one = candidatesOf(list, m, mbr?.[i], options.posteriors ?? true, options);
        const { candidates } = one;
        union?.features.forEach((f, c) => (candidates[c].features = { ...candidates[c].features, ...f }));
        out[m].push({ id: batch[i].id, tokens: batch[i].tokens, candidates, line: 0 });
        listed.push(one);
      }
    });
    if (options.latentModel === true) await addLatentFeatures(parser, listed, ctx.threads);
    ctx.progress?.(`${k}-best parses`, Math.min(sentences.length, b + BATCH), sentences.length);
  }
  return out;
}

/** The k-best list of each sentence by `options.kbest`. */
export async function parserNbest(
  parser: KbestParser,
  sentences: PipelineSentence[],
  k: number,
  ctx: StepContext,
  options: KbestListOptions,
): Promise<NbestSentence[]> {
  const mode = options.kbest ?? 'all';
  return (await listsByMode(parser, sentences, k, [mode], options, ctx))[mode];
}

/** The lists by `options.kbest`, and with a `pool` larger than k those of every mode from the same pool. */
export async function parserNbestVariants(
  parser: KbestParser,
  sentences: PipelineSentence[],
  k: number,
  ctx: StepContext,
  options: KbestListOptions,
): Promise<{ main: NbestSentence[]; variants: Record<string, NbestSentence[]> }> {
  if (options.pool === undefined || options.pool <= 0 || poolSize(k, options) <= k)
    return { main: await parserNbest(parser, sentences, k, ctx, options), variants: {} };
  const all = await listsByMode(parser, sentences, k, KBEST_TAG_MODES, options, ctx);
  return { main: all[options.kbest ?? 'all'], variants: all };
}
