/**
 * The linear rerankers as `Trainer`s of the one training loop (lib/training/loop.ts). A run
 * trains its settings one after another (boosting: each eps; the log-linear reranker: each
 * prior C), each in `perSetting` steps: a chunk of boosting rounds, or one L-BFGS iteration.
 * The loop scores dev at the end of every setting and keeps the strictly best one, writes the
 * checkpoint after every step and resumes from it. A checkpoint holds one section per
 * setting (its rounds, or its L-BFGS state); a resumed run starts at step 0 and each setting
 * continues from its section, so a run may be longer than the one that wrote the checkpoint.
 */
import { TrainProgressBar } from '../progress.js';
import { rateStamp, type TrainProgress } from '../train-progress.js';
import { cancelFlagFor, type CancelFlagHandle } from '../native.js';
import type { DevValue, LoopState, StepContext, StepResult, Trainer } from '../training/loop.js';
import {
  boostPrefixCurve,
  boostTrainer,
  chooseRoundsOnDev,
  chosenScore,
  decodeBoostModel,
  encodeBoostModel,
  trainLoglinear,
  type BoostMethod,
  type BoostModelData,
  type BoostStats,
  type BoostTrainerHandle,
  type LoglinearModelData,
  type RerankDataHandle,
} from './boost.js';

/** What every setting's training reports: the common progress event of the setting, and a log line when it ends. */
export interface SettingReports {
  onProgress?: (p: TrainProgress) => void;
  /** Progress of one setting (e.g. `eps=0.001`). */
  onSettingProgress?: (setting: string, p: TrainProgress) => void;
  log?: (line: string) => void;
  /** Draw a progress bar per setting on stderr. */
  bars: boolean;
}

/**
 * What both trainers share: the settings' sections of the checkpoint (its JSON stays null),
 * the dev Score of the setting just ended, and the best setting kept.
 */
abstract class SettingsTrainer<R extends { score: number }> implements Trainer<DevValue> {
  /** Steps of the whole run: `perSetting` per setting. */
  readonly total: number;
  /** The best setting on dev so far (without dev: the first). */
  best: R | undefined;
  /** The last setting trained to its end. */
  protected finished: R | undefined;
  protected readonly saved: Record<string, Uint8Array> = {};
  /** The summed dev Score of the setting just ended (the loop scores at the end of every setting). */
  readonly devScore?: () => Promise<DevValue>;

  constructor(
    readonly perSetting: number,
    settings: number,
    /** Keep every setting's state for a checkpoint (a checkpoint is written or resumed). */
    protected readonly keeps: boolean,
    protected readonly hasDev: boolean,
  ) {
    this.total = perSetting * settings;
    if (hasDev) this.devScore = async () => ({ value: (this.finished as R).score });
  }

  abstract step(context: StepContext): Promise<StepResult>;

  /** A setting ended: `result` is its model; without dev the first one is kept. */
  protected ended(result: R): void {
    this.finished = result;
    if (!this.hasDev) this.best ??= result;
  }

  snapshot(): void {
    this.best = this.finished;
  }

  sections(): Record<string, Uint8Array> {
    return this.saved;
  }

  loadSections(sections: Record<string, Uint8Array>): void {
    Object.assign(this.saved, sections);
  }

  // The sections say where each setting is.
  saveState(): null {
    return null;
  }

  resumeAt(): number {
    return 0;
  }

  loadState(): LoopState<DevValue> {
    return { best: undefined, bestStep: 0, bad: 0, stopped: false };
  }
}

/** A boosting setting trained to its end: its rounds, N chosen on dev and that N's dev Score. */
export interface BoostSetting {
  model: BoostModelData;
  eps: number;
  n: number;
  score: number;
}

export interface BoostSettingsOptions {
  method: BoostMethod;
  /** Shown on the progress bars ('boost', 'logloss'). */
  name: string;
  rounds: number;
  epsList: number[];
  weighting?: 'score' | 'uniform';
  l2?: number;
  threads?: number;
  signal?: AbortSignal;
  /** Rounds per step (per native call). */
  chunk: number;
  /** The rounds at which dev chooses N, given the rounds trained (default: every `devStep`). */
  devRounds?: (rounds: number) => number[];
  devStep?: number;
}

/** A dev curve of one setting: summed dev Score against rounds. */
export interface DevCurve {
  label: string;
  x: number[];
  y: number[];
}

/** The first round count of `x` with the highest dev Score. */
function firstBest(x: readonly number[], y: ArrayLike<number>): { rounds: number; score: number } {
  let at = 0;
  for (let i = 1; i < y.length; i++) if (y[i] > y[at]) at = i;
  return { rounds: x[at], score: y[at] };
}

interface ActiveBoost {
  index: number;
  trainer: BoostTrainerHandle;
  stats: BoostStats;
  report: (s: BoostStats & { devScore?: number }) => void;
  bar: TrainProgressBar;
  devScore?: number;
  devAt: number;
}

/**
 * Boosting (or LogLoss selection) over eps values; a step is `chunk` rounds of one eps (the
 * last step of an eps ends where its rounds do, or where no feature lowers the loss). N is
 * chosen inside each eps on dev by replaying its rounds (boostPrefixCurve); the loop picks
 * the eps.
 */
export class BoostSettingsTrainer extends SettingsTrainer<BoostSetting> {
  /** One dev curve per eps trained. */
  readonly curves: DevCurve[] = [];
  private active: ActiveBoost | undefined;
  private readonly cancel: { flag: CancelFlagHandle; dispose: () => void };

  constructor(
    private readonly train: RerankDataHandle,
    private readonly dev: RerankDataHandle | undefined,
    private readonly o: BoostSettingsOptions,
    private readonly reports: SettingReports,
    keeps: boolean,
  ) {
    super(Math.max(1, Math.ceil(o.rounds / o.chunk)), o.epsList.length, keeps, dev !== undefined);
    this.cancel = cancelFlagFor(o.signal);
  }

  /** Releases the cancel flag's listener. */
  dispose(): void {
    this.cancel.dispose();
  }

  async step({ done }: StepContext): Promise<StepResult> {
    const s = Math.floor(done / this.perSetting);
    const a = this.active ?? (await this.start(s));
    const { rounds } = this.o;
    let ended = a.stats.rounds >= rounds;
    if (!ended) {
      const want = Math.min(this.o.chunk, rounds - a.stats.rounds);
      const r = await a.trainer.run(want, this.cancel.flag);
      a.stats = r;
      // The dev score replays every round so far: refresh it at most every 3 s (and at the end).
      ended = r.done < want || r.rounds >= rounds;
      if (this.dev && (ended || performance.now() - a.devAt > 3000)) {
        a.devScore = boostPrefixCurve(this.dev, a.trainer.model(), [r.rounds], this.o.threads)[0];
        a.devAt = performance.now();
      }
      a.report({ ...r, devScore: a.devScore });
    }
    if (this.keeps) this.saved[`rounds:${a.index}`] = encodeBoostModel(a.trainer.model());
    if (ended) {
      this.finish(a);
      return { done: (s + 1) * this.perSetting, loss: a.stats.loss };
    }
    return { done: s * this.perSetting + Math.floor(a.stats.rounds / this.o.chunk), loss: a.stats.loss };
  }

  /** The native trainer of eps `index`, continued from its section when there is one. */
  private async start(index: number): Promise<ActiveBoost> {
    const { o, reports } = this;
    const eps = o.epsList[index];
    const stamp = rateStamp();
    const bar = new TrainProgressBar(`${o.name}${o.epsList.length > 1 ? ` eps=${eps}` : ''}`);
    const section = this.saved[`rounds:${index}`];
    const trainer = boostTrainer(this.train, {
      method: o.method,
      eps,
      weighting: o.weighting,
      l2: o.l2,
      threads: o.threads,
      resume: section ? decodeBoostModel(section) : undefined,
    });
    const report = (s: BoostStats & { devScore?: number }): void => {
      const event = stamp({ phase: 'round', done: s.rounds, total: o.rounds, loss: s.loss, devScore: s.devScore });
      reports.onProgress?.(event);
      reports.onSettingProgress?.(`eps=${eps}`, event);
      if (!reports.bars) return;
      bar.onProgress(
        event,
        o.method === 'sparse' ? `Work ${s.work.toFixed(2)}  Savings ${s.savings.toFixed(0)}` : undefined,
      );
    };
    const stats = await trainer.init(this.cancel.flag);
    report(stats);
    this.active = { index, trainer, stats, report, bar, devAt: performance.now() };
    return this.active;
  }

  /** The eps's rounds are all trained: N chosen on dev, its curve and its line. */
  private finish(a: ActiveBoost): void {
    this.active = undefined;
    if (this.reports.bars) a.bar.finish();
    const model = a.trainer.model();
    const eps = this.o.epsList[a.index];
    let n = model.features.length;
    let score = NaN;
    const { dev, o } = this;
    if (dev) {
      let pick: { rounds: number; score: number };
      if (o.devRounds) {
        const x = o.devRounds(model.features.length);
        const y = Array.from(boostPrefixCurve(dev, model, x, o.threads));
        this.curves.push({ label: `eps=${eps}`, x, y });
        pick = firstBest(x, y);
      } else {
        const c = chooseRoundsOnDev(
          dev,
          model,
          o.devStep ?? Math.max(1, Math.ceil(model.features.length / 200)),
          o.threads,
        );
        this.curves.push({ label: `eps=${eps}`, x: c.checkpoints, y: Array.from(c.curve) });
        pick = c;
      }
      n = pick.rounds;
      score = pick.score;
      this.reports.log?.(
        `eps=${eps}: ${model.features.length} rounds; best dev Score ${score.toFixed(1)} after ${n} rounds`,
      );
    }
    this.ended({ model, eps, n, score });
  }
}

/** A log-linear setting trained to its end: its L-BFGS result, its prior and its dev Score. */
export type LoglinearSetting = LoglinearModelData & { l2: number; score: number };

export interface LoglinearSettingsOptions {
  maxIterations: number;
  l2s: number[];
  threads?: number;
  signal?: AbortSignal;
}

interface ActiveLoglinear {
  index: number;
  bar: TrainProgressBar;
  onIteration: (iteration: number, objective: number) => void;
  /** The L-BFGS state reached (from the section when resumed). */
  state: Uint8Array | undefined;
}

/**
 * The log-linear reranker over priors C; a step is one L-BFGS iteration of one C. Without a
 * checkpoint file the loop asks for a whole C at once: one native call per C.
 */
export class LoglinearSettingsTrainer extends SettingsTrainer<LoglinearSetting> {
  private active: ActiveLoglinear | undefined;

  constructor(
    private readonly train: RerankDataHandle,
    private readonly dev: RerankDataHandle | undefined,
    private readonly o: LoglinearSettingsOptions,
    private readonly reports: SettingReports,
    keeps: boolean,
  ) {
    super(Math.max(1, o.maxIterations), o.l2s.length, keeps, dev !== undefined);
  }

  async step({ done, until }: StepContext): Promise<StepResult> {
    const s = Math.floor(done / this.perSetting);
    const a = this.active ?? this.start(s);
    const { o } = this;
    const want = Math.min(this.perSetting, until - s * this.perSetting);
    const r = await trainLoglinear(this.train, {
      l2: o.l2s[s],
      threads: o.threads,
      signal: o.signal,
      onIteration: a.onIteration,
      maxIterations: Math.min(o.maxIterations, want),
      resume: a.state,
      saveState: this.keeps,
    });
    a.state = r.state;
    if (r.state !== undefined) this.saved[`lbfgs:${s}`] = r.state;
    // Converged, at its last iteration, or stuck short of what was asked: this C is done.
    if (r.converged || r.iterations >= o.maxIterations || r.iterations < want) {
      this.finish(a, r);
      return { done: (s + 1) * this.perSetting, loss: r.objective };
    }
    return { done: s * this.perSetting + r.iterations, loss: r.objective };
  }

  private start(index: number): ActiveLoglinear {
    const { o, reports } = this;
    const l2 = o.l2s[index];
    const stamp = rateStamp();
    const bar = new TrainProgressBar(`loglinear C=${l2}`, { lossName: 'objective' });
    const onIteration = (iteration: number, objective: number): void => {
      const event = stamp({ phase: 'iteration', done: iteration, total: o.maxIterations, loss: objective });
      reports.onProgress?.(event);
      reports.onSettingProgress?.(`C=${l2}`, event);
      if (reports.bars) bar.onProgress(event);
    };
    this.active = { index, bar, onIteration, state: this.saved[`lbfgs:${index}`] };
    return this.active;
  }

  private finish(a: ActiveLoglinear, r: LoglinearModelData): void {
    this.active = undefined;
    const l2 = this.o.l2s[a.index];
    const score = this.dev ? chosenScore(this.dev, r.a0, r.weights, this.o.threads) : NaN;
    const dev = this.dev ? `  dev ${score.toFixed(1)}` : '';
    if (this.reports.bars)
      a.bar.finish(`objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations${dev}`);
    this.reports.log?.(
      `C=${l2}: objective ${r.objective.toPrecision(6)} after ${r.iterations} iterations${this.dev ? `; dev Score ${score.toFixed(1)}` : ''}`,
    );
    this.ended({ ...r, l2, score });
  }
}
