/**
 * Progress lines for long jobs: items done, elapsed time, rate, ETA and a free-form status
 * (loss, dev score). On a terminal a cli-progress bar redraws the line in place; otherwise
 * (CI logs, nohup, a job scheduler) a plain line is printed each time a whole unit (epoch,
 * pass, iteration) is completed, at most one per `logEvery` ms, plus a final one, once the
 * job has run for `logAfter` ms (a job done in a moment prints nothing). `setQuiet(true)`
 * (the CLI's --quiet) silences both.
 */
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
}

let quiet = false;

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
  private readonly start = Date.now();
  private lastDraw = 0;
  /** What the last plain line showed, so finish() does not repeat it. */
  private lastLogged: string | undefined;
  private loggedUnits = 0;
  private readonly stream: NodeJS.WriteStream;
  private bar: TerminalBar | undefined;

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    if (this.stream.isTTY && !quiet) {
      this.bar = new TerminalBar({ stream: this.stream, format: () => this.line(), fps: 10, hideCursor: false, linewrap: false, gracefulExit: false });
      this.bar.start(options.total ?? 0, 0);
      Progress.running.add(this);
    }
  }

  update(done: number, status?: string): void {
    this.done = done;
    if (status !== undefined) this.status = status;
    if (quiet) return;
    if (this.bar) {
      this.bar.update(done);
      return;
    }
    if (this.options.log === false) return;
    // A plain line when a whole unit is completed (not for fractions of an epoch).
    const now = Date.now();
    const units = Math.floor(done);
    if (units <= this.loggedUnits) return;
    if (now - this.start < (this.options.logAfter ?? 1000)) return;
    if (this.lastLogged !== undefined && now - this.lastDraw < this.logEvery()) return;
    this.loggedUnits = units;
    this.lastDraw = now;
    this.logLine();
  }

  tick(n = 1, status?: string): void {
    this.update(this.done + n, status);
  }

  finish(status?: string): void {
    if (status !== undefined) this.status = status;
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
    const rate = seconds > 0 ? this.done / seconds : 0;
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
    if (total !== undefined && total > 0 && rate > 0 && this.done < total) parts.push(`ETA ${formatSeconds((total - this.done) / rate)}`);
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
 * the first event, whose total sets its length; the unit defaults to the event's phase.
 */
export class TrainProgressBar {
  private progress: Progress | undefined;

  constructor(
    private readonly label: string,
    private readonly options: TrainProgressBarOptions = {},
  ) {}

  /** Shows one event; `detail` adds a trainer-specific note after the loss and dev score. */
  readonly onProgress = (e: TrainProgress, detail?: string): void => {
    const { total: units, lossName, phase, ...rest } = this.options;
    if (phase !== undefined && e.phase !== phase) return;
    const scale = units !== undefined && e.total !== undefined && e.total > 0 ? units / e.total : 1;
    this.progress ??= new Progress({ unit: `${e.phase}s`, ...rest, label: this.label, total: units ?? e.total });
    const status = trainStatus(e, lossName);
    this.progress.update(e.done * scale, detail ? (status ? `${status}  ${detail}` : detail) : status);
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
  if (s < 3600) return `${Math.floor(s / 60)}m${Math.floor(s % 60).toString().padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60).toString().padStart(2, '0')}m`;
}
