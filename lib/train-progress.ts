/**
 * The one progress event every trainer reports (taggers, parsers, rerankers), and the run
 * options every `X.train(data, options, run)` takes as its third argument. Family-specific
 * progress objects (a tagger's dev score, a parser's chart pruning) stay available through
 * each trainer's own `options.onProgress`; this event is what a progress bar, a log line or
 * the pipeline needs.
 */

/** One progress report of a training run. */
export interface TrainProgress {
  /** What is being counted: 'epoch', 'iteration', 'step', 'example', 'round'. */
  phase: string;
  /** Units of `phase` done so far. */
  done: number;
  /** Units of `phase` in the whole run, when known. */
  total?: number;
  /** Units done per second since training started. */
  rate: number;
  /** The current training loss (objective, or the perceptron's mistakes), when there is one. */
  loss?: number;
  /** The current dev score (F1 or accuracy in percent), when dev data was given. */
  devScore?: number;
  /** What `devScore` measures ('F1', 'acc'), when the trainer says. */
  devMetric?: string;
}

/**
 * How a training run is driven: cancellation and progress.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const tagger = await Tagger.train(rows, { algo: 'crf', columns, label: 'ne' }, {
 *   signal: controller.signal,
 *   onProgress: (p) => console.error(`${p.phase} ${p.done}/${p.total} loss ${p.loss}`),
 * });
 * ```
 */
export interface TrainRun {
  /** Stops training with an AbortError. */
  signal?: AbortSignal;
  onProgress?: (progress: TrainProgress) => void;
}

/**
 * Merges `run` into a trainer's own options: the signal (either one stops the run) and the
 * family's progress callback, which also feeds `run.onProgress` through `toEvent`.
 */
export function withRun<P, O extends { signal?: AbortSignal; onProgress?: (p: P) => void }>(
  options: O,
  run: TrainRun | undefined,
  toEvent: (p: P) => Omit<TrainProgress, 'rate'>,
): O {
  if (run === undefined || (run.signal === undefined && run.onProgress === undefined)) return options;
  const start = Date.now();
  const own = options.onProgress;
  const report = run.onProgress;
  const signal =
    options.signal && run.signal ? AbortSignal.any([options.signal, run.signal]) : (options.signal ?? run.signal);
  return {
    ...options,
    signal,
    onProgress: (p: P) => {
      own?.(p);
      if (report) {
        const e = toEvent(p);
        const seconds = (Date.now() - start) / 1000;
        report({ ...e, rate: seconds > 0 ? e.done / seconds : 0 });
      }
    },
  };
}

/** Completes events with their rate: units per second since this call. */
export function rateStamp(): (e: Omit<TrainProgress, 'rate'>) => TrainProgress {
  const start = Date.now();
  return (e) => {
    const seconds = (Date.now() - start) / 1000;
    return { ...e, rate: seconds > 0 ? e.done / seconds : 0 };
  };
}

/** A progress callback that adds the rate (units per second since this call) to each event. */
export function reporter(
  onProgress: ((p: TrainProgress) => void) | undefined,
): ((e: Omit<TrainProgress, 'rate'>) => void) | undefined {
  if (onProgress === undefined) return undefined;
  const stamp = rateStamp();
  return (e) => onProgress(stamp(e));
}
