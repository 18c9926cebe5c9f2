/**
 * The kernel perceptron rerankers (lib/rerank/perceptron-grid.ts: tree-kernel, tagging-kernel
 * or linear, voted or averaged; a tree kernel optionally plus the reranking features) as the
 * pipeline's rerankers: a config entry read into the grid and the options every setting shares.
 */
import { loadHeadRules } from '../../io/head-rules-file.js';
import { PerceptronGridReranker } from '../../rerank/perceptron-grid.js';
import { stepRun } from '../../training/step-run.js';
import type { CandidateSet, Reranker, StepContext } from '../components.js';
import { perceptronKernel, type PerceptronConfig } from '../config.js';

export function perceptronReranker(config: PerceptronConfig & { name: string }, task: 'parse' | 'tag'): Reranker {
  const kernel = perceptronKernel(config, task);
  return {
    name: config.name,
    train: (train: CandidateSet, dev: CandidateSet, ctx: StepContext) =>
      PerceptronGridReranker.train(
        train,
        dev,
        config,
        {
          kernel,
          epochs: config.epochs,
          chunks: config.chunks,
          prediction: config.mode,
          ...(config.featureWeight.some((w) => w > 0) ? { headRules: loadHeadRules(config.headRules) } : {}),
          ...(config.wordFeature !== 'none' ? { wordFeature: config.wordFeature, sim1: 0.5, sim2: 0.5 } : {}),
          normalize: config.normalize,
          score: config.score,
        },
        config.name,
        ctx,
        (label) => stepRun(ctx, label),
      ),
  };
}
