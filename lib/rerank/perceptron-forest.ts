/**
 * The scoring function of a dual tree-kernel perceptron for any weighted forest:
 * G(x) = sum_s coef_s K(T_s, x), evaluated per support tree or, compressed, through the
 * DAG of shared subtrees (Collins & Duffy 2002b, section 5). Both give the same scores (to rounding);
 * the compressed form does the work once per distinct subtree.
 */
import { PERCEPTRON_LAMBDA } from '../options/rerank.js';
import { cancelFlagFor, native, resolveThreads } from '../native.js';
import type { Tree } from '../trees/tree.js';
import { encodeTrees } from './perceptron-data.js';
import type { NativeCandidateSpec } from './perceptron-native.js';

export interface ForestScores {
  scores: Float64Array;
  /** Seconds to build the scorer (the DAG when compressed). */
  buildSeconds: number;
  scoreSeconds: number;
  /** Compressed only: nodes of the support trees with coef != 0, and of their DAG. */
  forestNodes: number;
  dagNodes: number;
}

interface ForestAddon {
  perceptronForestScores(
    support: NativeCandidateSpec,
    coef: Float64Array,
    query: NativeCandidateSpec,
    compressed: boolean,
    threads: number,
    cancel: unknown,
  ): Promise<ForestScores>;
}

function spec(trees: readonly Tree[], lambda: number): NativeCandidateSpec {
  return {
    kernel: 'tree',
    sentencePtr: Float64Array.from({ length: trees.length + 1 }, (_, i) => i),
    logprobs: new Float64Array(trees.length),
    trees: encodeTrees(trees, lambda),
  };
}

export async function dualTreeScores(
  support: readonly Tree[],
  coef: ArrayLike<number>,
  query: readonly Tree[],
  options: { lambda?: number; compressed?: boolean; threads?: number; signal?: AbortSignal } = {},
): Promise<ForestScores> {
  const lambda = options.lambda ?? PERCEPTRON_LAMBDA.tree;
  const { flag, dispose } = cancelFlagFor(options.signal);
  try {
    return await native<ForestAddon>().perceptronForestScores(
      spec(support, lambda),
      Float64Array.from(coef),
      spec(query, lambda),
      options.compressed ?? true,
      resolveThreads(options.threads),
      flag,
    );
  } finally {
    dispose();
  }
}
