/**
 * The CLI's command table: each command's one-line summary and its module, loaded lazily
 * so start-up stays fast. Two-word commands ('eval parse') are keys with a space.
 */
import type { Command } from './command.js';

export interface CommandEntry {
  /** One line for the command list. */
  summary: string;
  load: () => Promise<Command>;
}

const entry = (summary: string, load: () => Promise<{ default: Command }>): CommandEntry => ({
  summary,
  load: async () => (await load()).default,
});

export const commands: Record<string, CommandEntry> = {
  info: entry(
    "show the native addon (modules, default threads), or with --model a model file's kind and contents",
    () => import('./info.js'),
  ),
  demo: entry(
    'run the parsing reranking pipeline on the embedded GUM data and write an HTML report',
    () => import('./demo.js'),
  ),
  pipeline: entry(
    'jackknifed n-best candidates, rerankers tuned on dev, test evaluation and an HTML report',
    () => import('./pipeline.js'),
  ),
  'kernel trees': entry(
    'Gram matrix of the subset-tree kernel between treebank files',
    () => import('./kernel-trees.js'),
  ),
  'kernel tags': entry('Gram matrix of the tagging kernel between CoNLL files', () => import('./kernel-tags.js')),
  convert: entry(
    'convert corpora: treebank to CoNLL columns (word, POS), CoNLL-U to CoNLL columns, CoNLL to CoNLL-U, any to text',
    () => import('./convert.js'),
  ),
  'train-tagger': entry('train a perceptron, CRF or maxent sequence tagger', () => import('./train-tagger.js')),
  tag: entry('tag a CoNLL file with a trained tagger (optionally k-best)', () => import('./tag.js')),
  'train-parser': entry(
    'train the chart parser: a PCFG, or with --crf the CRF-CFG of Finkel et al. (2008)',
    () => import('./train-parser.js'),
  ),
  parse: entry(
    "parse sentences (or a treebank's words) with a chart parser model; optional n-best lists",
    () => import('./parse.js'),
  ),
  'eval parse': entry(
    'EVALB (COLLINS.prm): labeled bracket recall/precision/F1, crossing, tagging',
    () => import('./eval-parse.js'),
  ),
  'eval chunks': entry(
    'chunk / NER precision, recall and F1 (conlleval.pl semantics)',
    () => import('./eval-chunks.js'),
  ),
  'eval tags': entry('tagging accuracy, overall and on words unseen in training', () => import('./eval-tags.js')),
  features: entry(
    'extract reranking features from an n-best file into a binary feature table',
    () => import('./features.js'),
  ),
  'train-reranker': entry(
    'train a reranker (boosting, LogLoss selection, log-linear, perceptron) on n-best lists',
    () => import('./train-reranker.js'),
  ),
  rerank: entry('rerank n-best lists with a trained reranker', () => import('./rerank.js')),
  worker: entry(
    'take jobs from a Redis queue (pipeline steps, parse/tag shards) and run them; any number per host',
    () => import('./worker.js'),
  ),
  'queue status': entry(
    'jobs waiting/active/done/failed per step on a Redis queue, and the workers alive',
    () => import('./queue.js'),
  ),
};

/** What a command group ('eval', 'kernel') lists. */
export const groups: Record<string, string> = {
  eval: 'eval parse, eval chunks, eval tags: score parses (EVALB), chunks (conlleval) or tags (accuracy)',
  kernel: 'kernel trees, kernel tags: Gram matrices of the tree and tagging kernels',
  queue: 'queue status: the jobs and workers of a Redis queue',
};
