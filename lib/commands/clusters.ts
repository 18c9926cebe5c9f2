/**
 * `--cluster-text` of the trainers: computes the word clusters with a progress line (a large
 * text takes minutes), then names their size and time.
 */
import { Progress } from '../progress.js';
import { clustersFromText, type WordClusters } from '../tagger/word-clusters.js';

export function computeClusters(
  cmd: string,
  training: readonly (readonly string[])[],
  textFile: string,
  options: { classes: number; lowercase?: boolean; signal?: AbortSignal; log?: (line: string) => void },
): WordClusters {
  const start = Date.now();
  const progress = new Progress({ label: `${cmd} clustering`, unit: 'words' });
  let clusters: WordClusters;
  try {
    clusters = clustersFromText(training, textFile, {
      classes: options.classes,
      lowercase: options.lowercase,
      signal: options.signal,
      // Words visited over the passes, for the rate; the status names the pass.
      onProgress: (p) =>
        progress.update(
          (p.pass - 1) * p.words + p.word,
          `exchange pass ${p.pass}/${p.passes}: ${p.word}/${p.words} words`,
        ),
    });
  } finally {
    progress.finish();
  }
  // Fewer words than classes make fewer clusters.
  const classes = new Set(clusters.clusters).size;
  const seconds = ((Date.now() - start) / 1000).toFixed(1);
  (options.log ?? console.error)(`${cmd}: ${clusters.words.length} words in ${classes} clusters in ${seconds} s`);
  return clusters;
}
