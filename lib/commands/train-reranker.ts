import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { UsageError } from '../errors.js';
import { listKind, requireSameKind } from '../io/nbest.js';
import { buildFeatureTable, selectFeatures } from '../rerank/feature-table.js';
import { loadSentenceFeatures, requireScores, tableData } from '../rerank/inputs.js';
import { saveReranker } from '../rerank/reranker.js';
import { rerankerTrainers } from '../rerank/trainers.js';
import { perceptronTrainUsage, trainPerceptronCli } from '../rerank/perceptron-cli.js';
import { checkOutputPath } from '../io/atomic-writer.js';
import { resolveThreads } from '../native.js';

const usage = `structrank train-reranker --method ${[...Object.keys(rerankerTrainers), 'perceptron'].join('|')} --train nbest.jsonl|feats.bin [--dev nbest.jsonl|feats.bin]
    --model M [--rounds 100000] [--eps 0.0025[,0.001,...]] [--weights score|uniform] [--l2 1[,10,...]]
    [--cutoff 5] [--dev-step N] [--threads N]

boost      ExpLoss boosting with the sparse feature-selection algorithm (seed 002 figure 4);
           every round is kept, N (and eps, when several are given) are chosen on --dev.
logloss    LogLoss feature selection (seed 002 section 4.6; slow); --rounds defaults to 1000,
           --l2 is the penalty on selected weights.
loglinear  log-linear reranker over all features, Gaussian prior C (--l2; several values are
           tried and the best on --dev is kept), L-BFGS; --rounds = max iterations (200).
N-best files carrying trees without features get the SPEC section 7 features, with the
count --cutoff (features on candidates of >= cutoff training sentences).

${perceptronTrainUsage}`;

/** The value of --method (perceptron has its own options, parsed by its module). */
function methodOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--method') return args[i + 1];
    if (args[i].startsWith('--method=')) return args[i].slice('--method='.length);
  }
  return undefined;
}

function numberList(flag: string, value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const out = value.split(',').map((s) => (s.trim() === '' ? Number.NaN : Number(s)));
  if (out.length === 0 || out.some((n) => !Number.isFinite(n) || n < 0)) throw new UsageError(`train-reranker: invalid value for --${flag}: '${value}'`);
  return out;
}

const command: Command = {
  name: 'train-reranker',
  summary: 'train a reranker (boosting, LogLoss selection, log-linear, perceptron) on n-best lists',
  usage,
  async run(args) {
    if (methodOf(args) === 'perceptron') return trainPerceptronCli(args);
    const { values } = parseCommandArgs('train-reranker', args, {
      method: { type: 'string' }, train: { type: 'string' }, dev: { type: 'string' }, model: { type: 'string' },
      rounds: { type: 'string' }, eps: { type: 'string' }, weights: { type: 'string' }, l2: { type: 'string' },
      cutoff: { type: 'string' }, 'dev-step': { type: 'string' }, threads: { type: 'string' },
    }, false);
    const method = requireOption('train-reranker', values.method, 'method');
    const trainer = rerankerTrainers[method];
    if (!trainer) throw new UsageError(`train-reranker: unknown --method '${method}' (one of: ${[...Object.keys(rerankerTrainers), 'perceptron'].join(', ')})`);
    const trainFile = requireOption('train-reranker', values.train, 'train');
    const modelFile = requireOption('train-reranker', values.model, 'model');
    checkOutputPath(modelFile);
    const weighting = values.weights ?? 'score';
    if (weighting !== 'score' && weighting !== 'uniform') throw new UsageError(`train-reranker: --weights must be score or uniform`);
    const threads = resolveThreads(intOption('train-reranker', values.threads, 'threads', 0));
    const cutoff = intOption('train-reranker', values.cutoff, 'cutoff', 5, 1);
    const rounds = values.rounds === undefined ? undefined : intOption('train-reranker', values.rounds, 'rounds', 0, 1);
    const devStep = values['dev-step'] === undefined ? undefined : intOption('train-reranker', values['dev-step'], 'dev-step', 1, 1);
    const signal = cliSignal();

    const train = await loadSentenceFeatures(trainFile, { threads, signal });
    const dictionary = selectFeatures(train.features, cutoff);
    const trainTable = buildFeatureTable(train.features, dictionary, cutoff);
    requireScores(trainFile, trainTable);
    // Trees or tag sequences; unknown when --train is a feature table.
    const kind = listKind(train.sentences);
    let dev;
    if (values.dev) {
      const d = await loadSentenceFeatures(values.dev, { threads, signal });
      requireSameKind(values.dev, listKind(d.sentences), trainFile, kind);
      const devTable = buildFeatureTable(d.features, dictionary);
      requireScores(values.dev, devTable);
      dev = tableData(devTable, threads);
    }
    const model = await trainer({
      train: tableData(trainTable, threads), dev, dictionary,
      options: { rounds, eps: numberList('eps', values.eps), l2: numberList('l2', values.l2), weighting, devStep, threads, signal },
    });
    model.info.cutoff = cutoff;
    model.info.trainSentences = trainTable.ids.length;
    model.info.features = dictionary.length;
    if (kind) model.info.candidates = kind;
    saveReranker(modelFile, model);
    const facts = Object.entries(model.info)
      .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(6) : v}`)
      .join(' ');
    console.log(`${method}: ${model.names.length} features with non-zero weight -> ${modelFile} (${facts})`);
  },
};
export default command;
