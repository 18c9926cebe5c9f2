/**
 * The CRF parser with surface span features (Hall, Durrett & Klein 2014) on one treebank:
 * `DS=ptb-sample npx tsx bench/parser-crf.ts` (DS=floresta-pt for the Portuguese one).
 * Trains on train.mrg (trees of <= MAXTRAIN words), evaluates on dev.mrg after every pass
 * and keeps the best pass (never looks at test), prints the per-pass log, the hashed
 * features' collision rate and dev F1 / parse speed (1 thread, sentences per CPU second);
 * SAVE=file writes the model for `structrank parse` + `structrank eval parse` on test.
 * Env (defaults = the library's CRF defaults): H (Markov order), V (vertical order: 1 = no
 * parent annotation, 2 = parent annotation), BITS (surface hash bits), PRUNE (coarse-to-fine threshold), OPT
 * (adagrad | sgd), DECODE (viterbi | mbr), ETA, SIGMA2, AVG (1 = iterate averaging), EPOCHS, BATCH, THREADS (2), NTRAIN / NDEV (first N trees),
 * RARE (words seen at most N times also get signature tags).
 * CPU seconds are reported because the machine is shared: wall times are noisy.
 */
import { join } from 'node:path';
import { sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { ChartParserModel, CRF_DEFAULTS, type ParserTrainSummary } from '../lib/parser/chart-parser.js';
import type { MarkovOrder } from '../lib/parser/binarize.js';
import { evaluateParser } from '../lib/parser/evaluate.js';
import { treeWords } from '../lib/parser/input.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const env = process.env;
const ds = env.DS ?? 'ptb-sample';
// Unset: undefined, the option's own default (ChartParserModel.train completes it).
const given = (name: string): number | undefined => (env[name] !== undefined ? Number(env[name]) : undefined);
const num = (name: string, fallback: number): number => given(name) ?? fallback;
const maxTrain = num('MAXTRAIN', 40);
const train = readTreesSync(join(shared, ds, 'train.mrg'))
  .filter((t) => treeWords(t).length <= maxTrain)
  .slice(0, num('NTRAIN', Infinity));
const dev = readTreesSync(join(shared, ds, 'dev.mrg')).slice(0, num('NDEV', Infinity));
const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
const cpu0 = process.cpuUsage();
const wall0 = Date.now();
const model = await ChartParserModel.train(train, {
  crf: true,
  markov: num('H', CRF_DEFAULTS.markov) as MarkovOrder,
  parent: env.V !== undefined ? env.V === '2' : CRF_DEFAULTS.parent,
  surfaceBits: num('BITS', CRF_DEFAULTS.surfaceBits),
  prune: num('PRUNE', CRF_DEFAULTS.prune),
  decode: env.DECODE === 'mbr' || env.DECODE === 'viterbi' ? env.DECODE : CRF_DEFAULTS.decode,
  optimizer: env.OPT === 'sgd' ? 'sgd' : 'adagrad',
  eta0: num('ETA', CRF_DEFAULTS.eta0),
  average: env.AVG !== undefined ? env.AVG === '1' : CRF_DEFAULTS.average,
  sigma2: given('SIGMA2'),
  rareThreshold: num('RARE', CRF_DEFAULTS.rareThreshold),
  epochs: num('EPOCHS', CRF_DEFAULTS.epochs),
  batch: given('BATCH'),
  threads: num('THREADS', 2),
  dev,
  summary,
  onPass: (r) =>
    console.log(
      `pass ${r.epoch}/${r.epochs}: ${r.seconds.toFixed(1)} s wall, ${r.cpuSeconds.toFixed(1)} CPU s, objective ${r.objective.toFixed(4)}, dev F1 ${r.devF1?.toFixed(2)}${r.best ? ' (best)' : ''}`,
    ),
});
const cpu = process.cpuUsage(cpu0);
const info = model.info();
console.log(
  `${ds}: ${train.length} training trees (<= ${maxTrain} words), ${info.symbols} symbols, ${info.binaryRules} + ${info.unaryRules} rules, ` +
    `${info.weights} weights; ${summary.surfaceGoldFeatures} gold surface features, ${(100 * summary.surfaceCollisionRate).toFixed(2)}% share a slot; ` +
    `kept pass ${summary.bestEpoch} (dev F1 ${summary.bestDevF1?.toFixed(2)}); training ${((Date.now() - wall0) / 1000).toFixed(0)} s wall, ` +
    `${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s (dev parsing included)`,
);
const c0 = process.cpuUsage();
const r = await evaluateParser(model, dev, { threads: 1 });
const c = process.cpuUsage(c0);
const seconds = (c.user + c.system) / 1e6;
console.log(
  `dev F1 ${r.f1.toFixed(2)} (${r.sentences} sentences, ${r.fallbacks} fallbacks); 1 thread: ${(r.sentences / seconds).toFixed(1)} sentences per CPU s`,
);
if (env.SAVE) model.save(env.SAVE);
