/**
 * The rerankers trained on candidate sets (TrainedReranker): the kernel perceptron's grid keeps
 * the setting with the highest summed dev Score, the first on ties (checked against every
 * setting trained alone); boosting's chosen eps and rounds are the best point of its dev curves,
 * and its dev choice sums to that point's Score.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { scoreSet } from '../../lib/pipeline/evaluate.js';
import { LinearSetReranker, checkpoints } from '../../lib/rerank/linear-set-reranker.js';
import { PerceptronReranker } from '../../lib/rerank/perceptron.js';
import { PerceptronGridReranker } from '../../lib/rerank/perceptron-grid.js';
import type { CandidateSet, StepContext } from '../../lib/training/model-contract.js';
import { perturbedNbest } from './boost-fixture.js';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const sets = (['train', 'dev', 'test'] as const).map((name, i) => {
  const file = tmp.file(`sets-${name}.jsonl`);
  perturbedNbest(join(repoRoot, 'data', 'gum-open', `${name}.mrg`), file, i + 1, name === 'train' ? 60 : 25);
  return scoreSet(readNbestSync(file));
});
const [train, dev, test] = sets;
const ctx: StepContext = { threads: 1, seed: 3 };

function summed(set: CandidateSet, chosen: ArrayLike<number>): number {
  let sum = 0;
  set.scores.forEach((row, i) => (sum += row[chosen[i]]));
  return sum;
}

describe('rerankers trained on candidate sets', () => {
  it('the perceptron grid keeps the best setting on dev', async () => {
    const grid = { lambda: [0.3, 0.5], beta: [0, 0.2], baseWeight: [0], featureWeight: [0] };
    const options = { kernel: 'tree' as const, epochs: 1, prediction: 'averaged' as const };
    const labels: string[] = [];
    const trained = await PerceptronGridReranker.train(train, dev, grid, options, 'p', ctx, (label) => {
      labels.push(label);
      return {};
    });
    expect(labels).toEqual([
      'p lambda=0.3 beta=0',
      'p lambda=0.5 beta=0',
      'p lambda=0.3 beta=0.2',
      'p lambda=0.5 beta=0.2',
    ]);

    let best: { score: number; lambda: number; beta: number; model: PerceptronReranker } | undefined;
    const y: Record<string, number[]> = {};
    for (const beta of grid.beta)
      for (const lambda of grid.lambda) {
        const model = await PerceptronReranker.train(train.sentences, {
          ...options,
          lambda,
          beta,
          baseWeight: 0,
          seed: 3,
          threads: 1,
        });
        const score = summed(dev, (await model.choose(dev.sentences, { threads: 1 })).chosen);
        (y[`beta=${beta}`] ??= []).push(score);
        if (!best || score > best.score) best = { score, lambda, beta, model };
      }
    const b = best as NonNullable<typeof best>;
    // The settings differ on dev, so the choice among them is tested.
    expect(new Set(Object.values(y).flat()).size).toBeGreaterThan(1);
    expect(trained.selected).toEqual({
      lambda: b.lambda,
      beta: b.beta,
      mode: 'averaged',
      support: b.model.info().support,
    });
    expect(trained.curveAxis).toBe('lambda');
    expect(trained.curves).toEqual(
      grid.beta.map((beta) => ({ label: `beta=${beta}`, x: grid.lambda, y: y[`beta=${beta}`] })),
    );
    expect(summed(dev, await trained.choose(dev, ctx))).toBe(b.score);
    expect(await trained.choose(test, ctx)).toEqual(
      Array.from((await b.model.choose(test.sentences, { threads: 1 })).chosen),
    );
  }, 120_000);

  it("boosting's choice is the best point of its dev curves", async () => {
    const trained = await LinearSetReranker.train(
      train,
      dev,
      { cutoff: 2, headRules: 'collins' },
      { method: 'boost', rounds: 150, eps: [0.001, 0.01], threads: 1, progress: false },
      { chunk: 50, devRounds: checkpoints },
      ctx,
    );
    const curves = trained.curves ?? [];
    expect(trained.curveAxis).toBe('rounds');
    expect(curves.map((c) => c.label)).toEqual(['eps=0.001', 'eps=0.01']);
    const top = Math.max(...curves.flatMap((c) => c.y));
    const curve = curves.find((c) => c.label === `eps=${trained.selected.eps}`) as (typeof curves)[number];
    expect(curve.y[curve.x.indexOf(trained.selected.rounds as number)]).toBe(top);
    expect(summed(dev, await trained.choose(dev, ctx))).toBeCloseTo(top, 6);
    expect(trained.selected.features).toBeGreaterThan(10);
  }, 120_000);
});
