/**
 * The kernel perceptron rerankers (lib/rerank/perceptron.ts: tree-kernel, tagging-kernel or
 * linear, voted or averaged; a tree kernel optionally plus the reranking features) behind the
 * pipeline's Reranker interface. Every setting of the grids is trained; the one with the
 * highest summed dev Score wins.
 */
import { stepRun } from '../../training/step-run.js';
import { PerceptronReranker } from '../../rerank/perceptron.js';
import { type CandidateSet, type Curve, type Reranker, type StepContext, type TrainedReranker } from '../components.js';
import { perceptronKernel, type PerceptronConfig } from '../config.js';
import { loadHeadRules } from '../../io/head-rules-file.js';

function summedScore(set: CandidateSet, chosen: ArrayLike<number>): number {
  let sum = 0;
  set.scores.forEach((row, i) => (sum += row[chosen[i]] ?? row[0]));
  return sum;
}

export function perceptronReranker(config: PerceptronConfig & { name: string }, task: 'parse' | 'tag'): Reranker {
  const kernel = perceptronKernel(config, task);
  return {
    name: config.name,
    async train(train: CandidateSet, dev: CandidateSet, ctx: StepContext): Promise<TrainedReranker> {
      let best:
        | {
            model: PerceptronReranker;
            score: number;
            lambda: number;
            beta: number;
            baseWeight: number;
            featureWeight: number;
            devChoice: number[];
          }
        | undefined;
      const curves: Curve[] = [];
      const headRules = config.featureWeight.some((w) => w > 0) ? loadHeadRules(config.headRules) : undefined;
      for (const featureWeight of config.featureWeight)
        for (const baseWeight of config.baseWeight) {
          for (const beta of config.beta) {
            const settingsLabel = [
              `beta=${beta}`,
              ...(config.baseWeight.length > 1 ? [`g=${baseWeight}`] : []),
              ...(config.featureWeight.length > 1 ? [`w=${featureWeight}`] : []),
            ].join(' ');
            const curve: Curve = { label: settingsLabel, x: [], y: [] };
            for (const lambda of config.lambda) {
              const label = `${config.name} lambda=${lambda} beta=${beta}${baseWeight !== 0 ? ` g=${baseWeight}` : ''}${featureWeight !== 0 ? ` w=${featureWeight}` : ''}`;
              const model = await PerceptronReranker.train(
                train.sentences,
                {
                  kernel,
                  lambda,
                  beta,
                  baseWeight,
                  epochs: config.epochs,
                  chunks: config.chunks,
                  prediction: config.mode,
                  ...(featureWeight > 0 ? { featureWeight, headRules } : {}),
                  ...(config.wordFeature !== 'none' ? { wordFeature: config.wordFeature, sim1: 0.5, sim2: 0.5 } : {}),
                  normalize: config.normalize,
                  score: config.score,
                  seed: ctx.seed,
                  threads: ctx.threads,
                  ...ctx.checkpoints?.(label),
                },
                stepRun(ctx, label),
              );
              const { chosen } = await model.choose(dev.sentences, { threads: ctx.threads, signal: ctx.signal });
              const score = summedScore(dev, chosen);
              curve.x.push(lambda);
              curve.y.push(score);
              ctx.log?.(
                `  ${label.slice(config.name.length + 1)}: ${model.info().support} support candidates; dev Score ${score.toFixed(1)}`,
              );
              if (!best || score > best.score)
                best = { model, score, lambda, beta, baseWeight, featureWeight, devChoice: Array.from(chosen) };
            }
            curves.push(curve);
          }
        }
      const b = best as NonNullable<typeof best>;
      return {
        selected: {
          lambda: b.lambda,
          beta: b.beta,
          ...(b.baseWeight !== 0 ? { baseWeight: b.baseWeight } : {}),
          ...(b.featureWeight !== 0 ? { featureWeight: b.featureWeight } : {}),
          mode: config.mode,
          support: b.model.info().support,
        },
        curves: config.lambda.length > 1 ? curves : undefined,
        curveAxis: 'lambda',
        async choose(set: CandidateSet): Promise<number[]> {
          // Voted prediction costs a kernel sum per support candidate: dev was chosen already.
          if (set === dev) return b.devChoice.slice();
          const { chosen } = await b.model.choose(set.sentences, { threads: ctx.threads, signal: ctx.signal });
          return Array.from(chosen);
        },
      };
    },
  };
}
