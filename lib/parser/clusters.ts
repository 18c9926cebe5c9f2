/**
 * Word clusters for the chart parser: a file of `word<TAB>cluster` lines (e.g. Brown
 * clusters as bit strings), one word per line; an optional third column (a count, as in
 * the Brown tool's output) is ignored. Empty lines are skipped. The map is stored in the
 * parser model, so parsing needs no extra file.
 */
import { InputError } from '../errors.js';
import { readLinesSync } from '../io/lines.js';

export interface WordClusters {
  words: string[];
  clusters: string[];
}

export function readClustersSync(file: string): WordClusters {
  const words: string[] = [];
  const clusters: string[] = [];
  const seen = new Map<string, string>();
  for (const line of readLinesSync(file)) {
    if (line.text.trim() === '') continue;
    const fields = line.text.split('\t');
    if (fields.length < 2 || fields.length > 3) {
      throw new InputError(
        file,
        line.number,
        `expected 'word<TAB>cluster', got ${fields.length} tab-separated field${fields.length === 1 ? '' : 's'}`,
      );
    }
    const [word, cluster] = fields;
    if (word === '' || /\s/.test(word)) throw new InputError(file, line.number, 'empty word or word with spaces');
    if (cluster === '' || /\s/.test(cluster))
      throw new InputError(file, line.number, `empty cluster or cluster with spaces for '${word}'`);
    const before = seen.get(word);
    if (before !== undefined) {
      if (before !== cluster) throw new InputError(file, line.number, `word '${word}' already has cluster '${before}'`);
      continue;
    }
    seen.set(word, cluster);
    words.push(word);
    clusters.push(cluster);
  }
  if (words.length === 0) throw new InputError(file, undefined, 'no clusters');
  return { words, clusters };
}
