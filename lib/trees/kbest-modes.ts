/**
 * k-best lists over bracketings instead of over whole trees. A parser's k best trees often
 * differ only in part-of-speech tags (on a Portuguese treebank about half of a 20-best list),
 * which gives a reranker little to choose between. From a larger pool of the parser's best
 * trees (best first) these modes keep k candidates:
 *
 * - `all`: the first k trees (plain k-best);
 * - `max`: one candidate per bracketing (the tree without its preterminal labels), the first
 *   of its tag variants: the bracketing scored by its best tagging (max over tags);
 * - `sum`: one candidate per bracketing with its tag variants in the pool summed
 *   (log-sum-exp of their log-probabilities), ordered by that sum: tags marginalised, as far
 *   as the pool holds the variants (the sum is a lower bound of the full marginal);
 * - `fixed`: only the trees whose tags are those of the pool's first tree (the 1-best tags).
 *
 * `all`, `max` and `fixed` are exact prefixes: the pool's order is the parser's order, so
 * the first occurrence of a bracketing is its best tagging, and the trees with the 1-best
 * tags come in the order a parser restricted to those tags would produce them. A pool too
 * small for k distinct candidates gives fewer.
 */
import { bracketText, type Tree } from './tree.js';

export const KBEST_TAG_MODES = ['all', 'max', 'sum', 'fixed'] as const;
export type KbestTagMode = (typeof KBEST_TAG_MODES)[number];

/**
 * The reranking pipeline's lists (`base.kbest`): tags summed. On the dev sets of ptb-sample,
 * GUM (the demo's data) and floresta-pt they gave a higher oracle than plain k-best and, for
 * most rerankers, a higher reranked F1 (docs/design/reranking-defaults.md, "k-best lists over bracketings, tags summed").
 * `parse --nbest` keeps plain k-best ('all'): there K best trees is what is asked for.
 */
export const PIPELINE_KBEST_MODE: KbestTagMode = 'sum';

export interface ScoredTree {
  tree: Tree;
  logprob: number;
}

/** The bracketing of a tree: its bracket form with every preterminal label replaced by `*`. */
export function bracketingKey(t: Tree): string {
  return bracketText(t, '*');
}

function tagKey(t: Tree): string {
  const out: string[] = [];
  const walk = (n: Tree): void => {
    if (n.word !== undefined) out.push(n.label);
    else for (const c of n.children) walk(c);
  };
  walk(t);
  return out.join(' ');
}

function logSumExp(values: readonly number[]): number {
  const m = Math.max(...values);
  if (!Number.isFinite(m)) return m;
  let s = 0;
  for (const v of values) s += Math.exp(v - m);
  return m + Math.log(s);
}

/**
 * Keeps at most k candidates of a pool (best first) by the mode above. Candidates are
 * returned as given (`sum` gives copies with the summed log-probability).
 *
 * @example
 * ```ts
 * const pool = (await parser.parseNbest([words], 100))[0].candidates;
 * const distinct = selectKbest(pool, 20, 'max'); // 20 different bracketings, best tagging each
 * ```
 */
export function selectKbest<T extends ScoredTree>(pool: readonly T[], k: number, mode: KbestTagMode): T[] {
  if (mode === 'all') return pool.slice(0, k);
  if (mode === 'fixed') {
    if (pool.length === 0) return [];
    const want = tagKey(pool[0].tree);
    const out: T[] = [];
    for (const c of pool) {
      if (out.length >= k) break;
      if (tagKey(c.tree) === want) out.push(c);
    }
    return out;
  }
  const groups = new Map<string, { first: T; logprobs: number[]; order: number }>();
  for (const c of pool) {
    const key = bracketingKey(c.tree);
    const g = groups.get(key);
    if (g) g.logprobs.push(c.logprob);
    else groups.set(key, { first: c, logprobs: [c.logprob], order: groups.size });
  }
  const list = [...groups.values()];
  if (mode === 'max') return list.slice(0, k).map((g) => g.first);
  return list
    .map((g) => ({ g, sum: logSumExp(g.logprobs) }))
    .sort((a, b) => b.sum - a.sum || a.g.order - b.g.order)
    .slice(0, k)
    .map(({ g, sum }) => ({ ...g.first, logprob: sum }));
}

/** Share of a list's candidates (after the first of each bracketing) that differ from an earlier one only in tags. */
export function tagOnlyVariantShare(list: readonly ScoredTree[]): { variants: number; candidates: number } {
  const seen = new Set<string>();
  let variants = 0;
  for (const c of list) {
    const key = bracketingKey(c.tree);
    if (seen.has(key)) variants++;
    else seen.add(key);
  }
  return { variants, candidates: list.length };
}
