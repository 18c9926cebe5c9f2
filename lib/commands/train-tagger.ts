import type { Command } from '../cli/command.js';
import { intOption, numberOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { cliSignal } from '../cli/signal.js';
import { InputError, UsageError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import { readConlluSync, type ConlluToken } from '../io/conllu.js';
import { Progress } from '../progress.js';
import { Tagger, type TaggerAlgorithm } from '../tagger/tagger.js';
import { DEFAULT_TEMPLATES, readTemplateConfig, type DefaultTemplateName, type TemplateSet } from '../tagger/templates.js';
import { checkOutputPath } from '../io/atomic-writer.js';
import { resolveThreads } from '../native.js';

const usage = `structrank train-tagger --algo maxent|perceptron|crf --train F [--dev F] --columns word,pos,chunk --label chunk --model M
  [--order 1|2] [--template T.json|pos|chunk|ner] [--clusters F] [--epochs N] [--optimizer lbfgs|sgd]
  [--sgd-warmup N] [--c2 X] [--eta0 X] [--beam B] [--eval-every N] [--patience N] [--separator whitespace|tab]
  [--format conll|conllu] [--threads N]

Trains a tagger on CoNLL column files (one token per line, blank line between sentences)
or on CoNLL-U files (--format conllu, the default for *.conllu files: comments, multiword
ranges and empty nodes are skipped; --columns then names CoNLL-U fields among word (= form),
lemma, upos, xpos, feats, deprel, e.g. --columns word,upos --label upos).
  --algo        perceptron: averaged structured perceptron; crf: linear-chain CRF;
                maxent: locally normalized log-linear tagger with beam search
  --columns     names of the file's columns; --label names the one to predict
  --order       label dependencies: 1 (bigram, default) or 2 (trigram)
  --template    a template config file (JSON) or a default set; default: chunk when a
                'pos' column exists, else pos
  --epochs      passes (perceptron, SGD) or L-BFGS iterations (crf, maxent);
                default 10, or 100 for L-BFGS
  --optimizer   CRF optimizer: lbfgs (default) or sgd
  --sgd-warmup  CRF L-BFGS: first run N SGD epochs (counted in --epochs), then L-BFGS
  --c2          L2 weight (objective + c2 |w|^2); default 1 (crf), 0.1 (maxent)
  --dev         scored after every epoch (every --eval-every L-BFGS iterations, default 10);
                the best model is kept and training stops after --patience (default 3)
                evaluations without improvement (0 = never)
  --threads     threads for the CRF/maxent gradient and dev tagging (default: all cores)`;

type ConlluField = 'form' | 'lemma' | 'upos' | 'xpos' | 'feats' | 'deprel';
const CONLLU_FIELDS: readonly string[] = ['form', 'lemma', 'upos', 'xpos', 'feats', 'deprel'];

/** A --columns name in CoNLL-U mode: a CoNLL-U field, with `word` for `form`. */
function conlluField(cmd: string, name: string): ConlluField & keyof ConlluToken {
  const field = name === 'word' ? 'form' : name;
  if (!CONLLU_FIELDS.includes(field)) {
    throw new UsageError(`${cmd}: with CoNLL-U input, --columns names fields among word (= form), lemma, upos, xpos, feats, deprel; got '${name}'`);
  }
  return field as ConlluField;
}

const command: Command = {
  name: 'train-tagger',
  summary: 'train a perceptron, CRF or maxent sequence tagger',
  usage,
  async run(args) {
    const { values } = parseCommandArgs('train-tagger', args, {
      algo: { type: 'string' },
      train: { type: 'string' },
      dev: { type: 'string' },
      columns: { type: 'string' },
      label: { type: 'string' },
      order: { type: 'string' },
      template: { type: 'string' },
      clusters: { type: 'string' },
      epochs: { type: 'string' },
      optimizer: { type: 'string' },
      c2: { type: 'string' },
      eta0: { type: 'string' },
      'sgd-warmup': { type: 'string' },
      beam: { type: 'string' },
      'eval-every': { type: 'string' },
      patience: { type: 'string' },
      separator: { type: 'string' },
      format: { type: 'string' },
      model: { type: 'string' },
      threads: { type: 'string' },
      seed: { type: 'string' },
    }, false);
    const cmd = 'train-tagger';
    const algo = requireOption(cmd, values.algo, 'algo') as TaggerAlgorithm;
    if (!['maxent', 'perceptron', 'crf'].includes(algo)) throw new UsageError(`${cmd}: --algo must be maxent, perceptron or crf`);
    const trainFile = requireOption(cmd, values.train, 'train');
    const columns = requireOption(cmd, values.columns, 'columns').split(',').map((c) => c.trim());
    if (columns.some((c) => c === '') || new Set(columns).size !== columns.length) throw new UsageError(`${cmd}: --columns must be distinct non-empty names`);
    const label = requireOption(cmd, values.label, 'label');
    if (!columns.includes(label)) throw new UsageError(`${cmd}: --label '${label}' is not among --columns`);
    const modelFile = requireOption(cmd, values.model, 'model');
    checkOutputPath(modelFile);
    const order = intOption(cmd, values.order, 'order', 1, 1);
    if (order !== 1 && order !== 2) throw new UsageError(`${cmd}: --order must be 1 or 2`);
    const optimizer = values.optimizer ?? 'lbfgs';
    if (optimizer !== 'lbfgs' && optimizer !== 'sgd') throw new UsageError(`${cmd}: --optimizer must be lbfgs or sgd`);
    const separator = values.separator ?? 'whitespace';
    if (separator !== 'whitespace' && separator !== 'tab') throw new UsageError(`${cmd}: --separator must be whitespace or tab`);
    let templates: DefaultTemplateName | TemplateSet | undefined;
    let clusters = values.clusters;
    if (values.template !== undefined) {
      if (values.template in DEFAULT_TEMPLATES) templates = values.template as DefaultTemplateName;
      else {
        const config = readTemplateConfig(values.template);
        templates = config.templates;
        clusters = clusters ?? config.clusters;
      }
    }
    const lbfgs = algo === 'maxent' || (algo === 'crf' && optimizer === 'lbfgs');
    const epochs = intOption(cmd, values.epochs, 'epochs', lbfgs ? 100 : 10, 1);
    const c2 = values.c2 === undefined ? undefined : numberOption(cmd, values.c2, 'c2', 1, (n) => n >= 0);
    const eta0 = values.eta0 === undefined ? undefined : numberOption(cmd, values.eta0, 'eta0', 0.1, (n) => n > 0);
    const beam = intOption(cmd, values.beam, 'beam', 8, 1);
    const sgdWarmup = intOption(cmd, values['sgd-warmup'], 'sgd-warmup', 0, 0);
    if (sgdWarmup > 0 && !(algo === 'crf' && optimizer === 'lbfgs')) throw new UsageError(`${cmd}: --sgd-warmup applies to --algo crf with --optimizer lbfgs`);
    const evalEvery = intOption(cmd, values['eval-every'], 'eval-every', lbfgs ? 10 : 1, 1);
    const patience = intOption(cmd, values.patience, 'patience', 3, 0);
    const threads = resolveThreads(intOption(cmd, values.threads, 'threads', 0, 0));
    const seed = intOption(cmd, values.seed, 'seed', 1, 0);

    const format = values.format ?? (trainFile.endsWith('.conllu') ? 'conllu' : 'conll');
    if (format !== 'conll' && format !== 'conllu') throw new UsageError(`${cmd}: --format must be conll or conllu`);
    const fields = format === 'conllu' ? columns.map((c) => conlluField(cmd, c)) : [];
    const readOptions = { separator: separator as 'whitespace' | 'tab', columns: columns.length };
    const read = (file: string): string[][][] =>
      format === 'conllu'
        ? readConlluSync(file).map((s) => s.tokens.map((t) => fields.map((f) => t[f])))
        : readConllSync(file, readOptions).map((s) => s.rows);
    const train = read(trainFile);
    if (train.length === 0) throw new InputError(trainFile, undefined, 'no sentences in file');
    const dev = values.dev !== undefined ? read(values.dev) : undefined;
    if (dev !== undefined && dev.length === 0) throw new InputError(values.dev as string, undefined, 'no sentences in file');
    const progress = new Progress({ label: `train-tagger ${algo}`, total: epochs, unit: lbfgs ? 'iterations' : 'epochs', log: true, logEvery: 0 });
    const start = Date.now();
    const tagger = await Tagger.train(train, {
      algo,
      columns,
      label,
      order: order as 1 | 2,
      templates,
      templatesFile: typeof templates === 'string' ? undefined : values.template,
      clusters,
      epochs,
      optimizer,
      c2,
      eta0,
      sgdWarmup,
      beam,
      threads,
      seed,
      dev,
      evalEvery,
      patience,
      signal: cliSignal(),
      onProgress: (p) => {
        const devText = p.dev ? `  dev ${p.dev.name} ${p.dev.value.toFixed(2)} (best ${p.best!.value.toFixed(2)})` : '';
        progress.update(p.step, `loss ${p.loss.toFixed(p.loss >= 1000 ? 0 : 3)}${devText}`);
      },
    });
    if (process.stderr.isTTY) progress.finish();
    tagger.save(modelFile);
    const info = tagger.info();
    const devNote = tagger.meta.dev ? `, dev ${tagger.meta.dev.name} ${tagger.meta.dev.value.toFixed(2)} at step ${tagger.meta.trainedSteps}` : '';
    console.log(`${modelFile}: ${algo} order ${order}, ${info.labels} labels, ${info.attributes} attributes, ${info.features} features, trained in ${((Date.now() - start) / 1000).toFixed(1)} s${devNote}`);
  },
};
export default command;
