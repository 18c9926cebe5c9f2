import type { Command } from '../cli/command.js';
import { intOption, numberOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { readTreesSync } from '../io/treebank.js';
import { ChartParserModel } from '../parser/chart-parser.js';
import { evaluateParser } from '../parser/evaluate.js';
import { Progress } from '../progress.js';
import { resolveThreads } from '../native.js';
import { checkOutputPath } from '../io/atomic-writer.js';

const command: Command = {
  name: 'train-parser',
  summary: 'train the chart parser: a PCFG, or with --crf the CRF-CFG of Finkel et al. (2008)',
  usage: `structrank train-parser --train F --model M [--dev F] [--crf [--lbfgs]] [--markov 1|2] [--epochs E]
    [--batch B] [--eta0 X] [--sigma2 X] [--beam X] [--rare N] [--clusters F] [--relax] [--no-verb-features]
    [--feature-cache-mb N] [--max-length N] [--threads N]
  --train F       training treebank (bracketed trees)
  --dev F         development treebank: F1 is reported after training
  --model M       model file to write
  --crf           train the CRF-CFG (SGD on the conditional log-likelihood) on top of the PCFG
  --lbfgs         train the CRF with full-batch L-BFGS instead of SGD (--epochs = iterations)
  --markov 1|2    binarization order (default 2)
  --epochs E      CRF passes over the data (default 10)
  --batch B       CRF batch size, drawn with replacement (default 20)
  --eta0 X        initial SGD gain (default 0.1); it halves after 5 passes
  --sigma2 X      L2 prior variance (default 1)
  --beam X        CRF chart prefilter: PCFG max-marginal beam in nats (default: none, exact)
  --rare N        words seen at most N times also get signature tags (default 1)
  --clusters F    word clusters, 'word<TAB>cluster' per line (e.g. Brown bit strings): CRF
                  lexicon features and cluster tags for rare/unknown words; kept in the model
  --relax         grammar relaxation: add each rule with the other parent annotations of its
                  parent (PCFG: 0.01 interpolation with the parent-pooled estimate)
  --no-verb-features  CRF: leave out the rule x word features of binary rules with a
                  verb-tag child (on by default)
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
    const markov = intOption('train-parser', values.markov, 'markov', 2, 1);
    if (markov !== 1 && markov !== 2) throw new UsageError('train-parser: --markov must be 1 or 2');
    const threads = resolveThreads(intOption('train-parser', values.threads, 'threads', 0));
    const maxLength = intOption('train-parser', values['max-length'], 'max-length', 0);
    let trees = readTreesSync(train);
    if (maxLength > 0) {
      const { treeWords } = await import('../parser/input.js');
      trees = trees.filter((t) => treeWords(t).length <= maxLength);
    }
    // Read --dev before training: a bad dev file must fail before the model is written.
    const devTrees = values.dev ? readTreesSync(values.dev) : undefined;
    const epochs = intOption('train-parser', values.epochs, 'epochs', 10, 1);
    const progress = new Progress({ label: 'train-parser', total: epochs, unit: 'epochs', logAfter: 0 });
    const start = Date.now();
    const model = await ChartParserModel.train(trees, {
      markov,
      crf: values.crf ?? false,
      optimizer: values.lbfgs ? 'lbfgs' : 'sgd',
      epochs,
      batch: intOption('train-parser', values.batch, 'batch', 20, 1),
      eta0: numberOption('train-parser', values.eta0, 'eta0', 0.1, (x) => x > 0),
      sigma2: numberOption('train-parser', values.sigma2, 'sigma2', 1, (x) => x > 0),
      beam: numberOption('train-parser', values.beam, 'beam', Number.POSITIVE_INFINITY, (x) => x > 0),
      rareThreshold: intOption('train-parser', values.rare, 'rare', 1),
      ...(values.clusters !== undefined ? { clusters: values.clusters } : {}),
      relax: values.relax ?? false,
      verbFeatures: !(values['no-verb-features'] ?? false),
      featureCacheMB: numberOption('train-parser', values['feature-cache-mb'], 'feature-cache-mb', 1024, (x) => x >= 0),
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
    if (devTrees) {
      const r = await evaluateParser(model, devTrees, { threads });
      console.log(`dev: F1 ${r.f1.toFixed(2)} (P ${r.precision.toFixed(2)}, R ${r.recall.toFixed(2)}) on ${r.sentences} sentences`);
    }
  },
};
export default command;
