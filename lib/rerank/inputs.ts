/**
 * Reranker inputs for the CLI: an n-best JSON Lines file (features extracted here, on all
 * cores) or a feature table written by `structrank features`, turned into a native
 * problem over a given feature dictionary.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors.js';
import { readNbestSync, type NbestSentence } from '../io/nbest.js';
import { Progress } from '../progress.js';
import { requireScores, tableData } from './table-data.js';
import { extractSentences, type ExtractRunOptions } from './extract.js';
import { buildFeatureTable, loadFeatureTable, tableToNames, type SentenceFeatureNames } from './feature-table.js';

/** Whether a file starts with the model-file magic (a saved feature table). */
export function isContainerFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(file, undefined, code === 'ENOENT' ? 'no such file' : `cannot read: ${(err as Error).message}`);
  }
  try {
    const b = Buffer.alloc(8);
    const n = readSync(fd, b, 0, 8, 0);
    return n === 8 && b.toString('latin1') === 'SRNKMDL\0';
  } finally {
    closeSync(fd);
  }
}

export interface LoadedSentences {
  /** The n-best sentences (absent when the input was a feature table). */
  sentences?: NbestSentence[];
  features: SentenceFeatureNames[];
}

/** Feature names per candidate, from a table (ids back to names) or extracted from n-best lists. */
export async function loadSentenceFeatures(file: string, options: ExtractRunOptions = {}): Promise<LoadedSentences> {
  if (isContainerFile(file)) return { features: tableToNames(loadFeatureTable(file)) };
  const sentences = readNbestSync(file);
  if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences');
  const bar = new Progress({ label: `features ${file}`, total: sentences.length, unit: 'sentences' });
  const features = await extractSentences(file, sentences, { ...options, onProgress: (n) => bar.update(n) });
  bar.finish();
  return { sentences, features };
}

export { buildFeatureTable, tableToNames, tableData, requireScores };
