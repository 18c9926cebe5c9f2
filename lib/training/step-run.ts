/** A pipeline step's side of the common progress event: a trainer's TrainProgress drawn as the step's bar. */
import type { TrainProgress, TrainRun } from '../train-progress.js';
import type { StepContext } from './model-contract.js';

/** Cancellation and progress for a trainer run inside a pipeline step, labelled `label`. */
export function stepRun(ctx: StepContext, label: string): TrainRun {
  return { signal: ctx.signal, onProgress: (p) => ctx.progress?.(label, p.done, p.total ?? p.done, statusOf(p)) };
}

function statusOf(p: TrainProgress): string | undefined {
  const parts: string[] = [];
  if (p.loss !== undefined) parts.push(`loss ${p.loss.toPrecision(6)}`);
  if (p.devScore !== undefined) parts.push(`dev ${p.devScore.toFixed(2)}`);
  return parts.length > 0 ? parts.join('  ') : undefined;
}
