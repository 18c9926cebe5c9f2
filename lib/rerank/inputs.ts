/**
 * Reranker inputs for the CLI: an n-best JSON Lines file (features extracted here, on all
 * cores) or a feature table written by `structrank features`, turned into a native
 * problem over a given feature dictionary.
 */
import { readFileHead } from '../io/lines.js';
import { InputError } from '../errors.js';
import { readNbestSync, type NbestSentence } from '../io/nbest.js';
import { Progress, progressInterval } from '../progress.js';
import { requireScores, tableData } from './table-data.js';
import { extractSentences, type ExtractRunOptions } from './extract.js';
import { buildFeatureTable, loadFeatureTable, tableToNames, type SentenceFeatureNames } from './feature-table.js';
import { describeTreeSettings, learnListSettings, type TreeSettings } from './tree-settings.js';
import type { HeadTable } from '../trees/head-rules.js';

/** Whether a file starts with the model-file magic (a saved feature table). */
export function isContainerFile(file: string): boolean {
  return readFileHead(file, 8).toString('latin1') === 'SRNKMDL\0';
}

export interface LoadedSentences {
  /** The n-best sentences (absent when the input was a feature table). */
  sentences?: NbestSentence[];
  features: SentenceFeatureNames[];
  /** Tree settings learned from the gold trees (with `learn`), or the ones given. */
  settings?: TreeSettings;
}

export interface LoadOptions extends ExtractRunOptions {
  /** Learn the tree settings from the file's gold trees, starting from this head table (n-best trees only). */
  learn?: { table: HeadTable; log?: (line: string) => void };
}

/** Feature names per candidate, from a table (ids back to names) or extracted from n-best lists. */
export async function loadSentenceFeatures(file: string, loadOptions: LoadOptions = {}): Promise<LoadedSentences> {
  const { learn, ...options } = loadOptions;
  if (isContainerFile(file)) return { features: tableToNames(loadFeatureTable(file)) };
  const sentences = readNbestSync(file);
  if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences');
  const learned = learn ? learnListSettings(sentences, learn.table, file) : undefined;
  if (learn && learned) {
    learn.log?.(describeTreeSettings(learned));
    if (learned.warning) learn.log?.(`warning: ${learned.warning}`);
    options.settings = learned.settings;
  }
  // Sentences are not passes: off a terminal a line every progressInterval() (a bar on one).
  const bar = new Progress({
    label: `features ${file}`,
    total: sentences.length,
    unit: 'sentences',
    logEvery: progressInterval(),
  });
  const features = await extractSentences(file, sentences, { ...options, onProgress: (n) => bar.update(n) });
  bar.finish();
  return { sentences, features, settings: options.settings };
}

export { buildFeatureTable, tableToNames, tableData, requireScores };
