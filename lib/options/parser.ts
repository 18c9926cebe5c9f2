/**
 * The chart parser's training and parsing options (ChartParserModel, `structrank
 * train-parser` / `parse`, the pipeline's parser base): each once, with range, default and
 * description.
 */
import { z } from 'zod';
import { defaultsOf, option } from './field.js';
import { threads } from './common.js';

/** Longer sentences are not chart-parsed by default: 300 words take seconds, 3,000 an hour and tens of GB. */
export const DEFAULT_MAX_PARSE_LENGTH = 300;

export const parserTrainFields = {
  crf: option(z.boolean().default(false), 'train the CRF-CFG (SGD on the conditional log-likelihood) on top of the PCFG'),
  lbfgs: option(z.boolean().default(false), 'train the CRF with full-batch L-BFGS instead of SGD (--epochs = iterations)'),
  markov: option(z.union([z.literal(1), z.literal(2)]).default(2), 'binarization order', { value: '1|2' }),
  epochs: option(z.number().int().min(1).default(10), 'CRF passes over the data (or L-BFGS iterations)', { value: 'E' }),
  batch: option(z.number().int().min(1).default(20), 'CRF batch size, drawn with replacement', { value: 'B' }),
  eta0: option(z.number().gt(0).default(0.1), 'initial SGD gain; it halves after 5 passes'),
  sigma2: option(z.number().gt(0).default(1), 'L2 prior variance'),
  beam: option(z.number().gt(0).default(Number.POSITIVE_INFINITY), 'CRF chart prefilter: PCFG max-marginal beam in nats (none = exact)'),
  rareThreshold: option(z.number().int().min(0).default(1), 'words seen at most N times also get signature tags', { flag: 'rare' }),
  clusters: option(z.string().min(1).optional(), "word clusters, 'word<TAB>cluster' per line: CRF lexicon features and cluster tags for rare words (kept in the model)", { value: 'F' }),
  relax: option(z.boolean().default(false), 'grammar relaxation: add each rule with the other parent annotations of its parent'),
  verbFeatures: option(z.boolean().default(true), 'CRF: leave out the rule x word features of binary rules with a verb-tag child'),
  featureCacheMB: option(z.number().min(0).default(1024), 'CRF: cap on the per-sentence feature-id cache kept across passes (0 = off)', { flag: 'feature-cache-mb', value: 'N' }),
  maxLength: option(z.number().int().min(0).default(0), 'train only on trees of at most N words (0 = all)', { value: 'N' }),
  threads,
};

export const parseFields = {
  pcfg: option(z.boolean().default(false), 'parse with the PCFG even if the model has CRF weights'),
  beam: option(z.number().gt(0).default(Number.POSITIVE_INFINITY), "prune each span's states more than X below its best (none = exact)"),
  maxLength: option(
    z.number().int().min(0).default(DEFAULT_MAX_PARSE_LENGTH),
    'longer sentences get the flat fallback instead of a chart (0 = no limit; time grows with the cube of the length)',
    { value: 'N' },
  ),
  threads,
};

/** The defaults ChartParserModel.train falls back on. */
export const PARSER_DEFAULTS = defaultsOf(parserTrainFields) as {
  markov: 1 | 2; epochs: number; batch: number; eta0: number; sigma2: number; beam: number; rareThreshold: number; featureCacheMB: number; threads: number;
};
