/**
 * The rerankers' training options (the boost / logloss / loglinear trainers and the kernel
 * perceptron; `structrank train-reranker` and `rerank`; the pipeline's reranker entries):
 * each hyper-parameter once, with its range, default and description.
 */
import { z } from 'zod';
import { defaultsOf, option } from './field.js';
import { threads } from './common.js';

/** ExpLoss boosting's smoothing eps (Collins and Koo's default). */
export const BOOST_EPS = 0.0025;
/** LogLoss selection's L2 penalty on the selected weights. */
export const LOGLOSS_L2 = 0.01;
/** Rounds (or L-BFGS iterations) by method. */
export const RERANK_ROUNDS = { boost: 100_000, logloss: 1000, loglinear: 200 } as const;
/** The log-linear reranker's Gaussian prior C without a dev set. */
export const LOGLINEAR_C = 1;
/**
 * The Gaussian priors C tried on dev, the best kept (docs/design/reranking-defaults.md): the
 * best C moved from 0.3 to 10 between list sets of one treebank.
 */
export const LOGLINEAR_C_GRID: readonly number[] = [0.3, 1, 3, 10];
/** Features seen on candidates of fewer training sentences are dropped. */
export const FEATURE_CUTOFF = 5;
/**
 * The shape of the seeded synthetic reranking problem (syntheticRerankData, for benchmarks and
 * tests): the size of Collins & Koo's (2005) data, a Zipf law over features.
 */
export const SYNTHETIC_RERANK_DEFAULTS = {
  sentences: 36_000,
  candidatesPerSentence: 27,
  features: 500_000,
  sharedPerSentence: 250,
  privatePerCandidate: 20,
  zipfExponent: 1,
  seed: 1,
} as const;
/** Kernel decay lambda by kernel. */
export const PERCEPTRON_LAMBDA = { tree: 0.4, tags: 0.5 } as const;
/**
 * Weights w of the reranking features (K + w Phi . Phi) the pipeline's tree and tagging kernel
 * perceptrons try on dev: dev chose w = 1 over the kernel alone on every list set measured
 * (docs/design/reranking-defaults.md, "The kernel perceptron tries the reranking features").
 */
export const PIPELINE_FEATURE_WEIGHTS: readonly number[] = [0, 1];

const numberList = (check: z.ZodNumber) => z.array(check).min(1);

/** The head table of the parse-tree reranking features (boost, logloss, loglinear, and the perceptron's --feature-weight). */
export const headRules = option(
  z.string().min(1).default('collins'),
  "head table of the tree features: the preset 'collins' or a JSON file; uncovered labels get head rules (and word classes) learned from the training trees, saved in the model",
  { value: 'collins|FILE' },
);

/** boost, logloss and loglinear (`train-reranker --method boost|logloss|loglinear`). */
export const linearRerankerFields = {
  rounds: option(
    z.number().int().min(1).optional(),
    `boosting / LogLoss rounds or L-BFGS iterations (default ${RERANK_ROUNDS.boost} boost, ${RERANK_ROUNDS.logloss} logloss, ${RERANK_ROUNDS.loglinear} loglinear)`,
    { value: 'N' },
  ),
  eps: option(
    numberList(z.number().min(0)).default([BOOST_EPS]),
    'boost: smoothing eps; with several values each is trained and the best on --dev is kept',
  ),
  weighting: option(
    z.enum(['score', 'uniform']).default('score'),
    'boost: pair weights S = Score(x1) - Score(xj) (score) or 1 (uniform)',
    { flag: 'weights' },
  ),
  l2: option(
    numberList(z.number().min(0)).optional(),
    `loglinear: Gaussian prior C, several are tried on --dev (default ${LOGLINEAR_C_GRID.join(',')} with --dev, else ${LOGLINEAR_C}); logloss: the penalty on selected weights (default ${LOGLOSS_L2})`,
    { value: 'C[,C...]' },
  ),
  cutoff: option(
    z.number().int().min(1).default(FEATURE_CUTOFF),
    'keep features seen on candidates of at least N training sentences',
    { value: 'N' },
  ),
  devStep: option(
    z.number().int().min(1).optional(),
    'score --dev every N rounds when choosing the round count (default: 1/200 of the rounds)',
    { value: 'N' },
  ),
  headRules,
  threads,
};

export const PERCEPTRON_KERNELS = ['tree', 'tags', 'linear'] as const;
export const WORD_FEATURES = ['none', 'caps', 'digits', 'suffix2', 'suffix3', 'shape'] as const;

/**
 * The perceptron options a kernel does not take, and why: the one rule behind the API's
 * error and the pipeline config's (which names the field's path). Undefined when all fit.
 */
export function perceptronKernelConflict(
  kernel: (typeof PERCEPTRON_KERNELS)[number],
  o: { normalize?: boolean; wordFeature?: string; featureWeight?: number },
): { field: 'normalize' | 'wordFeature' | 'featureWeight'; message: string } | undefined {
  if (o.normalize && kernel !== 'tags')
    return { field: 'normalize', message: `normalization applies to the tagging kernel only (kernel '${kernel}')` };
  if (o.wordFeature !== undefined && o.wordFeature !== 'none' && kernel !== 'tags') {
    return { field: 'wordFeature', message: `a word feature (Sim2) needs the tagging kernel (kernel '${kernel}')` };
  }
  if ((o.featureWeight ?? 0) > 0 && kernel === 'linear') {
    return {
      field: 'featureWeight',
      message: "reranking features are added to the tree or tagging kernel (the linear kernel's features are its own)",
    };
  }
  return undefined;
}

/** The kernel perceptron (`train-reranker --method perceptron`). */
export const perceptronFields = {
  kernel: option(
    z.enum(PERCEPTRON_KERNELS).optional(),
    'kernel (default: tree for tree candidates, tags for tag candidates)',
  ),
  voted: option(z.boolean().default(false), 'predict with the voted perceptron'),
  averaged: option(z.boolean().default(false), 'predict with the averaged perceptron (the default prediction)'),
  last: option(z.boolean().default(false), 'predict with the last weight vector'),
  epochs: option(z.number().int().min(1).default(1), 'passes over the training data', { value: 'T' }),
  chunks: option(z.number().int().min(1).default(1), 'train k perceptrons on k parts in parallel, vote over all', {
    value: 'k',
  }),
  lambda: option(
    z.number().gt(0).lte(1).optional(),
    `tree / tagging kernel decay (default ${PERCEPTRON_LAMBDA.tree} trees, ${PERCEPTRON_LAMBDA.tags} tags)`,
  ),
  beta: option(z.number().default(0), 'weight of the base model: beta*L(x)*L(y) + K(x,y)'),
  baseWeight: option(z.number().default(0), 'fixed prior on the base model: every hypothesis adds g*L(x)', {
    value: 'g',
  }),
  featureWeight: option(
    z.number().min(0).default(0),
    'tree or tagging kernel: add the reranking features (as boost uses them) with weight w: K + w*Phi(x).Phi(y)',
    { value: 'w' },
  ),
  sim2: option(
    z.number().min(0).optional(),
    'tagging kernel: weight of the word-class term (default 0.5 with --word-feature, else 0)',
  ),
  wordFeature: option(z.enum(WORD_FEATURES).default('none'), 'tagging kernel: the word class of the Sim2 term'),
  normalize: option(
    z.boolean().default(false),
    "tagging kernel: K(a,b)/sqrt(K(a,a)K(b,b)) (beta's term is added after)",
  ),
  features: option(
    z.enum(['file', 'builtin', 'auto']).default('auto'),
    "linear kernel features (auto: the file's when present)",
  ),
  dual: option(z.boolean().default(false), 'linear kernel: train the dual form (default: primal, same decisions)'),
  seed: option(z.number().int().min(0).default(1), 'shuffling seed'),
  shuffle: option(z.boolean().default(true), 'keep the training file order (no shuffling)'),
  cacheMB: option(z.number().min(0).default(512), 'bound on cached kernel values, in MB', {
    flag: 'cache-mb',
    value: 'N',
  }),
  compress: option(
    z.boolean().default(true),
    'tree and tagging kernels: kernel sums per support candidate, not the DAG or shared suffixes',
  ),
  threads,
};

export const PERCEPTRON_DEFAULTS = defaultsOf(perceptronFields) as Required<
  ReturnType<typeof defaultsOf<typeof perceptronFields>>
>;
