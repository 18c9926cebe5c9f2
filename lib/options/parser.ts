/**
 * The chart parser's training and parsing options (ChartParserModel, `structrank
 * train-parser` / `parse`, the pipeline's parser base): each once, with range, default and
 * description.
 */
import { z } from 'zod';
import { option } from './field.js';
import { threads } from './common.js';

/** Longer sentences are not chart-parsed by default: 300 words take seconds, 3,000 an hour and tens of GB. */
export const DEFAULT_MAX_PARSE_LENGTH = 300;

/**
 * The PCFG's unknown-word model: P(tag | signature) is smoothed towards P(tag | the signature
 * without its learned suffix) with this many pseudo-counts (chosen on the three dev
 * treebanks, docs/design/parser-defaults.md "The PCFG's unknown words"). The CRF parser keeps the older estimate (0), with which
 * its figures were measured.
 */
export const PCFG_SHAPE_BACKOFF = 50;

/**
 * The PCFG's rare words: words seen at most this often also train the unknown-word model
 * and may take the tags of their signature (chosen on the three dev treebanks, docs/design/parser-defaults.md
 * "The PCFG's unknown words"). The CRF parser keeps 1, with which its figures were measured.
 */
export const PCFG_RARE_THRESHOLD = 20;

/**
 * The CRF-CFG's own defaults: surface span features over a small grammar (Markov order 0,
 * no parent annotation, no head rules), AdaGrad, coarse-to-fine pruning by the PCFG.
 */
export const CRF_DEFAULTS = {
  markov: 0,
  parent: false,
  vpHeadTag: false,
  epochs: 10,
  patience: 2,
  eta0: 0.1,
  prune: 1e-4,
  surfaceBits: 22,
  tagSets: true,
  average: true,
  decode: 'mbr',
  rareThreshold: 1,
  weightFloor: 0.01,
  margin: 1,
  seed: 1,
  /**
   * The PCFGs mixed into the CRF's MBR decoding: pcfgGrammars latent-annotation PCFGs of
   * pcfgCycles split-merge cycles each, over the CRF's grammar (Markov order 0, no parent
   * annotation), trained with seeds 1, 2, ... (their symbols learn the contexts the CRF's
   * states lack); the weight of their posteriors together that --dev chooses among (ties go to
   * the smaller), and the weight without --dev.
   */
  pcfgGrammars: 2,
  pcfgCycles: 4,
  pcfgWeights: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
  pcfgWeight: 0.5,
  /**
   * The rescoring of the MBR decoding (lib/parser/head-rescoring.ts): the headK best
   * bracketings of the CRF's headPool best trees and the MBR tree, each scored by its
   * log-probability plus weights times the head model's and the tree model's, less a weight
   * times its expected bracket loss; --dev chooses the weights among every combination of
   * headWeights, treeModelWeights and lossWeights, or no rescoring where none beats the MBR
   * tree on dev.
   */
  headModel: true,
  headK: 20,
  headPool: 50,
  headWeights: [0.25, 0.5, 0.75, 1, 1.5, 2, 3],
  treeModelWeights: [0, 0.1, 0.25],
  lossWeights: [0, 0.5, 1, 2, 4, 8, 16],
} as const;

/**
 * CRF trainer settings that are not command-line options: the SGD gain schedule (tau 0: the
 * gain halves after 5 passes).
 */
export const CRF_TRAINER_SETTINGS = { tau: 0 } as const;

/**
 * How each latent PCFG of the mix is trained (chart/latent_pcfg.h): EM iterations after each
 * split (half as many after each merge), the fraction of each cycle's splits merged back, the
 * smoothing of rule probabilities towards their siblings', the pseudo-count of a tag's split
 * prior in each word's, the fewest occurrences that give a word its own split (rarer words
 * share their signature's), and the noise that breaks each split's symmetry (Petrov et al.'s
 * 1%).
 */
export const LATENT_PCFG_SETTINGS = {
  iterations: 50,
  merge: 0.5,
  smoothing: 0.01,
  lexPrior: 1,
  wordMin: 3,
  noise: 0.01,
} as const;

/** How the CRF picks its 1-best tree: the most probable one, or the one with the most expected correct nodes. */
export const PARSER_DECODES = ['viterbi', 'mbr'] as const;
export type ParserDecode = (typeof PARSER_DECODES)[number];
/** The CRF's retry with every tag: coarse-to-fine like the first attempt, or over the whole chart. */
export const PARSER_RETRIES = ['pruned', 'exhaustive'] as const;
export type ParserRetry = (typeof PARSER_RETRIES)[number];

/** A horizontal Markov order of the binarization (lib/parser/binarize.ts). */
export const markovOrderSchema = z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'expected 0, 1 or 2' });

export const parserTrainFields = {
  crf: option(
    z.boolean().default(false),
    'train the CRF-CFG on top of the PCFG: surface span features, AdaGrad on batches, coarse-to-fine pruning; its grammar is Markov order 0 without parent annotation or head rules',
  ),
  sgd: option(z.boolean().default(false), 'train the CRF with SGD and a decaying gain instead of AdaGrad'),
  lbfgs: option(z.boolean().default(false), 'train the CRF with full-batch L-BFGS instead (--epochs = iterations)'),
  markov: option(markovOrderSchema.optional(), 'binarization order (default 2; 0 with --crf)', { value: '0|1|2' }),
  parent: option(
    z.boolean().optional(),
    'parent annotation on every state (default: on for the PCFG, off with --crf, where it makes a different ensemble member: parse --ensemble)',
  ),
  epochs: option(
    z.number().int().min(1).default(CRF_DEFAULTS.epochs),
    'CRF passes over the data (or L-BFGS iterations); the best pass on --dev is kept',
    { value: 'E' },
  ),
  patience: option(
    z.number().int().min(0).default(CRF_DEFAULTS.patience),
    'CRF with --dev: stop after N passes without a dev F1 improvement (0 = never)',
    { value: 'N' },
  ),
  average: option(
    z.boolean().default(CRF_DEFAULTS.average),
    "CRF (AdaGrad/SGD): keep each pass's last iterate instead of the mean of the pass's iterates (the default)",
  ),
  batch: option(z.number().int().min(1).default(20), 'CRF batch size, drawn with replacement', { value: 'B' }),
  eta0: option(z.number().gt(0).default(CRF_DEFAULTS.eta0), 'AdaGrad step, or the initial SGD gain'),
  sigma2: option(z.number().gt(0).default(1), 'L2 prior variance'),
  seed: option(
    z.number().int().min(0).default(CRF_DEFAULTS.seed),
    'CRF (AdaGrad/SGD): seed of the batch sampling (another seed, another model of about the same F1)',
    { value: 'S' },
  ),
  margin: option(
    z.number().min(0).default(CRF_DEFAULTS.margin),
    'CRF softmax-margin: in training, each tree counts as if its score were C higher per wrong bracket (0 = plain log-likelihood)',
    { value: 'C' },
  ),
  prune: option(
    z.number().min(0).lt(1).default(CRF_DEFAULTS.prune),
    'CRF coarse-to-fine: keep chart entries whose PCFG posterior is >= X, in training and (stored in the model) in parsing (0 = exhaustive)',
    { value: 'X' },
  ),
  surfaceBits: option(
    z.number().int().min(0).max(30).default(CRF_DEFAULTS.surfaceBits),
    'CRF surface span features hashed into 2^N weights (0 = none)',
    { value: 'N' },
  ),
  tagSets: option(
    z.boolean().default(CRF_DEFAULTS.tagSets),
    'CRF: surface span features see each word and its shape only, not also its tag set (the tags the lexicon allows it)',
  ),
  decode: option(
    z.enum(PARSER_DECODES).default(CRF_DEFAULTS.decode),
    'CRF 1-best: the Viterbi tree or the max-expected-recall tree of the posteriors (mbr); stored in the model as the parse default',
  ),
  beam: option(
    z.number().gt(0).default(Number.POSITIVE_INFINITY),
    'CRF chart prefilter when --prune is 0: PCFG max-marginal beam in nats (none = exact)',
  ),
  rareThreshold: option(
    z.number().int().min(0).optional(),
    `words seen at most N times also get signature tags (default ${PCFG_RARE_THRESHOLD} for the PCFG, ${CRF_DEFAULTS.rareThreshold} with --crf)`,
    { flag: 'rare' },
  ),
  clusters: option(
    z.string().min(1).optional(),
    "word clusters, 'word<TAB>cluster' per line: CRF lexicon and surface features, cluster tags for rare words (kept in the model)",
    { value: 'F' },
  ),
  relax: option(
    z.boolean().default(false),
    'grammar relaxation: add each rule with the other parent annotations of its parent (needs parent annotation: --parent with --crf)',
  ),
  verbFeatures: option(
    z.boolean().default(false),
    'CRF: rule x word features of binary rules with a verb-like tag child (the tags learned from the treebank)',
  ),
  pcfgWeight: option(
    z.number().min(0).lt(1).optional(),
    `CRF: the weight of the latent-annotation PCFGs' posteriors (trained on the same trees and stored in the model; --pcfg-grammars, --pcfg-cycles) mixed into the CRF's for MBR decoding (default: chosen on --dev among ${CRF_DEFAULTS.pcfgWeights.join(', ')}; ${CRF_DEFAULTS.pcfgWeight} without --dev; 0 = none)`,
    { value: 'X' },
  ),
  pcfgGrammars: option(
    z.number().int().min(1).max(8).default(CRF_DEFAULTS.pcfgGrammars),
    'CRF: how many latent-annotation PCFGs are mixed in, each trained with another seed (their mean is a product of grammars)',
    { value: 'N' },
  ),
  pcfgCycles: option(
    z.number().int().min(0).max(6).default(CRF_DEFAULTS.pcfgCycles),
    "CRF: split-merge cycles of each latent PCFG: each doubles every symbol's subsymbols, then merges half of the new splits back (0 = the grammar's plain PCFG)",
    { value: 'N' },
  ),
  headModel: option(
    z.boolean().default(CRF_DEFAULTS.headModel),
    `CRF: do not rescore the MBR tree with a head-lexicalized and a label-only generative model of the training trees and the expected bracket loss (the trees stored in the model; by default the weights are chosen on --dev among head model ${CRF_DEFAULTS.headWeights.join(', ')} x tree model ${CRF_DEFAULTS.treeModelWeights.join(', ')} x loss ${CRF_DEFAULTS.lossWeights.join(', ')}, none when no combination beats the MBR tree there; without --dev, none)`,
  ),
  featureCacheMB: option(
    z.number().min(0).default(1024),
    'CRF: cap on the per-sentence feature-id cache kept across passes (0 = off)',
    { flag: 'feature-cache-mb', value: 'N' },
  ),
  maxLength: option(
    z.number().int().min(0).default(0),
    'train, and score --dev, only on trees of at most N words (0 = all)',
    {
      value: 'N',
    },
  ),
  threads,
};

/** train-parser's fields that only the CRF's training reads: given without --crf, they are refused. */
export const CRF_ONLY_TRAIN_FIELDS = [
  'sgd',
  'lbfgs',
  'epochs',
  'patience',
  'average',
  'batch',
  'eta0',
  'sigma2',
  'seed',
  'margin',
  'prune',
  'surfaceBits',
  'tagSets',
  'decode',
  'beam',
  'verbFeatures',
  'featureCacheMB',
  'pcfgWeight',
  'pcfgGrammars',
  'pcfgCycles',
  'headModel',
] as const satisfies readonly (keyof typeof parserTrainFields)[];

/** The CRF's fields that only its stochastic training (AdaGrad, SGD) reads: refused with --lbfgs. */
export const STOCHASTIC_ONLY_TRAIN_FIELDS = [
  'average',
  'batch',
  'eta0',
  'seed',
] as const satisfies readonly (keyof typeof parserTrainFields)[];

export const parseFields = {
  pcfg: option(z.boolean().default(false), 'parse with the PCFG even if the model has CRF weights'),
  prune: option(
    z.number().min(0).lt(1).optional(),
    "CRF coarse-to-fine: keep chart entries whose PCFG posterior is >= X (default: the model's training value; 0 = exhaustive)",
    { value: 'X' },
  ),
  decode: option(
    z.enum(PARSER_DECODES).optional(),
    "CRF 1-best: the Viterbi tree or the max-expected-recall tree (mbr; default: the model's); --nbest lists are Viterbi unless mbr is given: then the K trees of most expected correct brackets",
  ),
  retry: option(
    z.enum(PARSER_RETRIES).optional(),
    "CRF, a sentence the tag dictionary leaves without a tree: retry with every tag, pruned or over the whole chart (default: the model's)",
  ),
  pcfgWeight: option(
    z.number().min(0).lt(1).optional(),
    "CRF, MBR decoding: the weight of the model's PCFG posteriors mixed into the CRF's (default: the model's, 0 with --ensemble; 0 = the CRF alone)",
    { value: 'X' },
  ),
  headModel: option(
    z.boolean().default(true),
    "CRF, MBR decoding: the MBR tree, without the model's rescoring by its head and tree models and expected loss (models trained with it; see train-parser)",
  ),
  beam: option(
    z.number().gt(0).default(Number.POSITIVE_INFINITY),
    "prune each span's states more than X below its best (none = exact)",
  ),
  maxLength: option(
    z.number().int().min(0).default(DEFAULT_MAX_PARSE_LENGTH),
    'longer sentences get the flat fallback instead of a chart (0 = no limit; time grows with the cube of the length)',
    { value: 'N' },
  ),
  threads,
};

/** parse's fields that only CRF parsing reads: refused for a PCFG model or with --pcfg. */
export const CRF_ONLY_PARSE_FIELDS = [
  'prune',
  'decode',
  'retry',
  'pcfgWeight',
  'headModel',
] as const satisfies readonly (keyof typeof parseFields)[];
