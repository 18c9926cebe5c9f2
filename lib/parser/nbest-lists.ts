/**
 * The chart parser's k-best lists of pipeline sentences (its side of NbestProducer,
 * lib/training/model-contract.ts): parsed in batches, so that progress and cancellation stay
 * responsive, a pool of trees per sentence, of which a k-best mode (lib/trees/kbest-modes.ts)
 * keeps k.
 */
import { MAX_NBEST, type NbestSentence } from '../io/nbest.js';
import type { PipelineSentence, StepContext } from '../training/model-contract.js';
import {
  bracketingKey,
  KBEST_TAG_MODES,
  selectKbest,
  type KbestTagMode,
  type ScoredTree,
} from '../trees/kbest-modes.js';
import { formatTree, type Tree } from '../trees/tree.js';

/** How the k-best lists are drawn from the parser (the pipeline's `base.kbest` and `base.pool`). */
export interface KbestListOptions {
  /** Which k trees of the pool are kept (default 'all': the k best). */
  kbest?: KbestTagMode;
  /**
   * Trees parsed per sentence (default k for 'all', else 5 x k, at most MAX_NBEST). When
   * given, `nbestVariants` also gives the lists of every mode.
   */
  pool?: number;
  /**
   * Also parse each sentence's MBR tree and mark it in every list with the reranking feature
   * MBR_TREE_FEATURE; a list without it gets it appended (default false).
   */
  mbr?: boolean;
}

/**
 * The feature that marks the parser's MBR tree in a list (`KbestListOptions.mbr`): the
 * rerankers learn how far to trust it. MBR decoding, not the most probable tree, is the CRF
 * parser's 1-best, and it is better on dev (docs/design/parser-defaults.md).
 */
export const MBR_TREE_FEATURE = 'MBR tree';

/** What the lists need of a parser: its k-best parses (ChartParserModel.parseNbest). */
export interface KbestParser {
  parseNbest(
    sentences: string[][],
    k: number,
    options: { threads?: number; signal?: AbortSignal; decode?: 'viterbi' | 'mbr' },
  ): Promise<{ candidates: { tree: Tree; logprob: number }[] }[]>;
}

/** Sentences per native call, so progress and cancellation stay responsive. */
const BATCH = 64;

function poolSize(k: number, options: KbestListOptions): number {
  return options.pool ?? ((options.kbest ?? 'all') === 'all' ? k : Math.min(MAX_NBEST, 5 * k));
}

/**
 * A list's candidates as n-best entries; with `mbr`, the candidate equal to the MBR tree (its
 * bracketing for `max` and `sum`, whose candidates stand for their bracketing) carries
 * MBR_TREE_FEATURE, or the MBR tree is appended with its own log-probability.
 */
export function listCandidates(
  list: readonly ScoredTree[],
  mode: KbestTagMode,
  mbr?: ScoredTree,
): { tree: string; logprob: number; features?: Record<string, number> }[] {
  const out: { tree: string; logprob: number; features?: Record<string, number> }[] = list.map((c) => ({
    tree: formatTree(c.tree),
    logprob: c.logprob,
  }));
  if (mbr === undefined) return out;
  const key = mode === 'max' || mode === 'sum' ? bracketingKey : formatTree;
  const want = key(mbr.tree);
  const at = list.findIndex((c) => key(c.tree) === want);
  const features = { [MBR_TREE_FEATURE]: 1 };
  if (at >= 0) out[at].features = features;
  else out.push({ tree: formatTree(mbr.tree), logprob: mbr.logprob, features });
  return out;
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
  const pool = Math.max(k, poolSize(k, options));
  const out: Record<string, NbestSentence[]> = Object.fromEntries(modes.map((m) => [m, []]));
  for (let b = 0; b < sentences.length; b += BATCH) {
    const batch = sentences.slice(b, b + BATCH);
    const parsed = await parser.parseNbest(
      batch.map((s) => s.tokens),
      pool,
      { threads: ctx.threads, signal: ctx.signal },
    );
    const mbr = options.mbr
      ? await parser.parseNbest(
          batch.map((s) => s.tokens),
          1,
          { threads: ctx.threads, signal: ctx.signal, decode: 'mbr' },
        )
      : undefined;
    parsed.forEach((p, i) => {
      for (const m of modes) {
        out[m].push({
          id: batch[i].id,
          tokens: batch[i].tokens,
          candidates: listCandidates(selectKbest(p.candidates, k, m), m, mbr?.[i].candidates[0]),
          line: 0,
        });
      }
    });
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
