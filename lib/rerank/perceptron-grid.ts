/**
 * The kernel perceptron reranker trained on candidate sets (the pipeline's reranker steps;
 * TrainedReranker, lib/training/model-contract.ts): every setting of a grid (lambda, beta,
 * the base-model prior g, the feature weight w) is trained by `PerceptronReranker.train`, and
 * the one with the highest summed dev Score (the first on ties) is kept, as the linear
 * rerankers keep their best eps or C.
 */
import { optionError } from '../errors.js';
import type { CandidateSet, Curve, StepContext, TrainedReranker } from '../training/model-contract.js';
import type { TrainRun } from '../train-progress.js';
import { PerceptronReranker, type PerceptronTrainOptions } from './perceptron.js';

/** The values tried on dev: every combination is trained. */
export interface PerceptronGrid {
  lambda: readonly number[];
  beta: readonly number[];
  baseWeight: readonly number[];
  featureWeight: readonly number[];
}

/** What every setting shares; `headRules` reaches the settings with a feature weight above 0. */
export type PerceptronGridOptions = Omit<
  PerceptronTrainOptions,
  'lambda' | 'beta' | 'baseWeight' | 'featureWeight' | 'seed' | 'threads' | 'checkpoint' | 'resume' | 'onProgress'
>;

/** The summed Score of the candidates chosen (a sentence without its choice counts its first). */
function summedScore(set: CandidateSet, chosen: ArrayLike<number>): number {
  let sum = 0;
  set.scores.forEach((row, i) => (sum += row[chosen[i]] ?? row[0]));
  return sum;
}

interface Setting {
  lambda: number;
  beta: number;
  baseWeight: number;
  featureWeight: number;
}

export class PerceptronGridReranker implements TrainedReranker {
  readonly selected: Record<string, number | string>;
  /** Dev Score against lambda, one curve per other setting (with more than one lambda). */
  readonly curves?: Curve[];
  readonly curveAxis = 'lambda';

  private constructor(
    private readonly model: PerceptronReranker,
    setting: Setting,
    prediction: string,
    curves: Curve[] | undefined,
    /** The dev set and its choice: voted prediction costs a kernel sum per support candidate. */
    private readonly dev: { set: CandidateSet; chosen: number[] },
  ) {
    this.selected = {
      lambda: setting.lambda,
      beta: setting.beta,
      ...(setting.baseWeight !== 0 ? { baseWeight: setting.baseWeight } : {}),
      ...(setting.featureWeight !== 0 ? { featureWeight: setting.featureWeight } : {}),
      mode: prediction,
      support: model.info().support,
    };
    this.curves = curves;
  }

  /**
   * Trains every setting of `grid` on `train` (`name` labels the settings' progress, log lines
   * and checkpoints; `run` gives a setting's cancellation and progress) and keeps the best on `dev`.
   */
  static async train(
    train: CandidateSet,
    dev: CandidateSet,
    grid: PerceptronGrid,
    options: PerceptronGridOptions,
    name: string,
    ctx: StepContext,
    run: (label: string) => TrainRun,
  ): Promise<PerceptronGridReranker> {
    const { headRules, ...shared } = options;
    let best: { model: PerceptronReranker; score: number; setting: Setting; chosen: number[] } | undefined;
    const curves: Curve[] = [];
    for (const featureWeight of grid.featureWeight)
      for (const baseWeight of grid.baseWeight) {
        for (const beta of grid.beta) {
          const curveLabel = [
            `beta=${beta}`,
            ...(grid.baseWeight.length > 1 ? [`g=${baseWeight}`] : []),
            ...(grid.featureWeight.length > 1 ? [`w=${featureWeight}`] : []),
          ].join(' ');
          const curve: Curve = { label: curveLabel, x: [], y: [] };
          for (const lambda of grid.lambda) {
            const label = `${name} lambda=${lambda} beta=${beta}${baseWeight !== 0 ? ` g=${baseWeight}` : ''}${featureWeight !== 0 ? ` w=${featureWeight}` : ''}`;
            const model = await PerceptronReranker.train(
              train.sentences,
              {
                ...shared,
                lambda,
                beta,
                baseWeight,
                ...(featureWeight > 0 ? { featureWeight, headRules } : {}),
                seed: ctx.seed,
                threads: ctx.threads,
                ...ctx.checkpoints?.(label),
              },
              run(label),
            );
            const { chosen } = await model.choose(dev.sentences, { threads: ctx.threads, signal: ctx.signal });
            const score = summedScore(dev, chosen);
            curve.x.push(lambda);
            curve.y.push(score);
            ctx.log?.(
              `  ${label.slice(name.length + 1)}: ${model.info().support} support candidates; dev Score ${score.toFixed(1)}`,
            );
            if (!best || score > best.score)
              best = { model, score, setting: { lambda, beta, baseWeight, featureWeight }, chosen: Array.from(chosen) };
          }
          curves.push(curve);
        }
      }
    if (!best) throw optionError('perceptron grid: every list of values must be non-empty');
    return new PerceptronGridReranker(
      best.model,
      best.setting,
      shared.prediction ?? 'averaged',
      grid.lambda.length > 1 ? curves : undefined,
      { set: dev, chosen: best.chosen },
    );
  }

  async choose(set: CandidateSet, ctx: StepContext): Promise<number[]> {
    if (set === this.dev.set) return this.dev.chosen.slice();
    const { chosen } = await this.model.choose(set.sentences, { threads: ctx.threads, signal: ctx.signal });
    return Array.from(chosen);
  }
}
