/**
 * Boosting (Collins & Koo 2005) and the log-linear reranker trained on candidate sets (the
 * pipeline's reranker steps; TrainedReranker, lib/training/model-contract.ts): the problem of
 * the training set's features (candidate-sets.ts), then the one training path of the linear
 * rerankers (trainLinearReranker, linear-reranker.ts), which trains every setting (eps, or C)
 * and keeps the best on dev. It chooses with the dense weights over the training dictionary.
 */
import type { CandidateSet, Curve, StepContext, TrainedReranker } from '../training/model-contract.js';
import { rerankScores } from './boost.js';
import { candidateProblem, type CandidateProblem } from './candidate-sets.js';
import { trainLinearReranker, type LinearTrainSettings } from './linear-reranker.js';
import type { TrainedLinear, TrainerKnobs } from './trainers.js';

/** The rounds at which boosting scores dev: every 0.1% of the rounds up to 10%, then every 0.5%. */
export function checkpoints(total: number): number[] {
  const out = new Set<number>([0, total]);
  const fine = Math.max(1, Math.round(total / 1000));
  for (let n = fine; n <= total / 10; n += fine) out.add(n);
  const coarse = Math.max(1, Math.round(total / 200));
  for (let n = coarse; n < total; n += coarse) out.add(n);
  return [...out].sort((a, b) => a - b);
}

/** The features a linear reranker of candidate sets is trained on. */
export interface CandidateFeatureOptions {
  /** Keep features seen on candidates of at least this many training sentences. */
  cutoff: number;
  /** The tree features' head table ('collins' or a JSON file). */
  headRules: string;
}

export class LinearSetReranker implements TrainedReranker {
  /** Boosting: eps, rounds, a0 and the feature count; the log-linear reranker: C and the feature count. */
  readonly selected: Record<string, number | string>;
  /** Boosting with dev data: dev Score against rounds, one curve per eps. */
  readonly curves?: Curve[];
  readonly curveAxis?: string;

  private constructor(
    private readonly problem: CandidateProblem,
    private readonly trained: TrainedLinear,
    method: string,
  ) {
    const info = trained.model.info;
    const features = problem.dictionary.length;
    this.selected =
      method === 'loglinear'
        ? { C: info.l2 as number, features }
        : { eps: info.eps as number, rounds: info.rounds as number, a0: +(info.a0 as number).toFixed(3), features };
    if (trained.curves.length > 0) {
      this.curves = trained.curves;
      this.curveAxis = 'rounds';
    }
  }

  /** Trains on `train`'s features with `settings` (the method and its grid), choosing on `dev`. */
  static async train(
    train: CandidateSet,
    dev: CandidateSet,
    features: CandidateFeatureOptions,
    settings: LinearTrainSettings,
    knobs: TrainerKnobs,
    ctx: StepContext,
  ): Promise<LinearSetReranker> {
    const problem = await candidateProblem(train, features.cutoff, features.headRules, ctx);
    const { trained } = await trainLinearReranker(
      {
        train: await problem.data(train),
        dev: await problem.data(dev),
        dictionary: problem.dictionary,
        trainSentences: train.sentences.length,
      },
      settings,
      knobs,
    );
    return new LinearSetReranker(problem, trained, settings.method ?? 'boost');
  }

  async score(set: CandidateSet, ctx: StepContext): Promise<number[][]> {
    const { a0, dense } = this.trained;
    const data = await this.problem.data(set);
    const { scores } = rerankScores(data, a0, dense, ctx.threads);
    const { sentencePtr } = data.arrays();
    return set.sentences.map((_, i) => Array.from(scores.subarray(sentencePtr[i], sentencePtr[i + 1])));
  }

  async choose(set: CandidateSet, ctx: StepContext): Promise<number[]> {
    const { a0, dense } = this.trained;
    const { chosen } = rerankScores(await this.problem.data(set), a0, dense, ctx.threads);
    return Array.from(chosen, (c) => (c >= 0 ? c : 0));
  }
}
