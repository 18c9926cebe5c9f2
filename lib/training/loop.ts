/**
 * The one training loop of the iterative trainers (the taggers, the CRF parser, the kernel
 * perceptron, the boosting and log-linear rerankers): steps until the asked length,
 * convergence or patience runs out; dev scoring and the choice of the best model; checkpoints
 * after every step and resuming from one; cancellation between steps; one event per step. A model family supplies a `Trainer`: how
 * to take a step, score dev, keep and restore the best model and save its own state.
 */
import { AbortError, inModelFile, ModelFileError } from '../errors.js';
import { fingerprintOf, loadCheckpoint, saveCheckpoint, type CheckpointTrainer } from '../io/checkpoint.js';

/** A dev score: higher is better. */
export interface DevValue {
  value: number;
}

/** What a step did: the steps done in the run after it, its loss, and whether training converged. */
export interface StepResult {
  done: number;
  loss: number;
  converged?: boolean;
}

/**
 * Training steps run elsewhere (lib/distributed: CRF gradients summed over shards, perceptron
 * parameter mixing): each returns the weights to use after it.
 */
export interface ExternalTrainer {
  /** One step; `initial` gives the weights to start from (asked for on the first step only). */
  step(initial: () => Float64Array): Promise<{ loss: number; converged: boolean; weights: Float64Array }>;
  /** The coordinator's optimizer state after the last step, for a training checkpoint. */
  saveState(): Uint8Array;
  /** Continues from `saveState`'s bytes; returns the weights reached. */
  loadState(bytes: Uint8Array): Float64Array;
  close(): Promise<void>;
}

/** The dev-best bookkeeping of a run, as a checkpoint keeps it. */
export interface LoopState<S extends DevValue> {
  best: S | undefined;
  /** The step the best model was scored after. */
  bestStep: number;
  /** Evaluations since the last improvement. */
  bad: number;
  /** Training had stopped (converged or out of patience): resuming trains no further. */
  stopped: boolean;
}

/** What a trainer's step is given: the run's position and the hand-off to an external trainer. */
export interface StepContext {
  /** Steps done so far. */
  done: number;
  /** Steps this call may take at most (at least one is taken). */
  until: number;
  /** One step by the external trainer (started on first use); the trainer's weights follow it. Set when the trainer has `external`. */
  externalStep?: () => Promise<{ loss: number; converged: boolean }>;
}

/** One model family's side of training. */
export interface Trainer<S extends DevValue = DevValue> {
  /**
   * Advances training by at least one and at most `until - done` steps. A trainer of several
   * settings one after another may go further: to the end of a setting that ends early, or
   * past the steps a resumed setting's checkpoint section already holds.
   */
  step(context: StepContext): Promise<StepResult>;
  /** Scores the current model on dev; absent when there is no dev data. */
  devScore?: () => Promise<S>;
  /** Keeps the current model as the best so far. */
  snapshot?(): void;
  /** Puts the best model back after the last step (`done` steps; the best was after `bestStep`). */
  restore?(bestStep: number, done: number): void;
  /** The binary state of a checkpoint (native optimizer state, kept weights), by name. */
  sections(): Record<string, Uint8Array>;
  /** Continues from a checkpoint's sections. */
  loadSections(sections: Record<string, Uint8Array>): void;
  /** The checkpoint's JSON bookkeeping in this family's format (default: the LoopState, best as null when none). */
  saveState?(state: LoopState<S>): unknown;
  /**
   * Where a resumed run continues (default: the checkpoint's step). Settings trained one after
   * another, whose step count depends on the run's length, start over at 0 and skip through
   * what their sections hold.
   */
  resumeAt?(step: number): number;
  /** Reads `saveState`'s JSON back, after `step` steps. */
  loadState?(json: unknown, step: number, sections: Record<string, Uint8Array>): LoopState<S>;
  /** Where the weights of an external trainer go (required when a step calls `externalStep`). */
  external?: {
    start(): Promise<ExternalTrainer>;
    weights(): Float64Array;
    setWeights(weights: Float64Array): void;
  };
}

/** Checkpoints of a run: the file written after every step and the one resumed from. */
export interface CheckpointPlan {
  trainer: CheckpointTrainer;
  file?: string;
  resume?: string;
  /** The model-shaping options, named when a resumed checkpoint differs. */
  options: Record<string, unknown>;
  /** What the fingerprint hashes: the options and the data (computed only with a file or resume). */
  fingerprint: () => Iterable<string | Uint8Array>;
  /** Refuse a checkpoint of more steps than the run asks for, naming them so ('passes', 'epochs'). */
  refuseLonger?: string;
}

export interface TrainingPlan<S extends DevValue> {
  /** Steps of the whole run. */
  total: number;
  /** Score dev every this many steps (and after converging); default 1. */
  evalEvery?: number;
  /**
   * Dev chooses the model: the best evaluation's model is kept and patience applies (default
   * true). Otherwise every evaluation is recorded as the model's score and training runs on.
   */
  devChooses?: boolean;
  /** Stop after this many evaluations without an improvement (0 = never; default 0). */
  patience?: number;
  checkpoint?: CheckpointPlan;
  signal?: AbortSignal;
  /** After every step: its loss, the dev score when dev was scored, the best so far. */
  onStep?: (event: StepEvent<S>) => void;
}

export interface StepEvent<S extends DevValue> {
  done: number;
  total: number;
  loss: number;
  dev?: S;
  best?: S;
  /** This step's evaluation is the best so far. */
  improved: boolean;
}

export interface TrainingResult<S extends DevValue> {
  done: number;
  best?: S;
  bestStep: number;
  stopped: boolean;
}

/** The default checkpoint bookkeeping: the LoopState with `best` null when there is none. */
interface SavedLoopState<S> {
  best: S | null;
  bestStep: number;
  bad: number;
  stopped: boolean;
}

/**
 * Runs `trainer` to `plan.total` steps (or convergence, or the end of its patience), resuming
 * from and writing checkpoints, scoring dev; returns where it ended and the best dev score
 * (whose model the trainer has restored).
 */
export async function runTraining<S extends DevValue>(
  trainer: Trainer<S>,
  plan: TrainingPlan<S>,
): Promise<TrainingResult<S>> {
  const { total, checkpoint, signal } = plan;
  const evalEvery = plan.evalEvery ?? 1;
  const devChooses = plan.devChooses ?? true;
  const patience = plan.patience ?? 0;
  const devScore = trainer.devScore;
  const fingerprint =
    checkpoint && (checkpoint.file !== undefined || checkpoint.resume !== undefined)
      ? fingerprintOf(checkpoint.fingerprint())
      : '';
  let state: LoopState<S> = { best: undefined, bestStep: 0, bad: 0, stopped: false };
  let done = 0;
  let external: ExternalTrainer | undefined;
  const outOfPatience = (): boolean => devChooses && devScore !== undefined && patience > 0 && state.bad >= patience;
  try {
    if (checkpoint?.resume !== undefined) {
      const file = checkpoint.resume;
      const cp = loadCheckpoint(file, checkpoint.trainer, { fingerprint, options: checkpoint.options });
      if (checkpoint.refuseLonger !== undefined && cp.step > total)
        throw new ModelFileError(
          file,
          `checkpoint has ${cp.step} ${checkpoint.refuseLonger}, more than the ${total} asked for`,
        );
      try {
        trainer.loadSections(cp.sections);
      } catch (err) {
        throw inModelFile(err, file);
      }
      done = trainer.resumeAt ? trainer.resumeAt(cp.step) : cp.step;
      // Distributed steps had begun: their coordinator's state, and the weights it gave.
      if (trainer.external && cp.sections.external) {
        external = await trainer.external.start();
        try {
          trainer.external.setWeights(external.loadState(cp.sections.external));
        } catch (err) {
          throw inModelFile(err, file);
        }
      }
      if (trainer.loadState) state = trainer.loadState(cp.state, cp.step, cp.sections);
      else {
        const saved = cp.state as SavedLoopState<S>;
        state = { best: saved.best ?? undefined, bestStep: saved.bestStep, bad: saved.bad, stopped: saved.stopped };
      }
      state.stopped ||= outOfPatience();
    }
    let improved = false;
    const evaluate = async (score: () => Promise<S>): Promise<S> => {
      const value = await score();
      if (!devChooses) state = { ...state, best: value, bestStep: done };
      else if (state.best === undefined || value.value > state.best.value) {
        state = { ...state, best: value, bestStep: done, bad: 0 };
        improved = true;
        trainer.snapshot?.();
      } else state = { ...state, bad: state.bad + 1 };
      return value;
    };
    const to = trainer.external;
    const externalStep = to
      ? async (): Promise<{ loss: number; converged: boolean }> => {
          external ??= await to.start();
          const e = await external.step(() => to.weights());
          to.setWeights(e.weights);
          return { loss: e.loss, converged: e.converged };
        }
      : undefined;
    // The next step that is scored (all of them at once when nothing is scored or saved between).
    const nextStop = (): number => {
      if (checkpoint?.file !== undefined) return done + 1;
      if (devScore && devChooses) return Math.min(total, (Math.floor(done / evalEvery) + 1) * evalEvery);
      return total;
    };
    // Resumed at the end of a run that did not end on an evaluation: the one after the last step.
    if (done >= total && !state.stopped && devScore && (!devChooses || done % evalEvery !== 0))
      await evaluate(devScore);
    while (done < total && !state.stopped) {
      if (signal?.aborted) throw new AbortError();
      improved = false;
      const r = await trainer.step({ done, until: nextStop(), externalStep });
      done = r.done;
      let dev: S | undefined;
      // The regular evaluations are part of the run's state; the extra one after the last
      // step is not (a longer run would not make it), so the checkpoint is written between.
      const regular = devChooses && (done % evalEvery === 0 || r.converged === true);
      if (devScore && regular) dev = await evaluate(devScore);
      state = { ...state, stopped: r.converged === true || outOfPatience() };
      if (checkpoint?.file !== undefined) {
        const json = trainer.saveState
          ? trainer.saveState(state)
          : ({
              best: state.best ?? null,
              bestStep: state.bestStep,
              bad: state.bad,
              stopped: state.stopped,
            } satisfies SavedLoopState<S>);
        const sections = { ...trainer.sections(), ...(external ? { external: external.saveState() } : {}) };
        saveCheckpoint(checkpoint.file, {
          trainer: checkpoint.trainer,
          step: done,
          fingerprint,
          options: checkpoint.options,
          state: json,
          sections,
        });
      }
      if (devScore && !regular && (done >= total || state.stopped)) dev = await evaluate(devScore);
      plan.onStep?.({ done, total, loss: r.loss, dev, best: state.best, improved });
    }
    if (devChooses && state.best !== undefined) trainer.restore?.(state.bestStep, done);
    return { done, best: state.best, bestStep: state.bestStep, stopped: state.stopped };
  } finally {
    await external?.close();
  }
}
