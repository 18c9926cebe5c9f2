/** Feature tables as native reranking problems. */
import { InputError } from '../errors.js';
import { rerankData, type RerankDataHandle } from './boost.js';
import type { FeatureTable } from './feature-table.js';

/** The native problem of a table; scores are passed only when every candidate has one. */
export function tableData(t: FeatureTable, threads?: number): Promise<RerankDataHandle> {
  const scored = t.score.every((v) => !Number.isNaN(v));
  return rerankData(
    {
      sentencePtr: t.sentencePtr,
      logprob: t.logprob,
      score: scored ? t.score : undefined,
      rowPtr: t.rowPtr,
      cols: t.cols,
      numFeatures: t.names.length,
    },
    threads,
  );
}

export function requireScores(file: string, t: FeatureTable): void {
  if (t.score.some((v) => Number.isNaN(v)))
    throw new InputError(file, undefined, 'every sentence needs a gold tree or gold tags to train or tune a reranker');
}
