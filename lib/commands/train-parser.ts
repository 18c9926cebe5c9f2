import type { Command } from '../cli/command.js';
import { intOption, numberOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { readTreesSync } from '../io/treebank.js';
import { ChartParserModel, CRF_DEFAULTS, type ParserTrainSummary } from '../parser/chart-parser.js';
import { evaluateParser } from '../parser/evaluate.js';
import { Progress } from '../progress.js';
import { resolveThreads } from '../native.js';
import { checkOutputPath } from '../io/atomic-writer.js';

const command: Command = {
  name: 'train-parser',
  summary: 'train the chart parser: a PCFG, or with --crf the CRF-CFG of Finkel et al. (2008)',
  usage: `structrank train-parser --train F --model M [--dev F] [--crf [--sgd|--lbfgs]] [--markov 0|1|2] [--epochs E]
    [--batch B] [--eta0 X] [--sigma2 X] [--prune X] [--surface-bits N] [--beam X] [--rare N] [--clusters F]
    [--relax] [--verb-features] [--feature-cache-mb N] [--max-length N] [--threads N]
  --train F       training treebank (bracketed trees)
  --dev F         development treebank: CRF F1 after every pass (the best pass is kept), and at the end
  --model M       model file to write
  --crf           train the CRF-CFG on top of the PCFG: surface span features, AdaGrad on batches,
                  coarse-to-fine pruning; its grammar is markov 0, parent annotation, no head rules
  --sgd           train the CRF with SGD and a decaying gain instead of AdaGrad
  --lbfgs         train the CRF with full-batch L-BFGS instead (--epochs = iterations)
  --markov 0|1|2  binarization order (default 2; 0 with --crf)
  --epochs E      CRF passes over the data (default ${CRF_DEFAULTS.epochs})
  --batch B       CRF batch size, drawn with replacement (default 20)
  --eta0 X        AdaGrad step, or initial SGD gain (default ${CRF_DEFAULTS.eta0})
  --sigma2 X      L2 prior variance (default 1)
  --prune X       CRF coarse-to-fine: keep chart entries whose PCFG posterior is >= X, in training
                  and (stored in the model) in parsing (default ${CRF_DEFAULTS.prune}; 0 = exhaustive)
  --surface-bits N  CRF surface span features hashed into 2^N weights (default ${CRF_DEFAULTS.surfaceBits}; 0 = none)
  --beam X        CRF chart prefilter when --prune is 0: PCFG max-marginal beam in nats (default: none)
  --rare N        words seen at most N times also get signature tags (default 1)
  --clusters F    word clusters, 'word<TAB>cluster' per line (e.g. Brown bit strings): CRF
                  lexicon features and cluster tags for rare/unknown words; kept in the model
  --relax         grammar relaxation: add each rule with the other parent annotations of its
                  parent (PCFG: 0.01 interpolation with the parent-pooled estimate)
  --verb-features  CRF: rule x word features of binary rules with a verb-tag (VB*) child
                  (Penn tags only; off by default; --no-verb-features is accepted and does nothing)
  --feature-cache-mb N  CRF: cap on the per-sentence feature-id cache kept across passes
                  (default 1024; 0 = off)
  --max-length N  train only on trees of at most N words (default: all)
  --threads N     threads (default all cores)`,
  async run(args) {
    const { values } = parseCommandArgs(
      'train-parser',
      args,
      {
        train: { type: 'string' },
        dev: { type: 'string' },
        model: { type: 'string' },
        crf: { type: 'boolean' },
        lbfgs: { type: 'boolean' },
        sgd: { type: 'boolean' },
        prune: { type: 'string' },
        'surface-bits': { type: 'string' },
        'verb-features': { type: 'boolean' },
        markov: { type: 'string' },
        epochs: { type: 'string' },
        batch: { type: 'string' },
        eta0: { type: 'string' },
        sigma2: { type: 'string' },
        beam: { type: 'string' },
        rare: { type: 'string' },
        clusters: { type: 'string' },
        relax: { type: 'boolean' },
        'no-verb-features': { type: 'boolean' },
        'feature-cache-mb': { type: 'string' },
        'max-length': { type: 'string' },
        threads: { type: 'string' },
      },
      false,
    );
    const train = requireOption('train-parser', values.train, 'train');
    const modelFile = requireOption('train-parser', values.model, 'model');
    checkOutputPath(modelFile);
    const crf = values.crf ?? false;
    const markov = intOption('train-parser', values.markov, 'markov', crf ? CRF_DEFAULTS.markov : 2, 0);
    if (markov !== 0 && markov !== 1 && markov !== 2) throw new UsageError('train-parser: --markov must be 0, 1 or 2');
    if (values.sgd && values.lbfgs) throw new UsageError('train-parser: --sgd and --lbfgs exclude each other');
    if (values['verb-features'] && values['no-verb-features']) throw new UsageError('train-parser: --verb-features and --no-verb-features exclude each other');
    const threads = resolveThreads(intOption('train-parser', values.threads, 'threads', 0));
    const maxLength = intOption('train-parser', values['max-length'], 'max-length', 0);
    let trees = readTreesSync(train);
    if (maxLength > 0) {
      const { treeWords } = await import('../parser/input.js');
      trees = trees.filter((t) => treeWords(t).length <= maxLength);
    }
    // Read --dev before training: a bad dev file must fail before the model is written.
    const devTrees = values.dev ? readTreesSync(values.dev) : undefined;
    const epochs = intOption('train-parser', values.epochs, 'epochs', CRF_DEFAULTS.epochs, 1);
    const progress = new Progress({ label: 'train-parser', total: epochs, unit: 'epochs', logAfter: 0 });
    const start = Date.now();
    const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    const model = await ChartParserModel.train(trees, {
      markov,
      crf,
      ...(crf ? { parent: true, vpHeadTag: false } : {}),
      optimizer: values.lbfgs ? 'lbfgs' : values.sgd ? 'sgd' : 'adagrad',
      epochs,
      batch: intOption('train-parser', values.batch, 'batch', 20, 1),
      eta0: numberOption('train-parser', values.eta0, 'eta0', CRF_DEFAULTS.eta0, (x) => x > 0),
      sigma2: numberOption('train-parser', values.sigma2, 'sigma2', 1, (x) => x > 0),
      beam: numberOption('train-parser', values.beam, 'beam', Number.POSITIVE_INFINITY, (x) => x > 0),
      prune: numberOption('train-parser', values.prune, 'prune', CRF_DEFAULTS.prune, (x) => x >= 0 && x < 1),
      surfaceBits: intOption('train-parser', values['surface-bits'], 'surface-bits', CRF_DEFAULTS.surfaceBits, 0),
      rareThreshold: intOption('train-parser', values.rare, 'rare', 1),
      ...(values.clusters !== undefined ? { clusters: values.clusters } : {}),
      relax: values.relax ?? false,
      verbFeatures: values['verb-features'] ?? false,
      featureCacheMB: numberOption('train-parser', values['feature-cache-mb'], 'feature-cache-mb', 1024, (x) => x >= 0),
      threads,
      ...(devTrees && crf ? { dev: devTrees } : {}),
      summary,
      onProgress: (p) =>
        progress.update(p.epoch - 1 + p.step / p.stepsPerEpoch, `objective ${p.objective.toFixed(3)}, kept ${(100 * p.keptFraction).toFixed(1)}%`),
      // One line per pass whether or not stderr is a terminal.
      onPass: (r) =>
        console.error(
          `train-parser: pass ${r.epoch}/${r.epochs}: ${r.seconds.toFixed(1)} s (${r.cpuSeconds.toFixed(1)} CPU s), objective ${r.objective.toFixed(4)}` +
            (r.devF1 !== undefined ? `, dev F1 ${r.devF1.toFixed(2)}${r.best ? ' (best so far)' : ''}` : ''),
        ),
    });
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
    if (devTrees) {
      const r = await evaluateParser(model, devTrees, { threads });
      console.log(`dev: F1 ${r.f1.toFixed(2)} (P ${r.precision.toFixed(2)}, R ${r.recall.toFixed(2)}) on ${r.sentences} sentences`);
    }
  },
};
export default command;
