/**
 * Reranker inputs for the CLI: an n-best JSON Lines file (features extracted here, on all
 * cores, and interned as they arrive) or a feature table written by `structrank features`,
 * as rows of the process's feature ids (candidate-feature-ids.ts), and the tables the
 * rerankers train and score on. Holding every candidate's feature names as strings cost
 * gigabytes on 3,000 sentences' 20-best lists; the rows cost bytes per feature.
 */
import { readFileHead } from '../io/lines.js';
import { InputError } from '../errors.js';
import { readNbestSync, type NbestSentence } from '../io/nbest.js';
import { Progress, progressInterval } from '../progress.js';
import { requireScores, tableData } from './table-data.js';
import type { ExtractRunOptions } from './extract.js';
import {
  featureIdRows,
  internFeature,
  tableOver,
  trainingTable,
  type CandidateFeatureIds,
} from './candidate-feature-ids.js';
import { loadFeatureTable, type FeatureTable } from './feature-table.js';
import { learnedSettingsLines, learnListSettings, type TreeSettings } from './tree-settings.js';
import type { HeadTable } from '../trees/head-rules.js';

/** Whether a file starts with the model-file magic (a saved feature table). */
export function isContainerFile(file: string): boolean {
  return readFileHead(file, 8).toString('latin1') === 'SRNKMDL\0';
}

export interface LoadedRows {
  /** The n-best sentences (absent when the input was a feature table). */
  sentences?: NbestSentence[];
  rows: CandidateFeatureIds;
  /** Tree settings learned from the gold trees (with `learn`), the ones given, or a table's. */
  settings?: TreeSettings;
}

export interface LoadOptions extends Omit<ExtractRunOptions, 'onProgress' | 'onSentence' | 'interned'> {
  /** Learn the tree settings from the file's gold trees, starting from this head table (n-best trees only). */
  learn?: { table: HeadTable; log?: (line: string) => void };
}

/** The features of every candidate, from a table or extracted from n-best lists, as interned rows. */
export async function loadFeatureRows(file: string, loadOptions: LoadOptions = {}): Promise<LoadedRows> {
  const { learn, ...options } = loadOptions;
  if (isContainerFile(file)) {
    const table = loadFeatureTable(file);
    return { rows: tableRows(table), settings: table.settings };
  }
  const sentences = readNbestSync(file);
  if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences');
  const learned = learn ? learnListSettings(sentences, learn.table, file) : undefined;
  if (learn && learned) {
    for (const line of learnedSettingsLines(learned)) learn.log?.(line);
    options.settings = learned.settings;
  }
  // Sentences are not passes: off a terminal a line every progressInterval() (a bar on one).
  const bar = new Progress({
    label: `features ${file}`,
    total: sentences.length,
    unit: 'sentences',
    logEvery: progressInterval(),
  });
  const rows = await featureIdRows(file, sentences, { ...options, onProgress: (n) => bar.update(n) });
  bar.finish();
  return { sentences, rows, settings: options.settings };
}

/** A saved table's rows over the process's feature ids. */
function tableRows(t: FeatureTable): CandidateFeatureIds {
  const idOf = Int32Array.from(t.names, internFeature);
  return {
    ids: t.ids,
    sentencePtr: Int32Array.from(t.sentencePtr),
    rowPtr: t.rowPtr,
    cols: t.cols.map((c) => idOf[c]),
    logprob: t.logprob,
    score: t.score,
  };
}

export { tableData, requireScores, trainingTable, tableOver };
