/**
 * The shared sharded L-BFGS coordinator (lib/distributed/lbfgs-coordinator.ts) and the shared
 * parameter mixing (lib/distributed/mixing.ts) over fake shards: small closed-form problems
 * with known answers, and a checkpoint in the middle giving the uninterrupted run.
 */
import { describe, expect, it } from 'vitest';
import {
  shardedLbfgs,
  type CrfShardResult,
  type GradientExecutor,
  type ShardObjective,
} from '../../lib/distributed/lbfgs-coordinator.js';
import {
  mixingTrainer,
  mixRounds,
  ParameterMixing,
  roundSeed,
  type PerceptronShardResult,
  type ShardEpochs,
} from '../../lib/distributed/mixing.js';

/** Shard k's loss: sum_f (x_f - c_k,f)^2, so the summed minimum (no prior) is the mean of the c_k. */
function quadraticShards(centres: number[][]): GradientExecutor & { evaluations: number } {
  return {
    shards: centres.length,
    bytesMoved: 0,
    evaluations: 0,
    async crfGradients(x) {
      this.evaluations++;
      return centres.map((c): CrfShardResult => {
        const gradient = new Float64Array(x.length);
        let loss = 0;
        for (let f = 0; f < x.length; f++) {
          loss += (x[f] - c[f]) ** 2;
          gradient[f] = 2 * (x[f] - c[f]);
        }
        return { loss, gradient };
      });
    },
    close: async () => {},
  };
}

/** An L2 prior c2 |x|^2 added before the shards' terms, with the shards' count in the state. */
function priorObjective(c2: number, seen: { start?: Float64Array }): ShardObjective {
  let extra = 0;
  return {
    stateKind: 'test-lbfgs',
    start(x0) {
      seen.start = Float64Array.from(x0);
      extra = 7;
    },
    sum(x, parts, gradient) {
      let value = 0;
      for (let f = 0; f < x.length; f++) {
        value += c2 * x[f] * x[f];
        gradient[f] = 2 * c2 * x[f];
      }
      for (const p of parts) for (let f = 0; f < x.length; f++) gradient[f] += p.gradient[f];
      for (const p of parts) value += p.loss;
      return value;
    },
    loss: (value) => value / 2,
    saveExtra: () => ({ header: { extra }, vectors: [Float64Array.of(extra)] }),
    loadExtra(p) {
      const v = p.vectors.pop() as Float64Array;
      expect(p.header.extra).toBe(v[0]);
      extra = v[0];
    },
  };
}

describe('sharded L-BFGS coordinator', () => {
  const centres = [
    [1, -2, 3],
    [3, 0, -1],
    [2, 4, 1],
  ];

  it('minimises the summed shard objective plus the prior (closed form)', async () => {
    const c2 = 0.5;
    const seen: { start?: Float64Array } = {};
    const trainer = shardedLbfgs(priorObjective(c2, seen), quadraticShards(centres));
    let r = await trainer.step(() => Float64Array.of(10, 10, 10));
    expect(Array.from(seen.start as Float64Array)).toEqual([10, 10, 10]);
    for (let i = 0; i < 50 && !r.converged; i++) r = await trainer.step(() => new Float64Array(3));
    // d/dx [c2 x^2 + sum_k (x - c_k)^2] = 0  =>  x = sum_k c_k / (c2 + K).
    for (let f = 0; f < 3; f++) {
      const want = centres.reduce((s, c) => s + c[f], 0) / (c2 + centres.length);
      expect(r.weights[f]).toBeCloseTo(want, 4);
    }
    expect(r.loss).toBeGreaterThan(0);
  });

  it('a run restored from its state after 2 steps equals the uninterrupted run, bit for bit', async () => {
    const run = async (stopAt?: number): Promise<Float64Array[]> => {
      let trainer = shardedLbfgs(priorObjective(0.1, {}), quadraticShards(centres));
      const out: Float64Array[] = [];
      for (let i = 0; i < 5; i++) {
        if (i === stopAt) {
          const bytes = trainer.saveState();
          trainer = shardedLbfgs(priorObjective(0.1, {}), quadraticShards(centres));
          trainer.loadState(bytes);
        }
        out.push(Float64Array.from((await trainer.step(() => Float64Array.of(5, -5, 5))).weights));
      }
      return out;
    };
    const whole = await run();
    const resumed = await run(2);
    resumed.forEach((w, i) => expect(Buffer.from(w.buffer)).toEqual(Buffer.from(whole[i].buffer)));
  });
});

/** Fake epochs: shard k moves every weight by (k + 1) and makes k + round mistakes; its average is half its end weights. */
function fakeEpochs(shards: number, seeds: number[]): ShardEpochs {
  return {
    shards,
    async perceptronEpochs(w, seed) {
      seeds.push(seed);
      return Array.from({ length: shards }, (_, k): PerceptronShardResult => {
        const weights = Float64Array.from(w, (v) => v + k + 1);
        return { mistakes: k + seeds.length, weights, averaged: Float64Array.from(weights, (v) => v / 2) };
      });
    },
    close: async () => {},
  };
}

describe('parameter mixing', () => {
  it('mixes by share of mistakes, averages over rounds, seeds each round', async () => {
    const seeds: number[] = [];
    const mixing = new ParameterMixing(fakeEpochs(2, seeds), 'updates', 3);
    const m1 = await mixing.round(() => Float64Array.of(0, 0));
    // Round 1: mistakes 1 and 2 -> mu = 1/3, 2/3; end weights 1 and 2 -> 5/3.
    expect(m1).toBe(3);
    expect(mixing.weights?.[0]).toBeCloseTo(5 / 3, 12);
    expect(mixing.averaged()[0]).toBeCloseTo(5 / 6, 12);
    await mixing.round(() => Float64Array.of(0, 0));
    // Round 2: mistakes 2 and 3 -> mu = 2/5, 3/5 over 5/3 + 1 and 5/3 + 2.
    const w2 = (2 / 5) * (5 / 3 + 1) + (3 / 5) * (5 / 3 + 2);
    expect(mixing.weights?.[1]).toBeCloseTo(w2, 12);
    expect(mixing.averaged()[1]).toBeCloseTo((5 / 6 + w2 / 2) / 2, 12);
    expect(seeds).toEqual([roundSeed(3, 0), roundSeed(3, 1)]);
  });

  it('uniform weighting ignores the mistakes', async () => {
    const mixing = new ParameterMixing(fakeEpochs(2, []), 'uniform', 0);
    await mixing.round(() => Float64Array.of(0));
    expect(mixing.weights?.[0]).toBe(1.5);
  });

  it('the tagger steps, the fixed rounds and a restored run give the same weights', async () => {
    const spec = { seed: 11 } as Parameters<typeof mixingTrainer>[0];
    const trainer = mixingTrainer(spec, fakeEpochs(3, []), 'updates');
    let stepped: Float64Array = new Float64Array(0);
    let state: Uint8Array = new Uint8Array(0);
    for (let i = 0; i < 4; i++) {
      stepped = (await trainer.step(() => new Float64Array(4))).weights;
      if (i === 1) state = trainer.saveState();
    }
    const rounds = await mixRounds(fakeEpochs(3, []), 4, 4, 11, 'updates');
    expect(Buffer.from(rounds.averaged.buffer)).toEqual(Buffer.from(stepped.buffer));
    // Restored after round 2: two more rounds reach the same weights (the fake's mistakes count its own calls).
    const restored = mixingTrainer(spec, fakeEpochs(3, [0, 0]), 'updates');
    restored.loadState(state);
    let again: Float64Array = new Float64Array(0);
    for (let i = 0; i < 2; i++) again = (await restored.step(() => new Float64Array(4))).weights;
    expect(Buffer.from(again.buffer)).toEqual(Buffer.from(stepped.buffer));
    expect(() => mixingTrainer(spec, fakeEpochs(2, []), 'updates').loadState(state)).toThrow(/3 mixing shards/);
  });
});
