import { z } from 'zod';
import { defineCommand } from './command.js';
import { firstGivenFlag } from './options.js';
import { option } from '../options/field.js';
import { checkpointFields, json, optionalFile, requiredFile } from '../options/common.js';
import { linearRerankerFields, perceptronFields } from '../options/rerank.js';
import { trainFields } from '../options/distributed.js';
import { cliSignal } from './signal.js';
import { UsageError } from '../errors.js';
import { listKind, requireSameKind } from '../io/nbest.js';
import { loadFeatureRows, requireScores, tableData, tableOver, trainingTable } from '../rerank/inputs.js';
import { linearTrainers } from '../rerank/trainers.js';
import { trainLinearReranker } from '../rerank/linear-reranker.js';
import { trainPerceptronCli } from './rerank-perceptron.js';
import { claimOutputs } from './claim.js';
import { loadHeadRules } from '../io/head-rules-file.js';
import { resolveThreads } from '../native.js';

const METHODS = [...Object.keys(linearTrainers), 'perceptron'];
// Both methods take --threads; the other options apply to one side only.
// --threads and --head-rules apply to every method (the perceptron's with --feature-weight).
const { threads, headRules, ...linearOnly } = linearRerankerFields;
// Parameter mixing of the perceptron (in process or as jobs): train-tagger's fields less the CRF's.
const { gradientShards: _crfOnly, ...mixingFields } = trainFields;
const perceptronOnly: Omit<typeof perceptronFields, 'threads'> & typeof mixingFields = {
  ...perceptronFields,
  ...mixingFields,
};
delete (perceptronOnly as Partial<typeof perceptronFields>).threads;

const command = defineCommand({
  description: `boost      ExpLoss boosting with sparse feature selection (Collins and Koo 2005, figure 4);
           every round is kept, N (and eps, when several are given) are chosen on --dev.
logloss    LogLoss feature selection (slow); --l2 is the penalty on selected weights.
loglinear  log-linear reranker over all features, Gaussian prior C (--l2; several values are
           tried and the best on --dev is kept), L-BFGS; --rounds = max iterations.
perceptron the kernel perceptron (tree, tagging or linear kernel) over the candidates.
N-best files carrying trees without features get the tree feature templates, with the
count --cutoff (features on candidates of >= cutoff training sentences) and the head table
of --head-rules (format: docs/trees-and-evalb.md); its coverage of the training trees is
printed, with a warning under 90%.`,
  options: {
    method: option(z.string(), 'the reranker to train', { value: METHODS.join('|') }),
    train: requiredFile(
      'training n-best lists (JSON Lines) or a feature table from `features`',
      'nbest.jsonl|feats.bin',
    ),
    dev: optionalFile(
      'dev n-best lists or feature table: chooses N rounds, eps and C (perceptron: reports dev F1)',
      'nbest.jsonl|feats.bin',
    ),
    model: requiredFile('model file to write', 'M'),
    ...linearOnly,
    ...perceptronOnly,
    headRules,
    threads,
    ...checkpointFields,
    json: option(json, 'print the model summary (and the dev score) as JSON'),
  },
  optionGroups: {
    'boost, logloss and loglinear options:': Object.keys(linearOnly),
    'perceptron options:': Object.keys(perceptronOnly),
  },
  examples: [
    'structrank train-reranker --method boost --train train.nbest.jsonl --dev dev.nbest.jsonl --model boost.model --rounds 20000 --eps 0.001,0.0025',
    'structrank train-reranker --method loglinear --train train.feats --dev dev.feats --model loglinear.model --l2 1,10',
    'structrank train-reranker --method perceptron --kernel tree --train train.nbest.jsonl --model perceptron.model --voted',
  ],
  async run(values, { given }) {
    const method = values.method;
    const perceptron = method === 'perceptron';
    if (linearTrainers[method] === undefined && !perceptron)
      throw new UsageError(`train-reranker: unknown --method '${method}' (one of: ${METHODS.join(', ')})`);
    const wrong = firstGivenFlag(perceptron ? linearOnly : perceptronOnly, given);
    if (wrong !== undefined) throw new UsageError(`train-reranker: ${wrong} does not apply to --method ${method}`);
    if (perceptron && given.has('--head-rules') && !(values.featureWeight > 0)) {
      throw new UsageError('train-reranker: --head-rules applies to --method perceptron only with --feature-weight');
    }
    claimOutputs(
      'train-reranker',
      { '--train': values.train, '--dev': values.dev, '--head-rules': values.headRules },
      { '--model': values.model, '--checkpoint': values.checkpoint },
    );
    if (perceptron) return trainPerceptronCli(values);
    const trainFile = values.train;
    const modelFile = values.model;
    const { weighting, cutoff, rounds, devStep } = values;
    const threads = resolveThreads(values.threads);
    const signal = cliSignal();

    const table = loadHeadRules(values.headRules);
    // The learned head rules' coverage and its warning are printed after training, so that an
    // error stays the only line of a failed run.
    const learnedLines: string[] = [];
    const train = await loadFeatureRows(trainFile, {
      threads,
      signal,
      learn: { table, log: (line) => learnedLines.push(line) },
    });
    const settings = train.settings;
    const trainTable = await trainingTable(train.rows, cutoff, signal);
    const dictionary = trainTable.names;
    requireScores(trainFile, trainTable);
    // Trees or tag sequences; a feature table says trees by its tree settings, else nothing.
    const kind = listKind(train.sentences) ?? (settings ? 'trees' : undefined);
    let dev;
    if (values.dev) {
      const d = await loadFeatureRows(values.dev, { threads, signal, settings });
      requireSameKind(values.dev, listKind(d.sentences), trainFile, kind);
      const devTable = await tableOver(d.rows, dictionary, signal);
      requireScores(values.dev, devTable);
      dev = await tableData(devTable, threads);
    }
    const problem = {
      train: await tableData(trainTable, threads),
      dev,
      dictionary,
      trainSentences: trainTable.ids.length,
      candidates: kind,
      treeSettings: settings,
    };
    const { reranker } = await trainLinearReranker(problem, {
      method: method as 'boost' | 'logloss' | 'loglinear',
      cutoff,
      rounds,
      eps: values.eps,
      l2: values.l2,
      weighting,
      devStep,
      threads,
      signal,
      checkpoint: values.checkpoint,
      resume: values.resume,
    });
    const model = reranker.model;
    reranker.save(modelFile);
    if (values.json) {
      for (const line of learnedLines) console.error(line);
      console.log(JSON.stringify({ method, model: modelFile, features: model.names.length, info: model.info }));
      return;
    }
    const facts = Object.entries(model.info)
      .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(6) : v}`)
      .join(' ');
    console.log(`${method}: ${model.names.length} features with non-zero weight -> ${modelFile} (${facts})`);
    for (const line of learnedLines) (line.startsWith('warning:') ? console.error : console.log)(line);
  },
});
export default command;
