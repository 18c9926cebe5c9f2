import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { checkpointFields, json, optionalFile, requiredFile } from '../options/common.js';
import { parserTrainFields } from '../options/parser.js';
import { parserTrainDistributedFields } from '../options/distributed.js';
import { distributedParserTrainer } from '../distributed/parser-gradient.js';
import { readTreesSync } from '../io/treebank.js';
import { ChartParserModel, CRF_DEFAULTS, type ParserTrainSummary } from '../parser/chart-parser.js';
import { evaluateParser } from '../parser/evaluate.js';
import { TrainProgressBar } from '../progress.js';
import { resolveThreads } from '../native.js';
import { checkOutputPath } from '../io/atomic-writer.js';
import { UsageError } from '../errors.js';

const command = defineCommand({
  description: `Reads bracketed trees, trains the grammar (and with --crf the CRF weights), prints a
progress line (passes, objective, share of the chart kept by the prefilter) and, with --dev,
the EVALB F1 of the trained model.`,
  options: {
    train: requiredFile('training treebank (bracketed trees)'),
    dev: optionalFile('development treebank: CRF F1 after every pass (the best pass is kept), and at the end'),
    model: requiredFile('model file to write', 'M'),
    ...parserTrainFields,
    ...checkpointFields,
    ...parserTrainDistributedFields,
    json: option(json, 'print the model summary (and the dev scores) as JSON'),
  },
  examples: [
    'structrank train-parser --train train.mrg --dev dev.mrg --model pcfg.model',
    'structrank train-parser --train train.mrg --dev dev.mrg --model crf.model --crf --max-length 40',
  ],
  async run(values) {
    const train = values.train;
    const modelFile = values.model;
    checkOutputPath(modelFile);
    const { maxLength } = values;
    const crf = values.crf;
    const markov = values.markov ?? (crf ? CRF_DEFAULTS.markov : 2);
    if (values.sgd && values.lbfgs) throw new UsageError('train-parser: --sgd and --lbfgs exclude each other');
    if (!crf && (values.checkpoint !== undefined || values.resume !== undefined)) {
      throw new UsageError('train-parser: --checkpoint and --resume apply to --crf training (the PCFG is counted in one pass)');
    }
    // Checked before the trees are read: a refused combination costs nothing.
    const external = distributedParserTrainer('train-parser', values);
    const threads = resolveThreads(values.threads);
    let trees = readTreesSync(train);
    if (maxLength > 0) {
      const { treeWords } = await import('../parser/input.js');
      trees = trees.filter((t) => treeWords(t).length <= maxLength);
    }
    // Read --dev before training: a bad dev file must fail before the model is written.
    const devTrees = values.dev ? readTreesSync(values.dev) : undefined;
    const { epochs } = values;
    const progress = new TrainProgressBar('train-parser', crf ? { total: epochs, unit: 'epochs', phase: 'step', lossName: 'objective', logAfter: 0 } : { logAfter: 0 });
    const start = Date.now();
    const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    const model = await ChartParserModel.train(trees, {
      markov,
      crf,
      ...(crf ? { parent: values.parent ?? CRF_DEFAULTS.parent, vpHeadTag: CRF_DEFAULTS.vpHeadTag } : values.parent !== undefined ? { parent: values.parent } : {}),
      optimizer: values.lbfgs ? 'lbfgs' : values.sgd ? 'sgd' : 'adagrad',
      epochs,
      batch: values.batch,
      eta0: values.eta0,
      average: values.average,
      sigma2: values.sigma2,
      beam: values.beam,
      prune: values.prune,
      decode: values.decode,
      surfaceBits: values.surfaceBits,
      rareThreshold: values.rareThreshold,
      ...(values.clusters !== undefined ? { clusters: values.clusters } : {}),
      relax: values.relax,
      verbFeatures: values.verbFeatures,
      featureCacheMB: values.featureCacheMB,
      threads,
      checkpoint: values.checkpoint,
      resume: values.resume,
      ...(external ? { external } : {}),
      ...(devTrees && crf ? { dev: devTrees } : {}),
      summary,
      // One line per pass whether or not stderr is a terminal.
      onPass: (r) =>
        console.error(
          `train-parser: pass ${r.epoch}/${r.epochs}: ${r.seconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} CPU s), objective ${r.objective.toFixed(4)}` +
            (r.devF1 !== undefined ? `, dev F1 ${r.devF1.toFixed(2)}${r.best ? ' (best so far)' : ''}` : ''),
        ),
    }, { onProgress: progress.onProgress });
    progress.finish();
    if (crf && summary.surfaceGoldFeatures > 0) {
      console.error(
        `train-parser: ${summary.surfaceGoldFeatures} surface features in the gold trees, ${(100 * summary.surfaceCollisionRate).toFixed(2)}% share a hash slot` +
          (summary.bestEpoch !== undefined ? `; kept pass ${summary.bestEpoch} (dev F1 ${summary.bestDevF1?.toFixed(2)})` : ''),
      );
    }
    model.save(modelFile);
    const info = model.info();
    console.error(
      `train-parser: ${trees.length} trees, ${info.symbols} states, ${info.binaryRules} binary + ${info.unaryRules} unary rules` +
        `${values.relax ? ` (${info.relaxedBinaryRules} + ${info.relaxedUnaryRules} from relaxation)` : ''}` +
        `${info.clusterWords ? `, ${info.clusterWords} cluster words` : ''}` +
        `${info.crf ? `, ${info.weights} CRF weights` : ''}, ${((Date.now() - start) / 1000).toFixed(1)} s -> ${modelFile}`,
    );
    const r = devTrees ? await evaluateParser(model, devTrees, { threads }) : undefined;
    if (values.json) {
      const dev = r ? { f1: r.f1, precision: r.precision, recall: r.recall, sentences: r.sentences } : undefined;
      console.log(JSON.stringify({ model: modelFile, trees: trees.length, ...info, seconds: (Date.now() - start) / 1000, dev }));
    } else if (r) {
      console.log(`dev: F1 ${r.f1.toFixed(2)} (P ${r.precision.toFixed(2)}, R ${r.recall.toFixed(2)}) on ${r.sentences} sentences`);
    }
  },
});
export default command;
