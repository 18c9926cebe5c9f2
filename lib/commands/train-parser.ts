import { defineCommand } from '../cli/command.js';
import { option } from '../options/field.js';
import { json, optionalFile, requiredFile } from '../options/common.js';
import { parserTrainFields } from '../options/parser.js';
import { readTreesSync } from '../io/treebank.js';
import { ChartParserModel } from '../parser/chart-parser.js';
import { evaluateParser } from '../parser/evaluate.js';
import { Progress } from '../progress.js';
import { resolveThreads } from '../native.js';
import { checkOutputPath } from '../io/atomic-writer.js';

const command = defineCommand({
  description: `Reads bracketed trees, trains the grammar (and with --crf the CRF weights), prints a
progress line (passes, objective, share of the chart kept by the prefilter) and, with --dev,
the EVALB F1 of the trained model.`,
  options: {
    train: requiredFile('training treebank (bracketed trees)'),
    dev: optionalFile('development treebank: F1 is reported after training'),
    model: requiredFile('model file to write', 'M'),
    ...parserTrainFields,
    json: option(json, 'print the model summary (and the dev scores) as JSON'),
  },
  examples: [
    'structrank train-parser --train train.mrg --dev dev.mrg --model pcfg.model',
    'structrank train-parser --train train.mrg --model crf.model --crf --epochs 6 --eta0 0.03 --max-length 25',
  ],
  async run(values) {
    const train = values.train;
    const modelFile = values.model;
    checkOutputPath(modelFile);
    const { markov, maxLength } = values;
    const threads = resolveThreads(values.threads);
    let trees = readTreesSync(train);
    if (maxLength > 0) {
      const { treeWords } = await import('../parser/input.js');
      trees = trees.filter((t) => treeWords(t).length <= maxLength);
    }
    // Read --dev before training: a bad dev file must fail before the model is written.
    const devTrees = values.dev ? readTreesSync(values.dev) : undefined;
    const { epochs } = values;
    const progress = new Progress({ label: 'train-parser', total: epochs, unit: 'epochs', logAfter: 0 });
    const start = Date.now();
    const model = await ChartParserModel.train(trees, {
      markov,
      crf: values.crf,
      optimizer: values.lbfgs ? 'lbfgs' : 'sgd',
      epochs,
      batch: values.batch,
      eta0: values.eta0,
      sigma2: values.sigma2,
      beam: values.beam,
      rareThreshold: values.rareThreshold,
      ...(values.clusters !== undefined ? { clusters: values.clusters } : {}),
      relax: values.relax,
      verbFeatures: values.verbFeatures,
      featureCacheMB: values.featureCacheMB,
      threads,
      onProgress: (p) =>
        progress.update(p.epoch - 1 + p.step / p.stepsPerEpoch, `objective ${p.objective.toFixed(3)}, kept ${(100 * p.keptFraction).toFixed(1)}%`),
    });
    progress.finish();
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
