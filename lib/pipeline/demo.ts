/**
 * The demo's pipeline: parsing on the embedded GUM data (data/gum-open, CC BY), sized to
 * finish in under 10 minutes on 2 cores. `demoConfig` is also what examples/pipeline.ts runs.
 */
import { join, resolve } from 'node:path';
import { packageRoot } from '../io/package-info.js';
import { validatePipelineConfig, type PipelineConfig, type PipelineConfigInput } from './config.js';

/** The sizes the demo chooses (printed by `structrank demo`). */
export const DEMO_SIZES = {
  trainLimit: 1500,
  devLimit: 200,
  testLimit: 294,
  maxLength: 40,
  folds: 5,
  nbest: 20,
} as const;

export function demoConfigInput(output = resolve('structrank-demo'), threads = 0): PipelineConfigInput {
  const data = join(packageRoot, 'data', 'gum-open');
  return {
    task: 'parse',
    data: {
      train: join(data, 'train.mrg'),
      dev: join(data, 'dev.mrg'),
      test: join(data, 'test.mrg'),
      trainLimit: DEMO_SIZES.trainLimit,
      devLimit: DEMO_SIZES.devLimit,
      testLimit: DEMO_SIZES.testLimit,
      maxLength: DEMO_SIZES.maxLength,
    },
    folds: DEMO_SIZES.folds,
    nbest: DEMO_SIZES.nbest,
    base: { markov: 2, crf: false },
    rerankers: [
      { type: 'boost', rounds: 4000, eps: [0.001, 0.0025, 0.005], cutoff: 3 },
      { type: 'perceptron', kernel: 'tree', lambda: [0.3, 0.5], beta: [0.2], epochs: 1, mode: 'voted' },
      { type: 'loglinear', l2: [1, 10, 100], cutoff: 3 },
    ],
    threads,
    output,
  };
}

export function demoConfig(output?: string, threads?: number): PipelineConfig {
  return validatePipelineConfig(demoConfigInput(output, threads), 'demo config', process.cwd());
}
