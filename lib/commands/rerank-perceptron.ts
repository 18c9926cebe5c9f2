/**
 * The perceptron side of `structrank train-reranker --method perceptron` and of
 * `structrank rerank` for perceptron models. The command modules stay thin and dispatch
 * here, so other reranking methods plug in beside it.
 */
import { cliSignal } from './signal.js';
import type { OptionValues } from '../options/field.js';
import { perceptronFields, perceptronKernelConflict } from '../options/rerank.js';
import { flagOf } from './options.js';
import { UsageError } from '../errors.js';
import { listKind, readNbestSync, requireSameKind } from '../io/nbest.js';
import { Progress, progressInterval, TrainProgressBar } from '../progress.js';
import {
  formatChosen,
  PerceptronReranker,
  type PerceptronPrediction,
  type PerceptronTrainOptions,
  type RerankEvaluation,
} from '../rerank/perceptron.js';
import { distributedTarget } from '../distributed/gradient.js';
import type { MixWeighting } from '../distributed/mixing.js';
import { rerankerMixing } from '../distributed/rerank-mixing.js';
import { ArtifactStore } from '../distributed/store.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { resolveThreads } from '../native.js';
import { loadHeadRules } from '../io/head-rules-file.js';

function predictionFlag(values: {
  voted?: boolean;
  averaged?: boolean;
  last?: boolean;
}): PerceptronPrediction | undefined {
  const set = (['voted', 'averaged', 'last'] as const).filter((k) => values[k]);
  if (set.length > 1) throw new UsageError('choose one of --voted, --averaged, --last');
  return set[0];
}

function report(label: string, e: RerankEvaluation, metric: string): string {
  return `${label}: ${metric} ${e.f1.toFixed(2)} (base model ${e.baselineF1.toFixed(2)}, oracle ${e.oracleF1.toFixed(2)}) on ${e.sentences} sentences`;
}

/** What `train-reranker --method perceptron` reads: the files and the perceptron's fields. */
export interface PerceptronTrainCli extends OptionValues<typeof perceptronFields> {
  train: string;
  headRules: string;
  dev?: string;
  model: string;
  json?: boolean;
  checkpoint?: string;
  resume?: string;
  /** Parameter mixing (lib/distributed/rerank-mixing.ts): in process, or as jobs with redis + store. */
  mixShards?: number;
  mixWeighting?: MixWeighting;
  redis?: string;
  store?: string;
}

/** Default shards of parameter mixing as jobs (--redis without --mix-shards), as for the tagger. */
const DEFAULT_MIX_SHARDS = 2;

export async function trainPerceptronCli(values: PerceptronTrainCli): Promise<number> {
  const cmd = 'train-reranker';
  const trainFile = values.train;
  const modelFile = values.model;
  const { kernel, wordFeature } = values;
  const sim2 = values.sim2 ?? (wordFeature !== 'none' ? 0.5 : 0);
  const options = {
    kernel,
    prediction: predictionFlag(values) ?? 'averaged',
    epochs: values.epochs,
    chunks: values.chunks,
    lambda: values.lambda,
    beta: values.beta,
    baseWeight: values.baseWeight,
    ...(values.featureWeight > 0
      ? { featureWeight: values.featureWeight, headRules: loadHeadRules(values.headRules) }
      : {}),
    sim1: sim2 > 0 ? 0.5 : 1,
    sim2,
    wordFeature,
    normalize: values.normalize,
    featureSource: values.features,
    primal: !values.dual,
    seed: values.seed,
    shuffle: values.shuffle,
    compressed: values.compress,
    cacheMB: values.cacheMB,
    threads: resolveThreads(values.threads),
    file: trainFile,
    signal: cliSignal(),
    checkpoint: values.checkpoint,
    resume: values.resume,
    mixing: mixingOf(cmd, values),
  };
  if (options.sim2 > 0 && options.wordFeature === 'none') throw new UsageError(`${cmd}: --sim2 needs --word-feature`);
  // With --kernel given, a conflict is a usage error before any input is read.
  const conflict = kernel !== undefined ? perceptronKernelConflict(kernel, options) : undefined;
  if (conflict)
    throw new UsageError(`${cmd}: --${flagOf(conflict.field, perceptronFields[conflict.field])}: ${conflict.message}`);

  const train = readNbestSync(trainFile);
  const dev = values.dev ? readNbestSync(values.dev) : undefined;
  // Checked before training: the dev evaluation would only fail after the model is saved.
  if (values.dev) requireSameKind(values.dev, listKind(dev), trainFile, listKind(train));
  // Examples are not epochs: off a terminal no line per example (a bar on one).
  const progress = new TrainProgressBar('train', {
    lossName: 'mistakes',
    logEvery: progressInterval(),
    phase: 'example',
  });
  const started = Date.now();
  const reranker = await PerceptronReranker.train(train, options, { onProgress: progress.onProgress });
  const info = reranker.info();
  progress.finish(`mistakes ${info.mistakes}`);
  const seconds = (Date.now() - started) / 1000;
  reranker.save(modelFile);
  const e = dev
    ? await reranker.evaluate(dev, { threads: options.threads, signal: options.signal, file: values.dev })
    : undefined;
  if (values.json) {
    const devScore = e
      ? { metric: metricName(reranker), value: e.f1, base: e.baselineF1, oracle: e.oracleF1, sentences: e.sentences }
      : undefined;
    console.log(
      JSON.stringify({
        method: 'perceptron',
        model: modelFile,
        sentences: train.length,
        seconds,
        ...info,
        kernel: reranker.meta.kernel,
        dev: devScore,
      }),
    );
    return 0;
  }
  // A mixed model is coefficients, not a record of steps and mistakes.
  const how = options.mixing
    ? `parameter mixing over ${values.mixShards ?? DEFAULT_MIX_SHARDS} shards (${values.mixWeighting ?? 'uniform'}), ${info.support} support candidates`
    : `${info.steps} steps, ${info.mistakes} mistakes, ${info.support} support candidates, ${info.chunks} chunk(s)`;
  const plus = reranker.meta.featureWeight ? ` plus reranking features (weight ${reranker.meta.featureWeight})` : '';
  console.log(
    `trained ${reranker.meta.kernel}-kernel perceptron${plus} on ${train.length} sentences in ${seconds.toFixed(1)}s: ${how}; model ${modelFile}`,
  );
  if (e) console.log(report(`dev (${reranker.meta.prediction})`, e, metricName(reranker)));
  return 0;
}

/** The `mixing` hook of --mix-shards / --redis --store, or undefined for ordinary training. */
function mixingOf(cmd: string, values: PerceptronTrainCli): PerceptronTrainOptions['mixing'] {
  const target = distributedTarget(cmd, values);
  if (target === undefined && values.mixShards === undefined) return undefined;
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  return rerankerMixing({
    shards: values.mixShards ?? DEFAULT_MIX_SHARDS,
    weighting: values.mixWeighting ?? 'uniform',
    seed: values.seed,
    threads: resolveThreads(values.threads),
    queue: target ? { redis: target.redis, store: new ArtifactStore(target.store), log } : undefined,
    signal: cliSignal(),
  });
}

function metricName(r: PerceptronReranker): string {
  if (r.meta.task === 'trees') return 'F1';
  return r.meta.tagScoring === 'accuracy' ? 'accuracy' : 'chunk F1';
}

/** What `rerank` reads for a perceptron model. */
export interface PerceptronRerankCli {
  model: string;
  input: string;
  out: string;
  voted: boolean;
  averaged: boolean;
  last: boolean;
  compress: boolean;
  threads: number;
  json?: boolean;
}

export async function rerankPerceptronCli(values: PerceptronRerankCli): Promise<number> {
  const { model: modelFile, input, out } = values;
  const threads = resolveThreads(values.threads);
  const prediction = predictionFlag(values);
  const reranker = await PerceptronReranker.load(modelFile);
  const sentences = readNbestSync(input);
  const progress = new Progress({ label: 'rerank', unit: 'sentences', total: sentences.length });
  const started = Date.now();
  const options = { prediction, threads, compressed: values.compress, signal: cliSignal(), file: input };
  const withGold = sentences.length > 0 && sentences.every((s) => s.gold !== undefined);
  let chosen: Int32Array;
  let evaluation: RerankEvaluation | undefined;
  if (withGold) {
    evaluation = await reranker.evaluate(sentences, options);
    chosen = evaluation.chosen;
  } else chosen = (await reranker.choose(sentences, options)).chosen;
  progress.update(sentences.length);
  progress.finish();
  await writeTextAtomic(out, [formatChosen(sentences, chosen, input)]);
  const candidates = sentences.reduce((n, s) => n + s.candidates.length, 0);
  const seconds = (Date.now() - started) / 1000;
  // With --out - the chosen candidates are standard output: the summary goes to stderr.
  const say = out === '-' ? console.error : console.log;
  if (values.json) {
    const score = evaluation
      ? {
          metric: metricName(reranker),
          reranked: evaluation.f1,
          base: evaluation.baselineF1,
          oracle: evaluation.oracleF1,
        }
      : undefined;
    say(JSON.stringify({ sentences: sentences.length, candidates, method: 'perceptron', out, seconds, score }));
    return 0;
  }
  say(`reranked ${sentences.length} sentences (${candidates} candidates) in ${seconds.toFixed(2)}s; wrote ${out}`);
  if (evaluation) say(report(`${input} (${prediction ?? reranker.meta.prediction})`, evaluation, metricName(reranker)));
  return 0;
}
