/**
 * Boosting and the log-linear reranker (lib/rerank/linear-set-reranker.ts) as the pipeline's
 * rerankers: a config entry read into the training settings and the step's checkpoints,
 * progress and log.
 */
import type { StepCheckpoints, TrainerKnobs } from '../../rerank/trainers.js';
import type { LinearTrainSettings } from '../../rerank/linear-reranker.js';
import { checkpoints, LinearSetReranker } from '../../rerank/linear-set-reranker.js';
import { stepRun } from '../../training/step-run.js';
import type { CandidateSet, Reranker, StepContext } from '../components.js';
import type { BoostConfig, LoglinearConfig } from '../config.js';

/**
 * A reranker's training checkpoints where the step keeps them (a distributed job: the store),
 * undefined when the step keeps none. The dev data is not in the fingerprint: it chooses among
 * the settings after training, it does not shape them.
 */
function stepCheckpoints(
  ctx: StepContext,
  label: string,
  shaping: Record<string, unknown>,
): StepCheckpoints | undefined {
  const files = ctx.checkpoints?.(label);
  return files && { ...files, shaping };
}

/** A linear reranker step: `settings` trained on the training set's features, chosen on dev. */
function linearStep(
  name: string,
  config: { cutoff: number; headRules: string },
  settings: LinearTrainSettings,
  knobs: Omit<TrainerKnobs, 'checkpoints'>,
  shaping: Record<string, unknown>,
): Reranker {
  return {
    name,
    train: (train: CandidateSet, dev: CandidateSet, ctx: StepContext) =>
      LinearSetReranker.train(
        train,
        dev,
        config,
        { ...settings, threads: ctx.threads, signal: ctx.signal, progress: false },
        {
          ...knobs,
          // A job retried after its worker died continues each setting from its last checkpoint.
          checkpoints: stepCheckpoints(ctx, name, shaping),
          onSettingProgress: (setting, e) => stepRun(ctx, `${name} ${setting}`).onProgress?.(e),
          log: (line) => ctx.log?.(`  ${line}`),
        },
        ctx,
      ),
  };
}

export function boostReranker(config: BoostConfig & { name: string }): Reranker {
  return linearStep(
    config.name,
    config,
    { method: 'boost', rounds: config.rounds, eps: config.eps, weighting: config.weighting },
    { chunk: 500, devRounds: checkpoints },
    { method: 'sparse', eps: config.eps, weighting: config.weighting ?? 'score' },
  );
}

export function loglinearReranker(config: LoglinearConfig & { name: string }): Reranker {
  return linearStep(
    config.name,
    config,
    { method: 'loglinear', rounds: config.iterations, l2: config.l2 },
    {},
    { l2: config.l2 },
  );
}
