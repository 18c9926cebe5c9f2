import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { checkpointFields, json, optionalFile, requiredFile } from '../options/common.js';
import { CRF_ONLY_TRAIN_FIELDS, parserTrainFields, STOCHASTIC_ONLY_TRAIN_FIELDS } from '../options/parser.js';
import { firstGivenFlag } from './options.js';
import { parserTrainDistributedFields } from '../options/distributed.js';
import { distributedParserTrainer } from '../distributed/parser-gradient.js';
import { readTreesSync } from '../io/treebank.js';
import type { Tree } from '../trees/tree.js';
import {
  ChartParserModel,
  parserGrammar,
  type ParserPassReport,
  type ParserTrainProgress,
  type ParserTrainSummary,
} from '../parser/chart-parser.js';
import { evaluateParser } from '../parser/evaluate.js';
import { TrainProgressBar } from '../progress.js';
import { resolveThreads } from '../native.js';
import { claimOutputs } from './claim.js';
import { throwIfAborted, UsageError } from '../errors.js';
import { cliSignal, deliverPendingSignals } from './signal.js';
import { clusterTextFields } from '../options/clusters.js';
import { computeClusters } from './clusters.js';
import type { WordClusters } from '../parser/clusters.js';

const command = defineCommand({
  description: `Reads bracketed trees, trains the grammar (and with --crf the CRF weights), prints a
progress line (passes, objective, share of the chart kept by the prefilter) and, with --dev,
the EVALB F1 of the trained model. Options of the CRF's training are refused without --crf, and
those of its batch sampling (--seed, --batch, --eta0, --no-average) with --lbfgs.`,
  options: {
    train: requiredFile('training treebank (bracketed trees)'),
    dev: optionalFile('development treebank: CRF F1 after every pass (the best pass is kept), and at the end'),
    model: requiredFile('model file to write', 'M'),
    ...parserTrainFields,
    ...clusterTextFields,
    ...checkpointFields,
    ...parserTrainDistributedFields,
    json: option(json, 'print the model summary (and the dev scores) as JSON'),
  },
  examples: [
    'structrank train-parser --train train.mrg --dev dev.mrg --model pcfg.model',
    'structrank train-parser --train train.mrg --dev dev.mrg --model crf.model --crf --max-length 40',
  ],
  async run(values, { given }) {
    const train = values.train;
    const modelFile = values.model;
    claimOutputs(
      'train-parser',
      {
        '--train': train,
        '--dev': values.dev,
        '--clusters': values.clusters,
        '--cluster-text': values.clusterText === 'train' ? undefined : values.clusterText,
      },
      { '--model': modelFile, '--checkpoint': values.checkpoint },
    );
    const { maxLength } = values;
    const crf = values.crf;
    // The grammar the model trains with: the PCFG's or the CRF's defaults under what was given.
    const grammar = parserGrammar(crf, { markov: values.markov, parent: values.parent });
    if (values.sgd && values.lbfgs) throw new UsageError('train-parser: --sgd and --lbfgs exclude each other');
    if (values.clusters !== undefined && values.clusterText !== undefined)
      throw new UsageError('train-parser: give --clusters or --cluster-text, not both');
    // An option the chosen trainer never reads is refused rather than ignored.
    const crfOnly = crf ? undefined : firstGivenFlag(parserTrainFields, given, CRF_ONLY_TRAIN_FIELDS);
    if (crfOnly !== undefined) throw new UsageError(`train-parser: ${crfOnly} applies to --crf training`);
    const stochasticOnly =
      crf && values.lbfgs ? firstGivenFlag(parserTrainFields, given, STOCHASTIC_ONLY_TRAIN_FIELDS) : undefined;
    if (stochasticOnly !== undefined)
      throw new UsageError(`train-parser: ${stochasticOnly} applies to AdaGrad and SGD training, not --lbfgs`);
    if (!crf && (values.checkpoint !== undefined || values.resume !== undefined)) {
      throw new UsageError(
        'train-parser: --checkpoint and --resume apply to --crf training (the PCFG is counted in one pass)',
      );
    }
    // Checked before the trees are read: a refused combination costs nothing.
    const external = distributedParserTrainer('train-parser', values);
    // Ctrl-C: "stopping", the pass in progress stops at its next check, "cancelled", exit 130; the model file is not touched.
    const signal = cliSignal();
    const threads = resolveThreads(values.threads);
    // --max-length applies to the dev trees too: passes are chosen, and the model scored, on
    // sentences of the lengths it trains on (the long ones would be most of the dev parse).
    const { treeWords } = await import('../parser/input.js');
    const withinLength = (t: Tree): boolean => maxLength === 0 || treeWords(t).length <= maxLength;
    const allTrees = readTreesSync(train);
    const trees = maxLength === 0 ? allTrees : allTrees.filter(withinLength);
    // Read --dev before training: a bad dev file must fail before the model is written.
    const devTrees = values.dev ? readTreesSync(values.dev).filter(withinLength) : undefined;
    let clusters: string | WordClusters | undefined = values.clusters;
    if (values.clusterText !== undefined) {
      clusters = await computeClusters(
        'train-parser',
        trees.map((t) => treeWords(t)),
        values.clusterText,
        { classes: values.clusterClasses, lowercase: true, signal },
      );
    }
    const { epochs } = values;
    // Every event the trainer reports: the trees counted, then the CRF's steps or sentences (rate, ETA, objective).
    const progress = new TrainProgressBar('train-parser', { lossName: 'objective', logAfter: 0 });
    const start = Date.now();
    // The CRF's lines also name the sentences done in the pass and their rate.
    let sentences: string | undefined;
    let pass = { epoch: 0, start };
    let devParse = { epoch: 0, start, first: 0 };
    const onSentences = (p: ParserTrainProgress): void => {
      if (p.epoch !== pass.epoch) pass = { epoch: p.epoch, start: Date.now() };
      const seconds = (Date.now() - pass.start) / 1000;
      const rate = seconds > 0 ? `, ${(p.sentences / seconds).toFixed(1)} sentences/s` : '';
      sentences = `pass ${p.epoch}/${p.epochs}: ${p.sentences}/${p.sentencesPerEpoch} sentences${rate}`;
      if (p.devSentences !== undefined) {
        // A dev parse (after a pass, or choosing the PCFG's or the head model's weight): its rate from its first report on.
        const key = p.pcfgMix ? -1 : p.headModel ? -2 : p.epoch;
        if (devParse.epoch !== key) devParse = { epoch: key, start: Date.now(), first: p.devSentences };
        const devSeconds = (Date.now() - devParse.start) / 1000;
        const devRate =
          devSeconds > 0 ? `, ${((p.devSentences - devParse.first) / devSeconds).toFixed(1)} sentences/s` : '';
        const what = p.pcfgMix
          ? "the PCFGs' weight"
          : p.headModel
            ? "the head model's weight"
            : `pass ${p.epoch}/${p.epochs}`;
        sentences = `${what}: parsing dev, ${p.devSentences}/${p.devTotal} sentences${devRate}`;
      }
      if (p.latent) {
        const { grammar, grammars, steps, totalSteps } = p.latent;
        sentences = `latent PCFG ${grammar}/${grammars}: EM step ${steps}/${totalSteps}`;
      }
    };
    const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    const model = await ChartParserModel.train(
      trees,
      {
        markov: grammar.markov,
        crf,
        rareThreshold: values.rareThreshold,
        ...(clusters !== undefined ? { clusters } : {}),
        relax: values.relax,
        threads,
        signal,
        // The CRF's own options (refused above when given without --crf).
        ...(crf
          ? {
              parent: grammar.parent,
              vpHeadTag: grammar.vpHeadTag,
              optimizer: values.lbfgs ? 'lbfgs' : values.sgd ? 'sgd' : 'adagrad',
              epochs,
              patience: values.patience,
              batch: values.batch,
              eta0: values.eta0,
              average: values.average,
              sigma2: values.sigma2,
              margin: values.margin,
              seed: values.seed,
              beam: values.beam,
              prune: values.prune,
              decode: values.decode,
              surfaceBits: values.surfaceBits,
              tagSets: values.tagSets,
              verbFeatures: values.verbFeatures,
              featureCacheMB: values.featureCacheMB,
              pcfgWeight: values.pcfgWeight,
              pcfgGrammars: values.pcfgGrammars,
              pcfgCycles: values.pcfgCycles,
              headModel: values.headModel,
              // The head model counts every training tree: the length limit is the CRF's cost, not its.
              ...(values.headModel && maxLength > 0 ? { headModelTrees: allTrees } : {}),
              checkpoint: values.checkpoint,
              resume: values.resume,
              ...(external ? { external } : {}),
              ...(devTrees ? { dev: devTrees } : {}),
              onProgress: onSentences,
              // One line per pass whether or not stderr is a terminal.
              onPass: (r: ParserPassReport) =>
                console.error(
                  `train-parser: pass ${r.epoch}/${r.epochs}: ${r.seconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} CPU s), objective ${r.objective.toFixed(4)}` +
                    (r.devF1 !== undefined ? `, dev F1 ${r.devF1.toFixed(2)}${r.best ? ' (best so far)' : ''}` : ''),
                ),
            }
          : values.parent !== undefined
            ? { parent: values.parent }
            : {}),
        summary,
      },
      { onProgress: (e) => progress.onProgress(e, e.phase === 'step' ? sentences : undefined) },
    );
    progress.finish();
    // A Ctrl-C during synchronous work (reading, PCFG counting) stops the run before the model is written.
    await deliverPendingSignals();
    throwIfAborted(signal);
    if (crf && summary.surfaceGoldFeatures > 0) {
      console.error(
        `train-parser: ${summary.surfaceGoldFeatures} surface features in the gold trees, ${(100 * summary.surfaceCollisionRate).toFixed(2)}% share a hash slot` +
          (summary.bestEpoch !== undefined
            ? `; kept pass ${summary.bestEpoch} (dev F1 ${summary.bestDevF1?.toFixed(2)})`
            : ''),
      );
    }
    if (crf && summary.pcfgWeight !== undefined) {
      const byWeight = summary.pcfgWeightsDev?.map((d) => `${d.weight} ${d.f1.toFixed(2)}`).join(', ');
      console.error(
        summary.pcfgWeight > 0
          ? `train-parser: the PCFGs' posteriors mixed in at weight ${summary.pcfgWeight}` +
              (byWeight ? ` (dev F1 by weight: ${byWeight})` : '')
          : `train-parser: the CRF alone (the PCFGs' weight 0${byWeight ? `; dev F1 by weight: ${byWeight}` : ''})`,
      );
    }
    if (crf && summary.headWeightsDev !== undefined) {
      const { mbrF1, byWeight } = summary.headWeightsDev;
      // By head-model weight: the best dev F1 and the tree-model and loss weights that gave it.
      const byW = byWeight
        .map((d) => `${d.weight} ${d.f1.toFixed(2)} [tree ${d.treeModelWeight}, loss ${d.lossWeight}]`)
        .join('; ');
      console.error(
        summary.headWeight
          ? `train-parser: the MBR tree rescored at head-model weight ${summary.headWeight}, tree-model weight ${summary.treeModelWeight ?? 0}, expected-loss weight ${summary.lossWeight ?? 0} (dev F1 ${mbrF1.toFixed(2)} without; best by head-model weight: ${byW})`
          : `train-parser: the MBR tree, not rescored (dev F1 ${mbrF1.toFixed(2)}; rescored, best by head-model weight: ${byW})`,
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
    // The kept pass was scored on dev as saved: not parsed again.
    const r = devTrees ? (summary.bestDev ?? (await evaluateParser(model, devTrees, { threads }))) : undefined;
    if (values.json) {
      const dev = r ? { f1: r.f1, precision: r.precision, recall: r.recall, sentences: r.sentences } : undefined;
      console.log(
        JSON.stringify({ model: modelFile, trees: trees.length, ...info, seconds: (Date.now() - start) / 1000, dev }),
      );
    } else if (r) {
      console.log(
        `dev: F1 ${r.f1.toFixed(2)} (P ${r.precision.toFixed(2)}, R ${r.recall.toFixed(2)}) on ${r.sentences} sentences`,
      );
    }
  },
});
export default command;
