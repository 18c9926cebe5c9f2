/// <reference types="node" preserve="true" />
/**
 * Progress lines for long jobs: items done, elapsed time, rate, ETA and a free-form status
 * (loss, dev score). On a terminal a cli-progress bar redraws the line in place; otherwise
 * (CI logs, nohup, a job scheduler) a plain line is printed each time a whole unit (epoch,
 * pass, iteration) is completed, at most one per `logEvery` ms, plus a final one, once the
 * job has run for `logAfter` ms (a job done in a moment prints nothing). A long job is never
 * silent: whatever the units, a line is printed at least every `progressInterval()` ms (30 s;
 * the environment variable STRUCTRANK_PROGRESS_INTERVAL_MS sets it), when progress arrived
 * and also when none did (the work between two events, e.g. a long native pass, shows as
 * elapsed time). `setQuiet(true)` (the CLI's --quiet) silences both.
 */
import { statSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { TrainProgress } from './train-progress.js';

/** cli-progress's bar, with its redraw timer unref'd: a job that fails never hangs on it. */
class TerminalBar extends SingleBar {
  override render(): void {
    super.render();
    (this as unknown as { timer?: NodeJS.Timeout }).timer?.unref();
  }
}
export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  stream?: NodeJS.WriteStream;
  /** Print plain lines when the stream is not a terminal (default true; false: only on a terminal). */
  log?: boolean;
  /**
   * Least milliseconds between two plain lines. Default: 0 (a line per unit) for jobs of at
   * most 100 units, such as epochs or L-BFGS iterations; 10 s for longer ones (boosting rounds).
   */
  logEvery?: number;
  /** Plain lines start once the job has run this many ms (default 1000; 0: from the first unit). */
  logAfter?: number;
  /** When the job started (Date.now() of then; default: now): elapsed time and rate count from it. */
  startedAt?: number;
}

let quiet = false;

/** The default of progressInterval(): a line at least every 30 s of work. */
export const PROGRESS_INTERVAL_MS = 30_000;

/** Most milliseconds between two plain progress lines: STRUCTRANK_PROGRESS_INTERVAL_MS, else 30 s. */
export function progressInterval(): number {
  const given = Number(process.env.STRUCTRANK_PROGRESS_INTERVAL_MS);
  return Number.isFinite(given) && given > 0 ? given : PROGRESS_INTERVAL_MS;
}

/** Silences every progress display and log line (the CLI's --quiet). */
export function setQuiet(value: boolean): void {
  quiet = value;
}

export function isQuiet(): boolean {
  return quiet;
}

export class Progress {
  /** Bars still drawn on the terminal (stopped before the CLI prints an error). */
  private static readonly running = new Set<Progress>();

  /** Stops every bar still drawn, so a message can follow on a line of its own. */
  static stopAll(): void {
    for (const p of Progress.running) p.finish();
  }
  private done = 0;
  private status = '';
  private readonly start: number;
  /** The rate the job reported itself (units per second), else undefined: done / elapsed. */
  private rate: number | undefined;
  private lastDraw = 0;
  /** What the last plain line showed, so finish() does not repeat it. */
  private lastLogged: string | undefined;
  private loggedUnits = 0;
  private readonly stream: NodeJS.WriteStream;
  private bar: TerminalBar | undefined;
  /** Plain lines only: prints the line when no line was printed for progressInterval() ms. */
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProgressOptions) {
    this.start = options.startedAt ?? Date.now();
    this.stream = options.stream ?? process.stderr;
    if (this.stream.isTTY && !quiet) {
      this.bar = new TerminalBar({
        stream: this.stream,
        format: () => this.line(),
        fps: 10,
        hideCursor: false,
        linewrap: false,
        gracefulExit: false,
      });
      this.bar.start(options.total ?? 0, 0);
      Progress.running.add(this);
    } else if (!quiet && options.log !== false) {
      const interval = progressInterval();
      this.heartbeat = setInterval(
        () => {
          if (quiet || Date.now() - this.lastLine() < interval) return;
          this.loggedUnits = Math.max(this.loggedUnits, Math.floor(this.done));
          this.logLine();
        },
        Math.min(interval, 1000),
      );
      this.heartbeat.unref();
      Progress.running.add(this);
    }
  }

  /** When the last plain line was printed (the start before the first). */
  private lastLine(): number {
    return this.lastLogged === undefined ? this.start : this.lastDraw;
  }

  /** Sets the units done (and the status); `rate`: the job's own units per second, if it knows better. */
  update(done: number, status?: string, rate?: number): void {
    this.done = done;
    if (rate !== undefined && rate > 0) this.rate = rate;
    if (status !== undefined) this.status = status;
    if (quiet) return;
    if (this.bar) {
      this.bar.update(done);
      return;
    }
    if (this.options.log === false) return;
    // A plain line when a whole unit is completed, and whenever progressInterval() has passed
    // since the last line (fractions of an epoch, a pass's sentences).
    const now = Date.now();
    const units = Math.floor(done);
    const due = now - this.lastLine() >= progressInterval() && this.state() !== this.lastLogged;
    if (!due) {
      if (units <= this.loggedUnits) return;
      if (now - this.start < (this.options.logAfter ?? 1000)) return;
      if (this.lastLogged !== undefined && now - this.lastDraw < this.logEvery()) return;
    }
    this.loggedUnits = Math.max(this.loggedUnits, units);
    this.logLine();
  }

  tick(n = 1, status?: string): void {
    this.update(this.done + n, status);
  }

  finish(status?: string): void {
    if (status !== undefined) this.status = status;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    Progress.running.delete(this);
    if (this.bar) {
      this.bar.update(this.done);
      this.bar.stop();
      this.bar = undefined;
      Progress.running.delete(this);
      return;
    }
    if (quiet) return;
    if (this.options.log !== false && this.lastLogged !== this.state()) {
      // A job done in a moment stays silent; one that printed lines ends with its last state.
      if (this.lastLogged !== undefined || Date.now() - this.start >= (this.options.logAfter ?? 1000)) this.logLine();
    }
  }

  /** The progress line: label, done/total with a bar, elapsed time, rate, ETA and status. */
  line(): string {
    const seconds = (Date.now() - this.start) / 1000;
    const rate = this.rate ?? (seconds > 0 ? this.done / seconds : 0);
    const unit = this.options.unit ?? 'items';
    const total = this.options.total;
    const parts = [this.options.label];
    const done = Number.isInteger(this.done) ? `${this.done}` : this.done.toFixed(2);
    if (total !== undefined && total > 0) {
      const pct = Math.min(100, (100 * this.done) / total);
      const width = 20;
      const filled = Math.round((pct / 100) * width);
      parts.push(`[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
    } else parts.push(done);
    parts.push(`elapsed ${formatSeconds(seconds)}`);
    parts.push(`${formatRate(rate)} ${unit}/s`);
    if (total !== undefined && total > 0 && rate > 0 && this.done < total)
      parts.push(`ETA ${formatSeconds((total - this.done) / rate)}`);
    if (this.status) parts.push(this.status);
    return parts.join('  ');
  }

  private logEvery(): number {
    return this.options.logEvery ?? ((this.options.total ?? Infinity) <= 100 ? 0 : 10_000);
  }

  private state(): string {
    return `${this.done}\0${this.status}`;
  }

  private logLine(): void {
    this.lastDraw = Date.now();
    this.lastLogged = this.state();
    this.stream.write(`${this.line()}\n`);
  }
}

/** What a progress bar shows of a trainer's event: its loss (under the trainer's name for it) and dev score. */
export function trainStatus(e: TrainProgress, lossName = 'loss'): string {
  const parts: string[] = [];
  if (e.loss !== undefined) parts.push(`${lossName} ${Number.isInteger(e.loss) ? e.loss : e.loss.toPrecision(6)}`);
  if (e.devScore !== undefined) parts.push(`dev ${e.devMetric ? `${e.devMetric} ` : ''}${e.devScore.toFixed(2)}`);
  return parts.join('  ');
}

export interface TrainProgressBarOptions extends Omit<ProgressOptions, 'label' | 'total'> {
  /** Units the bar counts in the whole run when they are not the event's (a parser's epochs, not its steps). */
  total?: number;
  /** The trainer's name for its loss ('objective', 'mistakes'); default 'loss'. */
  lossName?: string;
  /** Show only events of this phase (a CRF parser's 'step', not the PCFG count before it). */
  phase?: string;
}

/**
 * The CLI's bar (or plain lines) for a training run, fed by the one event every trainer
 * reports (`TrainProgress`, the `onProgress` of `X.train`'s run argument). The bar starts at
 * the first event, whose total sets its length; the unit defaults to the event's phase. An
 * event of another phase (a parser's trees counted, then its training sentences) ends the
 * bar and starts a new one.
 */
export class TrainProgressBar {
  private progress: Progress | undefined;
  private phase: string | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly label: string,
    private readonly options: TrainProgressBarOptions = {},
  ) {}

  /** Shows one event; `detail` adds a trainer-specific note after the loss and dev score. */
  readonly onProgress = (e: TrainProgress, detail?: string): void => {
    const { total: units, lossName, phase, ...rest } = this.options;
    if (phase !== undefined && e.phase !== phase) return;
    if (this.progress !== undefined && this.phase !== e.phase) {
      this.progress.finish();
      this.progress = undefined;
    }
    this.phase = e.phase;
    const scale = units !== undefined && e.total !== undefined && e.total > 0 ? units / e.total : 1;
    this.progress ??= new Progress({
      unit: `${e.phase}s`,
      startedAt: this.startedAt,
      ...rest,
      label: this.label,
      total: units ?? e.total,
    });
    const status = trainStatus(e, lossName);
    this.progress.update(e.done * scale, detail ? (status ? `${status}  ${detail}` : detail) : status, e.rate * scale);
  };

  finish(status?: string): void {
    this.progress?.finish(status);
  }
}

function formatRate(r: number): string {
  if (r >= 1e6) return `${(r / 1e6).toFixed(2)}M`;
  if (r >= 1e4) return `${(r / 1e3).toFixed(1)}k`;
  return r.toFixed(r >= 100 ? 0 : r >= 1 ? 1 : 3);
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600)
    return `${Math.floor(s / 60)}m${Math.floor(s % 60)
      .toString()
      .padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)
    .toString()
    .padStart(2, '0')}m`;
}

/**
 * Progress over the bytes of an input file, shown in MB (with the total when `file` is a
 * regular file; a pipe's total is unknown): for jobs that stream a file in blocks.
 */
export function fileProgress(label: string, file: string): { onBytes: (bytes: number) => void; finish: () => void } {
  let total: number | undefined;
  try {
    const st = statSync(file);
    if (st.isFile()) total = Math.round(st.size / 1e4) / 100;
  } catch {
    /* '-' or a pipe */
  }
  const progress = new Progress({ label, total, unit: 'MB', logEvery: progressInterval() });
  return { onBytes: (bytes) => progress.update(Math.round(bytes / 1e4) / 100), finish: () => progress.finish() };
}
