/**
 * Progress lines for long jobs: items done, rate, ETA and a free-form status (loss, dev
 * score). Drawn on stderr only when it is a terminal; otherwise silent unless `log` is set,
 * in which case a plain line is printed every `logEvery` ms.
 */
export interface ProgressOptions {
  label: string;
  total?: number;
  unit?: string;
  stream?: NodeJS.WriteStream;
  /** Force plain periodic log lines even when not a TTY. */
  log?: boolean;
  logEvery?: number;
}

export class Progress {
  /** Set by the CLI's --quiet: no bars and no progress lines. */
  static quiet = false;
  private done = 0;
  private status = '';
  private readonly start = Date.now();
  private lastDraw = 0;
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    this.tty = Boolean(this.stream.isTTY);
  }

  update(done: number, status?: string): void {
    this.done = done;
    if (status !== undefined) this.status = status;
    const now = Date.now();
    const every = this.tty ? 100 : (this.options.logEvery ?? 10_000);
    if (now - this.lastDraw < every) return;
    this.lastDraw = now;
    this.draw(false);
  }

  tick(n = 1, status?: string): void {
    this.update(this.done + n, status);
  }

  finish(status?: string): void {
    if (status !== undefined) this.status = status;
    this.draw(true);
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

  private draw(final: boolean): void {
    if (this.tty) {
      this.stream.write(`\r\x1b[K${this.line()}${final ? '\n' : ''}`);
    } else if (this.options.log || final) {
      if (this.options.log) this.stream.write(this.line() + '\n');
    }
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
