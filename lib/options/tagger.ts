/**
 * The tagger's training options (Tagger.train, `structrank train-tagger`, the pipeline's
 * tagger base): each hyper-parameter once, with its range, default and description.
 */
import { z } from 'zod';
import { defaultsOf, option, type OptionValues } from './field.js';
import { threads } from './common.js';

export const TAGGER_ALGORITHMS = ['maxent', 'perceptron', 'crf'] as const;
export type TaggerAlgorithmName = (typeof TAGGER_ALGORITHMS)[number];

/** Epochs (perceptron, SGD) or, with L-BFGS, iterations. */
export const TAGGER_EPOCHS = { passes: 10, lbfgs: 100 } as const;
/** Dev evaluations every this many epochs / L-BFGS iterations. */
export const TAGGER_EVAL_EVERY = { passes: 1, lbfgs: 10 } as const;
/** L2 weight by algorithm (the maxent tagger's local objective wants less). */
export const TAGGER_C2 = { crf: 1, maxent: 0.1, perceptron: 1 } as const;

export const taggerFields = {
  algo: option(
    z.enum(TAGGER_ALGORITHMS),
    'perceptron: averaged structured perceptron; crf: linear-chain CRF; maxent: log-linear tagger with beam search',
  ),
  order: option(z.union([z.literal(1), z.literal(2)]).default(1), 'label dependencies: 1 (bigram) or 2 (trigram)', {
    value: '1|2',
  }),
  templates: option(
    z.string().min(1).optional(),
    "a template config file (JSON) or a default set: pos, chunk, ner (default: chunk when a 'pos' column exists, else pos)",
    { flag: 'template', value: 'T.json|pos|chunk|ner' },
  ),
  clusters: option(z.string().min(1).optional(), "word clusters, 'word<TAB>cluster' per line, for cluster templates", {
    value: 'F',
  }),
  epochs: option(
    z.number().int().min(1).optional(),
    `passes (perceptron, SGD) or L-BFGS iterations (crf, maxent); default ${TAGGER_EPOCHS.passes}, or ${TAGGER_EPOCHS.lbfgs} with L-BFGS`,
  ),
  optimizer: option(z.enum(['lbfgs', 'sgd']).default('lbfgs'), 'CRF optimizer'),
  sgdWarmup: option(
    z.number().int().min(0).default(0),
    'CRF with L-BFGS: first run N SGD epochs (counted in --epochs), then L-BFGS',
  ),
  c2: option(
    z.number().min(0).optional(),
    `L2 weight (objective + c2 |w|^2); default ${TAGGER_C2.crf} (crf), ${TAGGER_C2.maxent} (maxent)`,
  ),
  eta0: option(z.number().gt(0).default(0.1), 'initial SGD gain'),
  beam: option(z.number().int().min(1).default(8), 'beam width of the maxent tagger', { value: 'B' }),
  evalEvery: option(
    z.number().int().min(1).optional(),
    `score --dev every N epochs / L-BFGS iterations (default ${TAGGER_EVAL_EVERY.passes}, or ${TAGGER_EVAL_EVERY.lbfgs} with L-BFGS)`,
  ),
  patience: option(z.number().int().min(0).default(3), 'stop after N dev evaluations without improvement (0 = never)'),
  threads: option(threads, 'threads for the CRF/maxent gradient and dev tagging (0 = all cores)'),
  seed: option(z.number().int().min(0).default(1), 'seed of the SGD shuffling'),
};

/** The numeric and enum hyper-parameters, checked as given to Tagger.train. */
export const taggerHyperFields = (({ algo: _a, templates: _t, clusters: _c, ...rest }) => rest)(taggerFields);

/** The defaults of the fields that have a fixed one. */
export const TAGGER_DEFAULTS = defaultsOf(taggerFields) as Required<
  Pick<
    OptionValues<typeof taggerFields>,
    'order' | 'optimizer' | 'sgdWarmup' | 'eta0' | 'beam' | 'patience' | 'threads' | 'seed'
  >
>;

/** Whether training runs L-BFGS (maxent, or the CRF with optimizer lbfgs). */
export function usesLbfgs(algo: string, optimizer: string | undefined): boolean {
  return algo === 'maxent' || (algo === 'crf' && optimizer !== 'sgd');
}
