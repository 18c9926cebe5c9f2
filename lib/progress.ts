/**
 * Progress lines for long jobs: items done, rate, ETA and a free-form status (loss, dev
 * score). On a terminal a cli-progress bar redraws the line in place; otherwise silent
 * unless `log` is set, in which case a plain line is printed every `logEvery` ms.
 */
import { SingleBar } from 'cli-progress';

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
  /** Force plain periodic log lines even when not a TTY. */
  log?: boolean;
  logEvery?: number;
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
    const now = Date.now();
    const every = this.options.logEvery ?? 10_000;
    if (now - this.lastDraw < every) return;
    this.lastDraw = now;
    this.draw();
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
    if (!quiet) this.draw();
  }

  line(): string {
    const seconds = (Date.now() - this.start) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const unit = this.options.unit ?? 'items';
    const total = this.options.total;
    const parts = [this.options.label];
    if (total !== undefined && total > 0) {
      const pct = Math.min(100, (100 * this.done) / total);
      const width = 20;
      const filled = Math.round((pct / 100) * width);
      parts.push(`[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${total}`);
      if (rate > 0 && this.done < total) parts.push(`ETA ${formatSeconds((total - this.done) / rate)}`);
    } else parts.push(`${this.done}`);
    parts.push(`${formatRate(rate)} ${unit}/s`);
    if (this.status) parts.push(this.status);
    return parts.join('  ');
  }

  private draw(): void {
    if (this.options.log) this.stream.write(this.line() + '\n');
  }
}

function formatRate(r: number): string {
  if (r >= 1e6) return `${(r / 1e6).toFixed(2)}M`;
  if (r >= 1e4) return `${(r / 1e3).toFixed(1)}k`;
  return r.toFixed(r >= 100 ? 0 : 1);
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${Math.round(s % 60).toString().padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60).toString().padStart(2, '0')}m`;
}
