/**
 * The pipeline's configuration: a JSON file validated here, every field with a documented
 * default. `pipelineConfigSchema` is a zod schema; `pipelineJsonSchema()` publishes it as a
 * JSON Schema. A bad field is reported by its path, e.g.
 * `pipeline.json: rerankers[1].lambda: expected a number or a list of numbers`.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { HEAD_RULE_PRESETS } from '../trees/head-rules.js';
import { KBEST_TAG_MODES, PIPELINE_KBEST_MODE } from '../trees/kbest-modes.js';
import { KBEST_POOL_FACTOR, MAX_NBEST } from '../io/nbest.js';
import { InputError } from '../errors.js';
import { readTextFile } from '../io/lines.js';
import { defOf, descriptionOf } from '../options/field.js';
import { CRF_DEFAULTS, markovOrderSchema, PCFG_RARE_THRESHOLD } from '../options/parser.js';
import { SCORE_KINDS } from '../eval/score.js';
import { columnFormatOf, conlluField, CONLLU_FIELD_NAMES, type ColumnFormat } from '../io/conllu.js';
import type { PerceptronKernel } from '../rerank/perceptron-data.js';
import { TAGGER_C2, TAGGER_DEFAULTS, taggerFields } from '../options/tagger.js';
import { CLUSTER_CLASSES } from '../options/clusters.js';
import {
  BOOST_EPS,
  FEATURE_CUTOFF,
  LOGLINEAR_C_GRID,
  PERCEPTRON_DEFAULTS,
  PERCEPTRON_LAMBDA,
  PIPELINE_FEATURE_WEIGHTS,
  RERANK_ROUNDS,
  WORD_FEATURES,
  perceptronKernelConflict,
} from '../options/rerank.js';

/** CoNLL columns when the config names none. */
const DEFAULT_COLUMNS = ['word', 'pos', 'tag'];

/** The grid fields, for the JSON Schema (see pipelineJsonSchema). */
const grids = new WeakSet<z.ZodType>();

/** A hyper-parameter grid: one number or a non-empty list; every value is tried on dev. */
const grid = (what: string, check: (n: number) => boolean = () => true, range = '') => {
  const schema = z.preprocess(
    (v) => (typeof v === 'number' ? [v] : v),
    z
      .array(z.number({ error: `expected a number${range}` }).refine(check, { message: `expected a number${range}` }), {
        error: 'expected a number or a list of numbers',
      })
      .min(1, { message: `the ${what} grid needs at least one value` }),
  );
  grids.add(schema);
  return schema;
};

const positiveInt = (what: string) =>
  z
    .number({ error: `expected a positive integer (${what})` })
    .int({ message: `expected a positive integer (${what})` })
    .min(1, { message: `expected a positive integer (${what})` });
const integerAtLeast = (min: number) =>
  z
    .number({ error: `expected an integer >= ${min}` })
    .int({ message: `expected an integer >= ${min}` })
    .min(min, { message: `expected an integer >= ${min}` });
const nonNegativeInt = (what: string) =>
  z
    .number({ error: `expected a non-negative integer (${what})` })
    .int({ message: `expected a non-negative integer (${what})` })
    .min(0, { message: `expected a non-negative integer (${what})` });

export const dataSchema = z.strictObject({
  train: z
    .string({ error: 'expected a file path' })
    .min(1)
    .describe('training file: reranker training candidates come from it by jackknifing'),
  dev: z
    .string({ error: 'expected a file path' })
    .min(1)
    .describe('dev file: hyper-parameters (eps and N; lambda and beta; C) are chosen on it'),
  test: z.string({ error: 'expected a file path' }).min(1).describe('test file: the final evaluation'),
  format: z
    .enum(['trees', 'conll', 'conllu'], { error: "expected 'trees', 'conll' or 'conllu'" })
    .optional()
    .describe(
      "'trees' (bracketed treebank, task parse), 'conll' (columns, task tag) or 'conllu' (CoNLL-U, task tag: columns name its fields, word = FORM); default: from the task, conllu for a *.conllu training file",
    ),
  columns: z
    .array(z.string({ error: 'expected a column name' }), { error: 'expected a list of column names' })
    .min(2)
    .optional()
    .describe(`CoNLL column names, e.g. ["word", "pos", "ne"] (default ${JSON.stringify(DEFAULT_COLUMNS)})`),
  label: z
    .string({ error: 'expected a column name' })
    .optional()
    .describe('the CoNLL column to predict (default: the last column)'),
  trainLimit: positiveInt('sentences')
    .optional()
    .describe('use only the first N training sentences (after the length filter)'),
  devLimit: positiveInt('sentences').optional().describe('use only the first N dev sentences'),
  testLimit: positiveInt('sentences').optional().describe('use only the first N test sentences'),
  maxLength: positiveInt('words')
    .optional()
    .describe('keep only sentences of at most this many words (all three sets)'),
});

/** A further parser of a CRF base's ensemble: the base's options with these grammar options and seed. */
export const ensembleMemberSchema = z.strictObject({
  markov: markovOrderSchema.optional().describe("this member's horizontal Markov order"),
  parent: z.boolean({ error: 'expected true or false' }).optional().describe('this member is parent-annotated'),
  seed: nonNegativeInt('seed')
    .optional()
    .describe(
      "this member's CRF batch-sampling seed (default: the run's seed): members of the first parser's grammar with other seeds",
    ),
});

export const parserBaseSchema = z.strictObject({
  markov: markovOrderSchema
    .optional()
    .describe(
      `horizontal Markov order of the parser's binarization (default: the parser's own, 2 for the PCFG, ${CRF_DEFAULTS.markov} for the CRF)`,
    ),
  crf: z
    .boolean({ error: 'expected true or false' })
    .default(true)
    .describe(
      'the CRF-CFG chart parser (default true); false: the generative PCFG, faster to train and about 6 F1 lower',
    ),
  epochs: positiveInt('epochs').default(CRF_DEFAULTS.epochs).describe('CRF passes over the training data'),
  devPass: z
    .boolean({ error: 'expected true or false' })
    .default(true)
    .describe(
      `CRF: keep each base model's best pass on the dev set, stopping after ${CRF_DEFAULTS.patience} passes without a gain (default true); false: the last of 'epochs' passes`,
    ),
  mbr: z
    .boolean({ error: 'expected true or false' })
    .default(true)
    .describe(
      "CRF: every list also holds the parser's MBR tree (its 1-best), and every candidate carries its distance to it as reranking features ('MBR tree', 'MBR missed', 'MBR extra'; default true); the base's choice stays the most probable candidate",
    ),
  // No schema default: a validated config (distributed jobs carry one) names it only where it applies.
  posteriors: z
    .boolean({ error: 'expected true or false' })
    .optional()
    .describe(
      "CRF with mbr: every candidate also carries how likely its brackets are under the parser's posteriors as reranking features (how many of them have a posterior below 0.5, 0.1 and 0.01, and its expected missed plus invented brackets above the list's least; default true)",
    ),
  // No schema default: a validated config names it, so that the steps' cache keys tell lists with the features apart.
  treeModel: z
    .boolean({ error: 'expected true or false' })
    .optional()
    .describe(
      "every candidate also carries how probable it is under a generative model of the training trees, counted by each base step (its children given their phrase, its parent and the previous child; words by count and signature), as reranking features ('tree model best', 'tree model gap >= g' for g of 0.5 to 16 nats below the list's best; default true)",
    ),
  // No schema default, as treeModel.
  latentModel: z
    .boolean({ error: 'expected true or false' })
    .optional()
    .describe(
      "CRF: every candidate also carries how probable the latent PCFGs of the parser's MBR decoding find it as a whole, words included (the sum of their log-probabilities), as reranking features ('latent PCFG best', 'latent PCFG gap >= g' for g of 0.5 to 16 nats below the list's best); each base step then trains the PCFGs even where its dev set weighs them 0 (default false)",
    ),
  // No schema default, as treeModel.
  headModel: z
    .boolean({ error: 'expected true or false' })
    .optional()
    .describe(
      "every candidate also carries how probable it is under a head-lexicalized generative model of the training trees, counted by each base step (each phrase's head child and its dependents given the head word and tag; each dependent's head word given the governing head word), as reranking features ('head model best', 'head model gap >= g' for g of 0.5 to 16 nats below the list's best; default true)",
    ),
  ensemble: z
    .array(ensembleMemberSchema, { error: 'expected a list of member objects' })
    .optional()
    .describe(
      'CRF with mbr: more parsers trained on the same trees, each with its grammar options and seed (the ensemble of `parse --ensemble`: [{ "markov": 1 }, { "parent": true }]); the MBR tree the lists carry is then the ensemble\'s, from the mean of their posteriors, while the candidates stay the first parser\'s (default none)',
    ),
  union: z
    .boolean({ error: 'expected true or false' })
    .optional()
    .describe(
      "CRF with an ensemble: each list is the union of every member's k-best list and the ensemble's MBR tree, scored by the mean of the members' log-probabilities, and every candidate carries, per member, how far below that member's best it lies ('member gap') or that the member's pool lacks it ('member absent') (default false)",
    ),
  margin: z
    .number({ error: 'expected a number' })
    .min(0, { error: 'expected a number >= 0' })
    .default(CRF_DEFAULTS.margin)
    .describe(
      `CRF: softmax-margin cost per wrong bracket in training (default ${CRF_DEFAULTS.margin}; 0 = plain log-likelihood)`,
    ),
  tagSets: z
    .boolean({ error: 'expected true or false' })
    .default(CRF_DEFAULTS.tagSets)
    .describe(
      `CRF: the surface span features also see each word's tag set, the tags the lexicon allows it (default ${CRF_DEFAULTS.tagSets}); false: the word and its shape alone`,
    ),
  rareThreshold: nonNegativeInt('count')
    .optional()
    .describe(
      `words seen at most this often also train the unknown-word signatures (default ${PCFG_RARE_THRESHOLD} for the PCFG, ${CRF_DEFAULTS.rareThreshold} for the CRF)`,
    ),
  // No schema default: the steps' cache keys hold the base's options.
  pcfgWeight: z
    .number({ error: 'expected a number in [0, 1)' })
    .min(0, { error: 'expected a number in [0, 1)' })
    .lt(1, { error: 'expected a number in [0, 1)' })
    .optional()
    .describe(
      `CRF: the weight of the latent PCFGs' posteriors mixed into the CRF's for the lists' MBR tree and posteriors, as \`train-parser --pcfg-weight\` (default: chosen on the dev set among ${CRF_DEFAULTS.pcfgWeights.join(', ')}, ${CRF_DEFAULTS.pcfgWeight} with devPass false; 0 = none); refused with an ensemble, whose mean leaves the PCFGs out, and with mbr false`,
    ),
  // No schema defaults: the steps' cache keys hold the base's options, and runs without
  // clusters keep theirs.
  clusterText: z
    .string({ error: 'expected a file name or "train"' })
    .min(1, { error: 'expected a file name or "train"' })
    .optional()
    .describe(
      "word clusters for the parser's lexicon and surface features, computed for every fold from its training words and this plain text (one sentence per line; 'train' = the training words alone): exchange clustering of lowercased words, as `train-parser --cluster-text` (default none)",
    ),
  clusterClasses: integerAtLeast(2)
    .optional()
    .describe(`number of classes of clusterText (default ${CLUSTER_CLASSES})`),
  kbest: z
    .enum(KBEST_TAG_MODES, { error: "expected 'all', 'max', 'sum' or 'fixed'" })
    .default(PIPELINE_KBEST_MODE)
    .describe(
      `which k-best list: 'all' (the k best trees), 'max' (k distinct bracketings, each with its best tags), 'sum' (k distinct bracketings, tag variants summed), 'fixed' (the k best trees with the 1-best tags)`,
    ),
  pool: positiveInt('candidates')
    .max(MAX_NBEST)
    .optional()
    .describe(
      `trees parsed per sentence before 'kbest' keeps nbest of them (default nbest for 'all', else ${KBEST_POOL_FACTOR} x nbest, at most ${MAX_NBEST}); a larger pool also writes every mode's lists (nbest.<mode>.jsonl, ...)`,
    ),
});

export const taggerBaseSchema = z.strictObject({
  algo: z
    .enum(['crf', 'perceptron', 'maxent'], { error: "expected 'crf', 'perceptron' or 'maxent'" })
    .default('crf')
    .describe("tagger algorithm: 'crf' (its k-best lists carry log-probabilities), 'perceptron' or 'maxent'"),
  order: z
    .union([z.literal(1), z.literal(2)], { error: 'expected 1 or 2' })
    .default(TAGGER_DEFAULTS.order)
    .describe(descriptionOf(taggerFields.order)),
  epochs: positiveInt('epochs').default(50).describe('epochs or L-BFGS iterations'),
  optimizer: z
    .enum(['lbfgs', 'sgd'], { error: "expected 'lbfgs' or 'sgd'" })
    .default(TAGGER_DEFAULTS.optimizer)
    .describe(descriptionOf(taggerFields.optimizer)),
  c2: z.number({ error: 'expected a number' }).min(0).default(TAGGER_C2.crf).describe('L2 weight'),
  templates: z
    .string({ error: 'expected a template set name' })
    .optional()
    .describe("a default template set name ('pos', 'chunk', 'ner'); default: chosen by the tagger"),
});

/** Optional (no default), so that configs without it keep their reranker steps' cache keys. */
const scoreField = z
  .enum(SCORE_KINDS, { error: "expected 'errors' or 'f1'" })
  .optional()
  .describe(
    "the per-sentence Score it trains and selects on: 'errors' (-50 x (missed + invented), the default) or 'f1' (F1 x |gold|: 0 for every candidate of a sentence without gold brackets or entities)",
  );

const headRulesField = z
  .string({ error: "expected 'collins' or a head-rule file" })
  .default('collins')
  .describe(
    "parse trees: head table of the tree features, 'collins' or a JSON file; uncovered labels get rules learned from the training trees",
  );

const boostSchema = z.strictObject({
  type: z.literal('boost'),
  name: z.string().optional().describe("name in the results table (default 'boosting')"),
  rounds: positiveInt('rounds').default(20_000).describe('boosting rounds trained; N <= rounds is chosen on dev'),
  eps: grid('eps', (n) => n >= 0, ' >= 0')
    .default([BOOST_EPS])
    .describe('smoothing values eps tried; the best on dev wins'),
  weighting: z
    .enum(['score', 'uniform'], { error: "expected 'score' or 'uniform'" })
    .default('score')
    .describe("pair weights: 'score' (S = Score(x1) - Score(xj), eq. 22) or 'uniform' (S = 1, eq. 23)"),
  cutoff: nonNegativeInt('sentences')
    .default(FEATURE_CUTOFF)
    .describe('feature count cutoff: keep features seen on candidates of >= cutoff sentences'),
  headRules: headRulesField,
  score: scoreField,
});

const perceptronSchema = z.strictObject({
  type: z.literal('perceptron'),
  name: z.string().optional().describe('name in the results table (default: from the kernel)'),
  kernel: z
    .enum(['tree', 'tags', 'linear'], { error: "expected 'tree', 'tags' or 'linear'" })
    .optional()
    .describe("'tree' (parsing), 'tags' (tagging) or 'linear' (the reranking features); default: from the task"),
  lambda: grid('lambda', (n) => n > 0 && n <= 1, ' in (0, 1]')
    .optional()
    .describe(
      `kernel decay values tried on dev; 0 < lambda <= 1 (default ${PERCEPTRON_LAMBDA.tree} for the tree kernel, ${PERCEPTRON_LAMBDA.tags} for the tagging kernel, as in 'structrank rerank')`,
    ),
  beta: grid('beta', (n) => Number.isFinite(n), '')
    .default([0.2])
    .describe('weights of the base-model term beta L(x) L(y) tried on dev'),
  baseWeight: grid('baseWeight', (n) => n >= 0, ' >= 0')
    .default([0])
    .describe('fixed base-model priors g (every hypothesis adds g L(x)) tried on dev'),
  featureWeight: grid('featureWeight', (n) => n >= 0, ' >= 0')
    .optional()
    .describe(
      `tree or tagging kernel: weights w of the reranking features boosting uses, K + w Phi(x) . Phi(y), tried on dev (0: the kernel alone; default [${PIPELINE_FEATURE_WEIGHTS.join(', ')}], for the linear kernel [0])`,
    ),
  headRules: headRulesField,
  epochs: positiveInt('epochs')
    .default(PERCEPTRON_DEFAULTS.epochs as number)
    .describe('passes over the training data'),
  mode: z
    .enum(['voted', 'averaged', 'last'], { error: "expected 'voted', 'averaged' or 'last'" })
    .default('voted')
    .describe('prediction: voted, averaged or last'),
  chunks: positiveInt('chunks')
    .default(PERCEPTRON_DEFAULTS.chunks as number)
    .describe('independent perceptrons trained on chunks of the data and voted together'),
  wordFeature: z
    .enum(WORD_FEATURES, { error: "expected 'none', 'caps', 'digits', 'suffix2', 'suffix3' or 'shape'" })
    .default('none')
    .describe(
      "tagging kernel: a word class for the Sim2 term; with one, Delta = (1 + 0.5 Sim1 + 0.5 Sim2)(1 + lambda Delta'); 'none': the plain kernel, 1 + Sim1",
    ),
  normalize: z
    .boolean({ error: 'expected true or false' })
    .default(false)
    .describe(
      "tagging kernel: the normalized kernel K(a, b) / sqrt(K(a, a) K(b, b)); normalized values are at most 1, so beta's useful range shrinks with them",
    ),
  score: scoreField,
});

const loglinearSchema = z.strictObject({
  type: z.literal('loglinear'),
  name: z.string().optional().describe("name in the results table (default 'log-linear')"),
  l2: grid('l2', (n) => n >= 0, ' >= 0')
    .default([...LOGLINEAR_C_GRID])
    .describe('Gaussian prior weights C tried on dev'),
  iterations: positiveInt('iterations').default(RERANK_ROUNDS.loglinear).describe('L-BFGS iterations'),
  cutoff: nonNegativeInt('sentences')
    .default(FEATURE_CUTOFF)
    .describe('feature count cutoff: keep features seen on candidates of >= cutoff sentences'),
  headRules: headRulesField,
  score: scoreField,
});

export const rerankerSchema = z.discriminatedUnion('type', [boostSchema, perceptronSchema, loglinearSchema], {
  error: "expected a reranker object with type 'boost', 'perceptron' or 'loglinear'",
});

export const pipelineConfigSchema = z.strictObject({
  task: z
    .enum(['parse', 'tag'], { error: "expected 'parse' or 'tag'" })
    .describe("'parse' (constituency parsing) or 'tag' (sequence tagging, e.g. NER)"),
  data: dataSchema.describe('the three data sets and how to read them'),
  folds: integerAtLeast(2).default(5).describe('jackknifing: train is split into this many folds'),
  nbest: positiveInt('candidates').default(20).describe('candidates per sentence'),
  base: z
    .looseObject({}, { error: 'expected an object of base-model options' })
    .optional()
    .describe('base model options: for parse, the chart parser; for tag, the tagger'),
  rerankers: z
    .array(rerankerSchema, { error: 'expected a list of rerankers' })
    .default(() => [boostSchema.parse({ type: 'boost' }), loglinearSchema.parse({ type: 'loglinear' })])
    .describe('the rerankers to train (default: boosting and log-linear)'),
  mix: z
    .boolean({ error: 'expected true or false' })
    .default(true)
    .describe(
      "also report the mix of the rerankers that score every candidate (boosting and log-linear): each one's scores divided by their spread within dev lists, summed with equal weights (default true; needs two such rerankers)",
    ),
  threads: nonNegativeInt('threads').default(0).describe('worker threads (0 = all cores)'),
  output: z
    .string({ error: 'expected a folder path' })
    .default('structrank-pipeline')
    .describe('output folder: results.json, report.html, step cache'),
  cache: z
    .string({ error: 'expected a folder path' })
    .optional()
    .describe('step cache folder (default <output>/cache)'),
  seed: nonNegativeInt('seed').default(1).describe('seed for fold shuffling and training'),
});

export type PipelineConfigInput = z.input<typeof pipelineConfigSchema>;
export type RerankerConfig = z.output<typeof rerankerSchema>;
export type BoostConfig = z.output<typeof boostSchema>;
/** A perceptron entry once validated: `lambda` and `featureWeight` filled in from the kernel when not given. */
export type PerceptronConfig = Omit<z.output<typeof perceptronSchema>, 'lambda' | 'featureWeight'> & {
  lambda: number[];
  featureWeight: number[];
};
export type LoglinearConfig = z.output<typeof loglinearSchema>;
export type ParserBaseConfig = z.output<typeof parserBaseSchema>;
export type EnsembleMember = z.output<typeof ensembleMemberSchema>;
export type TaggerBaseConfig = z.output<typeof taggerBaseSchema>;

/** The parser base's fields that only the CRF base reads (refused with crf false), and their defaults. */
const CRF_BASE_FIELDS = [
  'epochs',
  'devPass',
  'mbr',
  'posteriors',
  'margin',
  'tagSets',
  'pcfgWeight',
  'latentModel',
] as const;
const CRF_BASE_DEFAULTS: ParserBaseConfig = parserBaseSchema.parse({});

/** A validated config with every default filled in and paths resolved. */
export interface PipelineConfig extends Omit<z.output<typeof pipelineConfigSchema>, 'base' | 'data' | 'cache'> {
  data: z.output<typeof dataSchema> & { format: 'trees' | ColumnFormat; columns: string[]; label: string };
  base: ParserBaseConfig | TaggerBaseConfig;
  cache: string;
}

/** `rerankers[1].lambda` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(top level)' : out;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator)
    return "expected type 'boost', 'perceptron' or 'loglinear'";
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required field is missing';
  if (issue.code === 'invalid_value' && issue.input === undefined)
    return `required field is missing (${issue.message})`;
  if (issue.code === 'invalid_value' && issue.message.startsWith('Invalid input'))
    return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
  return issue.message;
}

/**
 * Validates a parsed config object. `file` names the source in errors; relative data and
 * output paths are resolved against `baseDir` (default: the file's folder).
 *
 * @example
 * ```ts
 * const config = validatePipelineConfig({ task: 'parse', data: { train: 'train.mrg', dev: 'dev.mrg', test: 'test.mrg' }, rerankers: [{ type: 'boost' }] });
 * ```
 */
export function validatePipelineConfig(value: unknown, file = 'pipeline.json', baseDir?: string): PipelineConfig {
  const r = pipelineConfigSchema.safeParse(value, { reportInput: true });
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
    throw new InputError(file, undefined, `${where}${issueMessage(issue)}`);
  }
  const c = r.data;
  const dir = baseDir ?? dirname(resolve(file));
  const at = (p: string): string => (isAbsolute(p) ? p : resolve(dir, p));
  const format = c.data.format ?? (c.task === 'parse' ? 'trees' : columnFormatOf(c.data.train));
  const fail = (path: string, problem: string): never => {
    throw new InputError(file, undefined, `${path}: ${problem}`);
  };
  if (c.task === 'parse' && format !== 'trees') fail('data.format', "task 'parse' needs format 'trees'");
  if (c.task === 'tag' && format === 'trees') fail('data.format', "task 'tag' needs format 'conll' or 'conllu'");
  const columns = c.data.columns ?? DEFAULT_COLUMNS;
  if (format === 'conllu') {
    const other = columns.find((name) => conlluField(name) === undefined);
    if (other !== undefined)
      fail('data.columns', `with format 'conllu' the columns name fields among ${CONLLU_FIELD_NAMES}; got '${other}'`);
  }
  const label = c.data.label ?? columns[columns.length - 1];
  if (c.task === 'tag' && !columns.includes(label))
    fail('data.label', `'${label}' is not one of data.columns (${columns.join(', ')})`);
  const rawBase = (value as { base?: unknown }).base ?? {};
  const baseSchema = c.task === 'parse' ? parserBaseSchema : taggerBaseSchema;
  const b = baseSchema.safeParse(rawBase, { reportInput: true });
  if (!b.success) {
    const issue = b.error.issues[0];
    fail(issue.path.length > 0 ? `base.${formatPath(issue.path)}` : 'base', issueMessage(issue));
  }
  const base = (b as { data: ParserBaseConfig | TaggerBaseConfig }).data;
  if ('ensemble' in base && (base.ensemble?.length ?? 0) > 0 && !(base.crf && base.mbr))
    fail('base.ensemble', 'an ensemble marks the MBR tree of CRF parsers: it needs crf and mbr true');
  if ('union' in base && base.union === true && (base.ensemble?.length ?? 0) === 0)
    fail('base.union', 'a union of lists needs an ensemble (base.ensemble)');
  if ('posteriors' in base && base.posteriors === true && !base.mbr)
    fail('base.posteriors', 'the posteriors come with the MBR parse: it needs mbr true');
  // The PCFG reaches the lists only through the first parser's own MBR tree (adapters/parser.ts).
  if (
    'pcfgWeight' in base &&
    (base.pcfgWeight ?? 0) > 0 &&
    base.crf &&
    !(base.mbr && (base.ensemble?.length ?? 0) === 0)
  )
    fail(
      'base.pcfgWeight',
      base.mbr
        ? "an ensemble's mean leaves the PCFG out: give no weight with base.ensemble"
        : 'the PCFG is mixed into the MBR parse: it needs mbr true',
    );
  if ('latentModel' in base && base.latentModel === true && (base.ensemble?.length ?? 0) > 0)
    fail('base.latentModel', "the latent PCFGs are the single parser's: give no base.ensemble");
  // The PCFG base would ignore the CRF's fields: set to anything but their defaults, they are
  // refused. (A validated config, as distributed jobs carry it, names every default.)
  if ('crf' in base && !base.crf) {
    const raw = rawBase as Record<string, unknown>;
    const crfOnly = CRF_BASE_FIELDS.find((key) => key in raw && raw[key] !== CRF_BASE_DEFAULTS[key]);
    if (crfOnly !== undefined)
      fail(`base.${crfOnly}`, 'applies to the CRF base (crf true); the PCFG has no such setting');
  }
  if ('clusterClasses' in base && base.clusterClasses !== undefined && base.clusterText === undefined)
    fail('base.clusterClasses', 'sets the classes of clusterText: give clusterText too');
  if ('clusterText' in base && base.clusterText !== undefined && base.clusterText !== 'train')
    base.clusterText = at(base.clusterText);
  // Named where it applies, so that the steps' cache keys tell lists with the features apart.
  if ('mbr' in base && base.crf && base.mbr) base.posteriors ??= true;
  if ('crf' in base) {
    // a parser base
    base.treeModel ??= true;
    base.headModel ??= true;
  }
  c.rerankers.forEach((rr, i) => {
    if (rr.type !== 'perceptron') return;
    if (rr.kernel !== undefined) {
      if (c.task === 'parse' && rr.kernel === 'tags')
        fail(`rerankers[${i}].kernel`, "the 'tags' kernel needs task 'tag'");
      if (c.task === 'tag' && rr.kernel === 'tree')
        fail(`rerankers[${i}].kernel`, "the 'tree' kernel needs task 'parse'");
    }
    const kernel = perceptronKernel(rr, c.task);
    const conflict = perceptronKernelConflict(kernel, {
      normalize: rr.normalize,
      wordFeature: rr.wordFeature,
      featureWeight: Math.max(...(rr.featureWeight ?? [0])),
    });
    if (conflict) fail(`rerankers[${i}].${conflict.field}`, conflict.message);
  });
  const names = new Set<string>();
  const rerankers = c.rerankers.map((rr, i) => {
    const name = rr.name ?? defaultRerankerName(rr, c.task);
    if (names.has(name)) fail(`rerankers[${i}].name`, `'${name}' is used twice (give each reranker a distinct name)`);
    names.add(name);
    const filled = rr.type === 'perceptron' ? withKernelDefaults(rr, perceptronKernel(rr, c.task)) : rr;
    if (!(filled.headRules in HEAD_RULE_PRESETS)) return { ...filled, name, headRules: at(filled.headRules) };
    return { ...filled, name };
  });
  const output = at(c.output);
  return {
    ...c,
    base,
    rerankers,
    data: { ...c.data, train: at(c.data.train), dev: at(c.data.dev), test: at(c.data.test), format, columns, label },
    output,
    cache: c.cache !== undefined ? at(c.cache) : resolve(output, 'cache'),
  };
}

/** A perceptron entry with the defaults that depend on its kernel filled in: lambda, and the feature weights tried. */
function withKernelDefaults(rr: z.output<typeof perceptronSchema>, kernel: PerceptronKernel): PerceptronConfig {
  return {
    ...rr,
    lambda: rr.lambda ?? [PERCEPTRON_LAMBDA[kernel === 'tags' ? 'tags' : 'tree']],
    featureWeight: rr.featureWeight ?? (kernel === 'linear' ? [0] : [...PIPELINE_FEATURE_WEIGHTS]),
  };
}

/** A perceptron entry's kernel: the one it names, else the task's own (trees or tag sequences). */
export function perceptronKernel(r: { kernel?: PerceptronKernel }, task: 'parse' | 'tag'): PerceptronKernel {
  return r.kernel ?? (task === 'parse' ? 'tree' : 'tags');
}

export function defaultRerankerName(r: RerankerConfig, task: 'parse' | 'tag'): string {
  if (r.type === 'boost') return 'boosting';
  if (r.type === 'loglinear') return 'log-linear';
  const kernel = perceptronKernel(r, task);
  return kernel === 'linear' ? 'perceptron' : `${kernel === 'tree' ? 'tree' : 'tagging'}-kernel perceptron`;
}

/**
 * Reads and validates a config file (JSON).
 *
 * @example
 * ```ts
 * const config = readPipelineConfig('pipeline.json');   // paths resolve against the file's folder
 * ```
 */
export function readPipelineConfig(file: string): PipelineConfig {
  const text = readTextFile(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `invalid JSON: ${(err as Error).message}`);
  }
  return validatePipelineConfig(value, file);
}

/** The config's JSON Schema (draft 2020-12), for editors and documentation. */
export function pipelineJsonSchema(): Record<string, unknown> {
  // `base` is checked against the task's base schema after the first pass; the published
  // schema lists both, so editors can complete and describe its fields.
  const published = pipelineConfigSchema.extend({
    base: z
      .union([
        parserBaseSchema.describe('task parse: the chart parser'),
        taggerBaseSchema.describe('task tag: the tagger'),
      ])
      .optional()
      .describe('base model options: for parse, the chart parser; for tag, the tagger'),
  });
  return z.toJSONSchema(published, {
    io: 'input',
    unrepresentable: 'any',
    // A grid reads one number or a list (zod sees only the list behind the preprocessing).
    override: ({ zodSchema, jsonSchema }) => {
      const def = defOf(zodSchema as unknown as z.ZodType);
      if (grids.has(zodSchema as unknown as z.ZodType)) {
        const { description } = jsonSchema;
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
        Object.assign(jsonSchema, {
          description,
          anyOf: [{ type: 'number' }, { type: 'array', items: { type: 'number' }, minItems: 1 }],
        });
      } else if (def.type === 'default' && def.innerType && grids.has(def.innerType)) {
        jsonSchema.default = def.defaultValue as never;
      }
    },
  }) as Record<string, unknown>;
}
