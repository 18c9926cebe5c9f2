/**
 * Feature tables as libsvm text with query ids, for learning-to-rank peers such as
 * XGBoost's `rank:pairwise`: one line per candidate, `label qid:i 1:L(x) (k+2):1 ...`,
 * where the label is the candidate's Score (higher is better) and feature ids are shifted
 * by 2 (libsvm ids start at 1; id 1 is L(x)).
 */
import type { FeatureTable } from './feature-table.js';

export function libsvmLines(t: FeatureTable): string[] {
  const lines: string[] = [];
  for (let i = 0; i < t.ids.length; i++) {
    for (let c = t.sentencePtr[i]; c < t.sentencePtr[i + 1]; c++) {
      const score = Number.isNaN(t.score[c]) ? 0 : t.score[c];
      const parts = [`${+score.toFixed(4)}`, `qid:${i + 1}`, `1:${t.logprob[c]}`];
      for (let q = t.rowPtr[c]; q < t.rowPtr[c + 1]; q++) parts.push(`${t.cols[q] + 2}:1`);
      lines.push(parts.join(' '));
    }
  }
  return lines;
}

export function libsvmText(t: FeatureTable): string {
  const lines = libsvmLines(t);
  return lines.length ? lines.join('\n') + '\n' : '';
}
