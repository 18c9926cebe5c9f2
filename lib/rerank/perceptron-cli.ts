/**
 * The perceptron side of `structrank train-reranker --method perceptron` and of
 * `structrank rerank` for perceptron models. The command modules stay thin and dispatch
 * here, so other reranking methods plug in beside it.
 */
import { intOption, numberOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { UsageError, InputError } from '../errors.js';
import { listKind, readNbestSync, requireSameKind } from '../io/nbest.js';
import { Progress } from '../progress.js';
import { formatChosen, PerceptronReranker, type PerceptronKernel, type PerceptronPrediction, type RerankEvaluation } from './perceptron.js';
import { checkOutputPath, writeTextAtomic } from '../io/atomic-writer.js';
import { resolveThreads } from '../native.js';

export const perceptronTrainUsage = `structrank train-reranker --method perceptron --train nbest.jsonl --model M [options]
  --kernel tree|tags|linear  kernel (default: tree for tree candidates, tags for tag candidates)
  --voted | --averaged | --last  prediction (default --averaged)
  --epochs T          passes over the training data (default 1)
  --chunks k          train k perceptrons on k parts in parallel, vote over all (default 1)
  --lambda x          tree / tagging kernel decay (default 0.4 trees, 0.5 tags)
  --beta y            weight of the base model: beta*L(x)*L(y) + K(x,y) (default 0)
  --base-weight g     fixed prior on the base model: every hypothesis adds g*L(x) (default 0)
  --sim2 w --word-feature caps|digits|suffix2|suffix3|shape  tagging kernel word-class term
  --normalize         tagging kernel: K(a,b)/sqrt(K(a,a)K(b,b)) (beta's term is added after)
  --features file|builtin|auto   linear kernel features (default auto: the file's when present)
  --dual              linear kernel: train the dual form (default: primal, same decisions)
  --seed n            shuffling seed (default 1); --no-shuffle keeps file order
  --cache-mb n        bound on cached kernel values (default 512)
  --no-compress       tree and tagging kernels: train with kernel sums per support candidate, not the DAG or shared suffixes
  --dev nbest.jsonl   report dev F1 after training
  --threads N         threads (default all cores)`;

export const perceptronRerankUsage = `structrank rerank --model M --input nbest.jsonl --out best.mrg|best.conll [options]
  --voted | --averaged | --last  prediction (default: the model's)
  --no-compress       tree and tag models: one kernel call per support candidate, not the DAG or shared suffixes
  --threads N         threads (default all cores)`;

function predictionFlag(values: { voted?: boolean; averaged?: boolean; last?: boolean }): PerceptronPrediction | undefined {
  const set = (['voted', 'averaged', 'last'] as const).filter((k) => values[k]);
  if (set.length > 1) throw new UsageError('choose one of --voted, --averaged, --last');
  return set[0];
}

function report(label: string, e: RerankEvaluation, metric: string): string {
  return `${label}: ${metric} ${e.f1.toFixed(2)} (base model ${e.baselineF1.toFixed(2)}, oracle ${e.oracleF1.toFixed(2)}) on ${e.sentences} sentences`;
}

export async function trainPerceptronCli(args: string[]): Promise<number> {
  const cmd = 'train-reranker';
  const { values } = parseCommandArgs(
    cmd,
    args,
    {
      method: { type: 'string' },
      kernel: { type: 'string' },
      voted: { type: 'boolean' },
      averaged: { type: 'boolean' },
      last: { type: 'boolean' },
      epochs: { type: 'string' },
      chunks: { type: 'string' },
      lambda: { type: 'string' },
      beta: { type: 'string' },
      'base-weight': { type: 'string' },
      sim2: { type: 'string' },
      'word-feature': { type: 'string' },
      normalize: { type: 'boolean' },
      features: { type: 'string' },
      dual: { type: 'boolean' },
      seed: { type: 'string' },
      'no-shuffle': { type: 'boolean' },
      'cache-mb': { type: 'string' },
      'no-compress': { type: 'boolean' },
      train: { type: 'string' },
      dev: { type: 'string' },
      model: { type: 'string' },
      threads: { type: 'string' },
    },
    false,
  );
  const trainFile = requireOption(cmd, values.train, 'train');
  const modelFile = requireOption(cmd, values.model, 'model');
  checkOutputPath(modelFile);
  const kernel = values.kernel as PerceptronKernel | undefined;
  if (kernel !== undefined && !['tree', 'tags', 'linear'].includes(kernel)) throw new UsageError(`${cmd}: --kernel must be tree, tags or linear`);
  const features = values.features;
  if (features !== undefined && !['file', 'builtin', 'auto'].includes(features)) throw new UsageError(`${cmd}: --features must be file, builtin or auto`);
  const wordFeature = values['word-feature'];
  if (wordFeature !== undefined && !['caps', 'digits', 'suffix2', 'suffix3', 'shape', 'none'].includes(wordFeature)) {
    throw new UsageError(`${cmd}: --word-feature must be caps, digits, suffix2, suffix3, shape or none`);
  }
  const sim2 = numberOption(cmd, values.sim2, 'sim2', wordFeature && wordFeature !== 'none' ? 0.5 : 0, (n) => n >= 0);
  const options = {
    kernel,
    prediction: predictionFlag(values) ?? 'averaged',
    epochs: intOption(cmd, values.epochs, 'epochs', 1, 1),
    chunks: intOption(cmd, values.chunks, 'chunks', 1, 1),
    lambda: values.lambda === undefined ? undefined : numberOption(cmd, values.lambda, 'lambda', 0.4, (n) => n > 0 && n <= 1),
    beta: numberOption(cmd, values.beta, 'beta', 0),
    baseWeight: numberOption(cmd, values['base-weight'], 'base-weight', 0),
    sim1: sim2 > 0 ? 0.5 : 1,
    sim2,
    wordFeature: (wordFeature ?? 'none') as 'none',
    normalize: values.normalize ?? false,
    featureSource: (features ?? 'auto') as 'auto',
    primal: !values.dual,
    seed: intOption(cmd, values.seed, 'seed', 1, 0),
    shuffle: !values['no-shuffle'],
    compressed: !values['no-compress'],
    cacheMB: numberOption(cmd, values['cache-mb'], 'cache-mb', 512, (n) => n >= 0),
    threads: resolveThreads(intOption(cmd, values.threads, 'threads', 0, 0)),
    file: trainFile,
    signal: cliSignal(),
  };
  if (options.sim2 > 0 && options.wordFeature === 'none') throw new UsageError(`${cmd}: --sim2 needs --word-feature`);
  if (options.normalize && kernel !== undefined && kernel !== 'tags') throw new UsageError(`${cmd}: --normalize applies to the tagging kernel (--kernel tags)`);

  const train = readNbestSync(trainFile);
  const dev = values.dev ? readNbestSync(values.dev) : undefined;
  // Checked before training: the dev evaluation would only fail after the model is saved.
  if (values.dev) requireSameKind(values.dev, listKind(dev), trainFile, listKind(train));
  let progress: Progress | undefined;
  const started = Date.now();
  const reranker = await PerceptronReranker.train(train, {
    ...options,
    onProgress: (p) => {
      progress ??= new Progress({ label: 'train', unit: 'examples', total: p.total });
      progress.update(p.done, `mistakes ${p.mistakes}`);
    },
  });
  const info = reranker.info();
  progress?.finish(`mistakes ${info.mistakes}`);
  const seconds = (Date.now() - started) / 1000;
  reranker.save(modelFile);
  console.log(
    `trained ${reranker.meta.kernel}-kernel perceptron on ${train.length} sentences in ${seconds.toFixed(1)}s: ` +
      `${info.steps} steps, ${info.mistakes} mistakes, ${info.support} support candidates, ${info.chunks} chunk(s); model ${modelFile}`,
  );
  if (dev) {
    const e = await reranker.evaluate(dev, { threads: options.threads, signal: options.signal, file: values.dev });
    console.log(report(`dev (${reranker.meta.prediction})`, e, metricName(reranker)));
  }
  return 0;
}

function metricName(r: PerceptronReranker): string {
  if (r.meta.task === 'trees') return 'F1';
  return r.meta.tagScoring === 'accuracy' ? 'accuracy' : 'chunk F1';
}

export async function rerankPerceptronCli(args: string[]): Promise<number> {
  const cmd = 'rerank';
  const { values } = parseCommandArgs(
    cmd,
    args,
    {
      model: { type: 'string' },
      input: { type: 'string' },
      out: { type: 'string' },
      voted: { type: 'boolean' },
      averaged: { type: 'boolean' },
      last: { type: 'boolean' },
      'no-compress': { type: 'boolean' },
      threads: { type: 'string' },
    },
    false,
  );
  const modelFile = requireOption(cmd, values.model, 'model');
  const input = requireOption(cmd, values.input, 'input');
  const out = requireOption(cmd, values.out, 'out');
  checkOutputPath(out);
  const threads = resolveThreads(intOption(cmd, values.threads, 'threads', 0, 0));
  const prediction = predictionFlag(values);
  const reranker = PerceptronReranker.load(modelFile);
  const sentences = readNbestSync(input);
  const progress = new Progress({ label: 'rerank', unit: 'sentences', total: sentences.length });
  const started = Date.now();
  const options = { prediction, threads, compressed: !values['no-compress'], signal: cliSignal(), file: input };
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
  say(`reranked ${sentences.length} sentences (${candidates} candidates) in ${seconds.toFixed(2)}s; wrote ${out}`);
  if (evaluation) say(report(`${input} (${prediction ?? reranker.meta.prediction})`, evaluation, metricName(reranker)));
  return 0;
}
