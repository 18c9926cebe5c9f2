import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { checkpointFields, columnFormat, json, optionalFile, requiredFile } from '../options/common.js';
import { taggerFields, usesLbfgs } from '../options/tagger.js';
import { cliSignal } from './signal.js';
import { InputError, UsageError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import {
  columnFormatOf,
  conlluField,
  conlluRows,
  CONLLU_FIELD_NAMES,
  readConlluSync,
  type ConlluField,
} from '../io/conllu.js';
import { isQuiet, TrainProgressBar } from '../progress.js';
import { Tagger } from '../tagger/tagger.js';
import { isTrainingColumns, readTrainingColumns, type TrainingColumns } from '../tagger/training-columns.js';
import {
  chooseDefaultTemplate,
  DEFAULT_TEMPLATES,
  readTemplateConfig,
  labelCounts,
  type DefaultTemplateName,
  type TemplateSet,
} from '../tagger/templates.js';
import { claimOutputs } from './claim.js';
import type { WordClusters } from '../tagger/word-clusters.js';
import { computeClusters } from './clusters.js';
import { clusterTextFields } from '../options/clusters.js';
import { resolveThreads } from '../native.js';
import { trainFields } from '../options/distributed.js';
import { distributedTrainer } from '../distributed/train-tagger.js';

/** A --columns name in CoNLL-U mode: a CoNLL-U field, with `word` for `form`. */
function fieldOf(cmd: string, name: string): ConlluField {
  const field = conlluField(name);
  if (field === undefined)
    throw new UsageError(
      `${cmd}: with CoNLL-U input, --columns names fields among ${CONLLU_FIELD_NAMES}; got '${name}'`,
    );
  return field;
}

const { algo, ...trainingFields } = taggerFields;

const options = {
  algo,
  train: requiredFile('training file: CoNLL columns, or CoNLL-U (--format conllu)'),
  dev: optionalFile(
    'development file: the perceptron and SGD score it every --eval-every epochs and keep the best model; L-BFGS (CRF, maxent) trains to convergence or --epochs and scores the final model',
  ),
  columns: option(
    z.string(),
    "names of the file's columns (CoNLL-U: fields among word, lemma, upos, xpos, feats, deprel)",
    { value: 'word,pos,...' },
  ),
  label: option(z.string(), 'the column to predict', { value: 'NAME' }),
  model: requiredFile('model file to write', 'M'),
  ...trainingFields,
  ...clusterTextFields,
  separator: option(z.enum(['whitespace', 'tab']).default('whitespace'), 'column separator'),
  format: columnFormat,
  ...checkpointFields,
  json: option(json, 'print the model summary as JSON'),
  ...trainFields,
};

const command = defineCommand({
  description: `Trains a tagger on CoNLL column files (one token per line, blank line between sentences)
or on CoNLL-U files (--format conllu, the default for *.conllu files: comments, multiword
ranges and empty nodes are skipped; --columns then names CoNLL-U fields among word (= form),
lemma, upos, xpos, feats, deprel, e.g. --columns word,upos --label upos).`,
  options,
  examples: [
    'structrank train-tagger --algo crf --train train.conll --dev dev.conll --columns word,pos,chunk --label chunk --model chunker.model',
    'structrank train-tagger --algo perceptron --train en_ewt-ud-train.conllu --columns word,upos --label upos --epochs 5 --model upos.model',
  ],
  async run(values, context) {
    const cmd = 'train-tagger';
    const algo = values.algo;
    const trainFile = values.train;
    const columns = values.columns.split(',').map((c) => c.trim());
    if (columns.some((c) => c === '') || new Set(columns).size !== columns.length)
      throw new UsageError(`${cmd}: --columns must be distinct non-empty names`);
    const label = values.label;
    if (!columns.includes(label)) throw new UsageError(`${cmd}: --label '${label}' is not among --columns`);
    const modelFile = values.model;
    // --checkpoint and --resume may name the same file: a resumed run goes on checkpointing there.
    claimOutputs(
      cmd,
      {
        '--train': trainFile,
        '--dev': values.dev,
        '--clusters': values.clusters,
        '--templates': values.templates,
        '--cluster-text': values.clusterText === 'train' ? undefined : values.clusterText,
      },
      { '--model': modelFile, '--checkpoint': values.checkpoint },
    );
    const { optimizer, separator } = values;
    let order = values.order;
    let templates: DefaultTemplateName | TemplateSet | undefined;
    let clusters = values.clusters;
    if (values.templates !== undefined) {
      if (values.templates in DEFAULT_TEMPLATES) templates = values.templates as DefaultTemplateName;
      else {
        const config = readTemplateConfig(values.templates);
        templates = config.templates;
        clusters = clusters ?? config.clusters;
      }
    }
    const lbfgs = usesLbfgs(algo, optimizer);
    const { c2, eta0, beam, sgdWarmup, patience, seed } = values;
    const threads = resolveThreads(values.threads);
    if (sgdWarmup > 0 && !(algo === 'crf' && optimizer === 'lbfgs'))
      throw new UsageError(`${cmd}: --sgd-warmup applies to --algo crf with --optimizer lbfgs`);

    const format = columnFormatOf(trainFile, values.format);
    const fields = format === 'conllu' ? columns.map((c) => fieldOf(cmd, c)) : [];
    const readOptions = { separator, columns: columns.length };
    const read = (file: string): string[][][] =>
      format === 'conllu'
        ? readConlluSync(file).map((s) => conlluRows(s, fields))
        : readConllSync(file, readOptions).map((s) => s.rows);
    // A CoNLL file is read natively (no JS string per token) unless clusters are computed
    // from its words.
    const train: string[][][] | TrainingColumns =
      format === 'conll' && values.clusterText === undefined
        ? await readTrainingColumns(trainFile, { columns, label, separator })
        : read(trainFile);
    if ((isTrainingColumns(train) ? train.sentences : train.length) === 0)
      throw new InputError(trainFile, undefined, 'no sentences in file');
    const dev = values.dev !== undefined ? read(values.dev) : undefined;
    // With L-BFGS dev chooses no iterate (Tagger.train): the options that steer the choice are refused.
    const devChooses = !lbfgs;
    if (!devChooses && (context.given.has('--eval-every') || context.given.has('--patience'))) {
      throw new UsageError(
        `${cmd}: --eval-every and --patience apply when --dev chooses the model (perceptron, CRF with SGD); with L-BFGS (CRF, maxent), --dev scores the final model`,
      );
    }
    if (dev !== undefined && dev.length === 0)
      throw new InputError(values.dev as string, undefined, 'no sentences in file');
    const labels = isTrainingColumns(train) ? train.labelCounts : labelCounts(train, columns.indexOf(label));
    // One label: Tagger.train says why it cannot train, without a template line before it.
    if (templates === undefined && labels.size > 1) {
      const choice = chooseDefaultTemplate(
        labels,
        columns.filter((c) => c !== label),
      );
      if (!context.given.has('--order')) order = choice.order;
      // On stdout with the result line (not with --json): stderr is for progress and errors.
      if (!isQuiet() && !values.json)
        console.log(
          `train-tagger: templates '${choice.name}', order ${order} (${choice.reason}); choose others with --template, --order`,
        );
      templates = choice.name;
    }
    let computed: WordClusters | undefined;
    if (values.clusterText !== undefined) {
      if (clusters !== undefined) throw new UsageError(`${cmd}: give --clusters or --cluster-text, not both`);
      const wordIndex = columns.includes('word') ? columns.indexOf('word') : 0;
      const words = (train as string[][][]).map((s) => s.map((row) => row[wordIndex]));
      computed = await computeClusters(cmd, words, values.clusterText, {
        classes: values.clusterClasses,
        signal: cliSignal(),
        log: (line) => {
          if (!isQuiet() && !values.json) console.log(line);
        },
      });
    }
    const external = distributedTrainer(cmd, { ...values, algo, optimizer, threads, signal: cliSignal() });
    const progress = new TrainProgressBar(`train-tagger ${algo}`, {
      unit: lbfgs ? 'iterations' : 'epochs',
      log: true,
      logEvery: 0,
      logAfter: 0,
    });
    const start = Date.now();
    const tagger = await Tagger.train(
      train,
      {
        algo,
        columns,
        label,
        order,
        templates,
        templatesFile: typeof templates === 'string' ? undefined : values.templates,
        trainFile,
        clusters: computed ?? clusters,
        epochs: values.epochs,
        optimizer,
        c2,
        eta0,
        sgdWarmup,
        beam,
        threads,
        seed,
        dev,
        evalEvery: values.evalEvery,
        patience,
        checkpoint: values.checkpoint,
        resume: values.resume,
        signal: cliSignal(),
        external,
      },
      { onProgress: progress.onProgress },
    );
    if (process.stderr.isTTY) progress.finish();
    tagger.save(modelFile);
    const info = tagger.info();
    const devNote = tagger.meta.dev
      ? `, dev ${tagger.meta.dev.name} ${tagger.meta.dev.value.toFixed(2)} ${devChooses ? 'at step' : 'of the final model, step'} ${tagger.meta.trainedSteps}`
      : '';
    if (values.json) {
      console.log(
        JSON.stringify({
          model: modelFile,
          ...info,
          algo,
          order,
          seconds: (Date.now() - start) / 1000,
          dev: tagger.meta.dev,
          trainedSteps: tagger.meta.trainedSteps,
        }),
      );
      return;
    }
    console.log(
      `${modelFile}: ${algo} order ${order}, ${info.labels} labels, ${info.attributes} attributes, ${info.features} features, trained in ${((Date.now() - start) / 1000).toFixed(1)} s${devNote}`,
    );
  },
});
export default command;
