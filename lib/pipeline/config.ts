/**
 * The pipeline's configuration: a JSON file validated here, every field with a documented
 * default. `pipelineConfigSchema` is a zod schema; `pipelineJsonSchema()` publishes it as a
 * JSON Schema. A bad field is reported by its path, e.g.
 * `pipeline.json: rerankers[1].lambda: expected a number or a list of numbers`.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { readTextFile } from '../io/lines.js';

/** A hyper-parameter grid: one number or a non-empty list; every value is tried on dev. */
const grid = (what: string, check: (n: number) => boolean = () => true, range = '') =>
  z.preprocess(
    (v) => (typeof v === 'number' ? [v] : v),
    z
      .array(z.number({ error: `expected a number${range}` }).refine(check, { message: `expected a number${range}` }), {
        error: 'expected a number or a list of numbers',
      })
      .min(1, { message: `the ${what} grid needs at least one value` }),
  );

const positiveInt = (what: string) => z.number({ error: `expected a positive integer (${what})` }).int({ message: `expected a positive integer (${what})` }).min(1, { message: `expected a positive integer (${what})` });
const nonNegativeInt = (what: string) => z.number({ error: `expected a non-negative integer (${what})` }).int({ message: `expected a non-negative integer (${what})` }).min(0, { message: `expected a non-negative integer (${what})` });

export const dataSchema = z.strictObject({
  /** Training file: reranker training candidates come from it by jackknifing. */
  train: z.string({ error: 'expected a file path' }).min(1),
  /** Dev file: hyper-parameters (eps and N; lambda and beta; C) are chosen on it. */
  dev: z.string({ error: 'expected a file path' }).min(1),
  /** Test file: the final evaluation. */
  test: z.string({ error: 'expected a file path' }).min(1),
  /** 'trees' (bracketed treebank, task parse) or 'conll' (columns, task tag). Default: from the task. */
  format: z.enum(['trees', 'conll'], { error: "expected 'trees' or 'conll'" }).optional(),
  /** CoNLL column names, e.g. ["word", "pos", "ne"] (default ["word", "pos", "tag"]). */
  columns: z.array(z.string({ error: 'expected a column name' }), { error: 'expected a list of column names' }).min(2).optional(),
  /** The CoNLL column to predict (default: the last column). */
  label: z.string({ error: 'expected a column name' }).optional(),
  /** Use only the first N training sentences (after the length filter). */
  trainLimit: positiveInt('sentences').optional(),
  /** Use only the first N dev / test sentences. */
  devLimit: positiveInt('sentences').optional(),
  testLimit: positiveInt('sentences').optional(),
  /** Keep only sentences of at most this many words (all three sets). */
  maxLength: positiveInt('words').optional(),
});

export const parserBaseSchema = z.strictObject({
  /** Markov order of the grammar's binarization (1 or 2, default 2). */
  markov: z.union([z.literal(1), z.literal(2)], { error: 'expected 1 or 2' }).default(2),
  /** Train the CRF-CFG on top of the PCFG (default false: the generative PCFG). */
  crf: z.boolean({ error: 'expected true or false' }).default(false),
  /** CRF epochs (default 3). */
  epochs: positiveInt('epochs').default(3),
  /** Words seen at most this often also train the unknown-word signatures (default 1). */
  rareThreshold: nonNegativeInt('count').default(1),
});

export const taggerBaseSchema = z.strictObject({
  /** Tagger algorithm: 'crf' (default; its k-best lists carry log-probabilities) or 'perceptron'. */
  algo: z.enum(['crf', 'perceptron', 'maxent'], { error: "expected 'crf', 'perceptron' or 'maxent'" }).default('crf'),
  /** Label order (1 = bigram, 2 = trigram; default 1). */
  order: z.union([z.literal(1), z.literal(2)], { error: 'expected 1 or 2' }).default(1),
  /** Epochs or L-BFGS iterations (default 50). */
  epochs: positiveInt('epochs').default(50),
  /** CRF optimizer: 'lbfgs' (default) or 'sgd'. */
  optimizer: z.enum(['lbfgs', 'sgd'], { error: "expected 'lbfgs' or 'sgd'" }).default('lbfgs'),
  /** L2 weight (default 1). */
  c2: z.number({ error: 'expected a number' }).min(0).default(1),
  /** A default template set name ('pos', 'chunk', 'ner'); default: chosen by the tagger. */
  templates: z.string({ error: 'expected a template set name' }).optional(),
});

const boostSchema = z.strictObject({
  type: z.literal('boost'),
  /** Name in the results table (default 'boosting'). */
  name: z.string().optional(),
  /** Boosting rounds trained; N <= rounds is chosen on dev (default 20000). */
  rounds: positiveInt('rounds').default(20_000),
  /** Smoothing values eps tried; the best on dev wins (default [0.0025]). */
  eps: grid('eps', (n) => n >= 0, ' >= 0').default([0.0025]),
  /** Pair weights: 'score' (S = Score(x1) - Score(xj), eq. 22) or 'uniform' (S = 1, eq. 23). */
  weighting: z.enum(['score', 'uniform'], { error: "expected 'score' or 'uniform'" }).default('score'),
  /** Feature count cutoff: keep features seen on candidates of >= cutoff sentences (default 5). */
  cutoff: nonNegativeInt('sentences').default(5),
});

const perceptronSchema = z.strictObject({
  type: z.literal('perceptron'),
  name: z.string().optional(),
  /** 'tree' (parsing), 'tags' (tagging) or 'linear' (the reranking features); default: from the task. */
  kernel: z.enum(['tree', 'tags', 'linear'], { error: "expected 'tree', 'tags' or 'linear'" }).optional(),
  /** Kernel decay values tried on dev (default [0.4]); 0 < lambda <= 1. */
  lambda: grid('lambda', (n) => n > 0 && n <= 1, ' in (0, 1]').default([0.4]),
  /** Weights of the base-model term beta L(x) L(y) tried on dev (default [0.2]). */
  beta: grid('beta', (n) => Number.isFinite(n), '').default([0.2]),
  /** Fixed base-model priors g (every hypothesis adds g L(x)) tried on dev (default [0]). */
  baseWeight: grid('baseWeight', (n) => n >= 0, ' >= 0').default([0]),
  /** Passes over the training data (default 1). */
  epochs: positiveInt('epochs').default(1),
  /** 'voted' (default) or 'averaged' prediction. */
  mode: z.enum(['voted', 'averaged', 'last'], { error: "expected 'voted', 'averaged' or 'last'" }).default('voted'),
  /** Independent perceptrons trained on chunks of the data and voted together (default 1). */
  chunks: positiveInt('chunks').default(1),
  /**
   * Tagging kernel: a word class for the Sim2 term ('caps', 'digits', 'suffix2', 'suffix3',
   * 'shape'); with one, Delta = (1 + 0.5 Sim1 + 0.5 Sim2)(1 + lambda Delta'), seed 000 section 5
   * (default 'none': the plain kernel, 1 + Sim1).
   */
  wordFeature: z.enum(['none', 'caps', 'digits', 'suffix2', 'suffix3', 'shape'], {
    error: "expected 'none', 'caps', 'digits', 'suffix2', 'suffix3' or 'shape'",
  }).default('none'),
  /**
   * Tagging kernel: the normalized kernel K(a, b) / sqrt(K(a, a) K(b, b)) (default false).
   * Normalized values are at most 1, so beta's useful range shrinks with them.
   */
  normalize: z.boolean({ error: 'expected true or false' }).default(false),
});

const loglinearSchema = z.strictObject({
  type: z.literal('loglinear'),
  name: z.string().optional(),
  /** Gaussian prior weights C tried on dev (default [1]). */
  l2: grid('l2', (n) => n >= 0, ' >= 0').default([1]),
  /** L-BFGS iterations (default 200). */
  iterations: positiveInt('iterations').default(200),
  cutoff: nonNegativeInt('sentences').default(5),
});

export const rerankerSchema = z.discriminatedUnion('type', [boostSchema, perceptronSchema, loglinearSchema], {
  error: "expected a reranker object with type 'boost', 'perceptron' or 'loglinear'",
});

export const pipelineConfigSchema = z.strictObject({
  /** 'parse' (constituency parsing) or 'tag' (sequence tagging, e.g. NER). */
  task: z.enum(['parse', 'tag'], { error: "expected 'parse' or 'tag'" }),
  data: dataSchema,
  /** Jackknifing: train is split into this many folds (default 5). */
  folds: z.number({ error: 'expected an integer >= 2' }).int({ message: 'expected an integer >= 2' }).min(2, { message: 'expected an integer >= 2' }).default(5),
  /** Candidates per sentence (default 20). */
  nbest: positiveInt('candidates').default(20),
  /** Base model options: for parse, the chart parser; for tag, the tagger. */
  base: z.looseObject({}, { error: 'expected an object of base-model options' }).optional(),
  /** The rerankers to train (default: boosting and log-linear). */
  rerankers: z.array(rerankerSchema, { error: 'expected a list of rerankers' }).default([
    { type: 'boost', rounds: 20_000, eps: [0.0025], weighting: 'score', cutoff: 5 },
    { type: 'loglinear', l2: [1], iterations: 200, cutoff: 5 },
  ]),
  /** Worker threads (0 = all cores, the default). */
  threads: nonNegativeInt('threads').default(0),
  /** Output folder: results.json, report.html, step cache (default 'structrank-pipeline'). */
  output: z.string({ error: 'expected a folder path' }).default('structrank-pipeline'),
  /** Step cache folder (default <output>/cache). */
  cache: z.string({ error: 'expected a folder path' }).optional(),
  /** Seed for fold shuffling and training (default 1). */
  seed: z.number({ error: 'expected an integer' }).int().default(1),
});

export type PipelineConfigInput = z.input<typeof pipelineConfigSchema>;
export type RerankerConfig = z.output<typeof rerankerSchema>;
export type BoostConfig = z.output<typeof boostSchema>;
export type PerceptronConfig = z.output<typeof perceptronSchema>;
export type LoglinearConfig = z.output<typeof loglinearSchema>;
export type ParserBaseConfig = z.output<typeof parserBaseSchema>;
export type TaggerBaseConfig = z.output<typeof taggerBaseSchema>;

/** A validated config with every default filled in and paths resolved. */
export interface PipelineConfig extends Omit<z.output<typeof pipelineConfigSchema>, 'base' | 'data' | 'cache'> {
  data: z.output<typeof dataSchema> & { format: 'trees' | 'conll'; columns: string[]; label: string };
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
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.code === 'invalid_union' && 'discriminator' in issue && issue.discriminator) return "expected type 'boost', 'perceptron' or 'loglinear'";
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required field is missing';
  if (issue.code === 'invalid_value' && issue.input === undefined) return `required field is missing (${issue.message})`;
  if (issue.code === 'invalid_value' && issue.message.startsWith('Invalid input')) return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
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
  const format = c.data.format ?? (c.task === 'parse' ? 'trees' : 'conll');
  const fail = (path: string, problem: string): never => {
    throw new InputError(file, undefined, `${path}: ${problem}`);
  };
  if (c.task === 'parse' && format !== 'trees') fail('data.format', "task 'parse' needs format 'trees'");
  if (c.task === 'tag' && format !== 'conll') fail('data.format', "task 'tag' needs format 'conll'");
  const columns = c.data.columns ?? ['word', 'pos', 'tag'];
  const label = c.data.label ?? columns[columns.length - 1];
  if (c.task === 'tag' && !columns.includes(label)) fail('data.label', `'${label}' is not one of data.columns (${columns.join(', ')})`);
  let base: ParserBaseConfig | TaggerBaseConfig;
  const rawBase = (value as { base?: unknown }).base ?? {};
  const baseSchema = c.task === 'parse' ? parserBaseSchema : taggerBaseSchema;
  const b = baseSchema.safeParse(rawBase, { reportInput: true });
  if (!b.success) {
    const issue = b.error.issues[0];
    fail(issue.path.length > 0 ? `base.${formatPath(issue.path)}` : 'base', issueMessage(issue));
  }
  base = (b as { data: ParserBaseConfig | TaggerBaseConfig }).data;
  c.rerankers.forEach((rr, i) => {
    if (rr.type !== 'perceptron') return;
    if (rr.kernel !== undefined) {
      if (c.task === 'parse' && rr.kernel === 'tags') fail(`rerankers[${i}].kernel`, "the 'tags' kernel needs task 'tag'");
      if (c.task === 'tag' && rr.kernel === 'tree') fail(`rerankers[${i}].kernel`, "the 'tree' kernel needs task 'parse'");
    }
    const tagging = (rr.kernel ?? (c.task === 'parse' ? 'tree' : 'tags')) === 'tags';
    if (rr.wordFeature !== 'none' && !tagging) fail(`rerankers[${i}].wordFeature`, 'a word feature (Sim2) needs the tagging kernel');
    if (rr.normalize && !tagging) fail(`rerankers[${i}].normalize`, 'normalization applies to the tagging kernel');
  });
  const names = new Set<string>();
  const rerankers = c.rerankers.map((rr, i) => {
    const name = rr.name ?? defaultRerankerName(rr, c.task);
    if (names.has(name)) fail(`rerankers[${i}].name`, `'${name}' is used twice (give each reranker a distinct name)`);
    names.add(name);
    return { ...rr, name };
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

export function defaultRerankerName(r: RerankerConfig, task: 'parse' | 'tag'): string {
  if (r.type === 'boost') return 'boosting';
  if (r.type === 'loglinear') return 'log-linear';
  const kernel = r.kernel ?? (task === 'parse' ? 'tree' : 'tags');
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
  return z.toJSONSchema(pipelineConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
