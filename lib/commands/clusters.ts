/**
 * `--cluster-text` of the trainers: computes the word clusters with a progress line (a large
 * text takes minutes), then names their size and time.
 */
import { Progress } from '../progress.js';
import { clustersFromText, clusterWork, describeClusters, type WordClusters } from '../tagger/word-clusters.js';

export async function computeClusters(
  cmd: string,
  training: readonly (readonly string[])[],
  textFile: string,
  options: { classes: number; lowercase?: boolean; signal?: AbortSignal; log?: (line: string) => void },
): Promise<WordClusters> {
  const start = Date.now();
  const progress = new Progress({ label: `${cmd} clustering`, unit: 'words' });
  let clusters: WordClusters;
  try {
    clusters = await clustersFromText(training, textFile, {
      classes: options.classes,
      lowercase: options.lowercase,
      signal: options.signal,
      // Words visited over the passes, for the rate; the status names the pass.
      onProgress: (p) =>
        progress.update(clusterWork(p).done, `exchange pass ${p.pass}/${p.passes}: ${p.word}/${p.words} words`),
    });
  } finally {
    progress.finish();
  }
  const seconds = ((Date.now() - start) / 1000).toFixed(1);
  (options.log ?? console.error)(`${cmd}: ${describeClusters(clusters)} in ${seconds} s`);
  return clusters;
}
