/**
 * Streams lines into a file atomically: a temp file in the same folder, renamed into place when
 * complete (devices and pipes such as /dev/null are written in place; `-` is standard output).
 * Temp files are named `<file>.tmp-<pid>-<random>`: those of a process that is gone (killed
 * with SIGKILL, which no handler sees) are removed the next time the same output is written.
 */
import { createWriteStream, readdirSync, renameSync, statSync, unlinkSync, type WriteStream } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { IoError } from '../errors.js';

/**
 * Refuses an output path that could never be written (a folder, or a file in a missing
 * folder) before the work that produces it: hours of training must not end in ENOENT.
 */
export function checkOutputPath(file: string): void {
  if (file === STDOUT) return;
  let isFolder = false;
  try {
    isFolder = statSync(file).isDirectory();
  } catch {
    /* a new file */
  }
  if (isFolder) throw new IoError(file, 'cannot write: is a directory');
  const folder = dirname(resolve(file));
  let folderExists = false;
  try {
    folderExists = statSync(folder).isDirectory();
  } catch {
    /* missing */
  }
  if (!folderExists) throw new IoError(file, `cannot write: no folder ${folder}`);
}

/**
 * True for an existing path that is not a regular file or folder: /dev/null, /dev/stdout, a
 * named pipe. Such outputs are written in place: renaming a temp file over them would
 * replace the device or pipe with a plain file.
 */
export function isDeviceOrPipe(file: string): boolean {
  try {
    const st = statSync(file);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/** The output name for standard output, as in `--out -`. */
export const STDOUT = '-';

/** Writes to standard output, resolving once the text is handed over (waits for 'drain'). */
function writeStdout(text: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

/** Whether process `pid` still runs on this host (EPERM: it runs, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files of `file` left by processes that are gone: a run killed with SIGKILL
 * (or a crashed machine) cannot remove its own. Called before each atomic write of `file`.
 */
export function removeStaleTempFiles(file: string): string[] {
  const folder = dirname(resolve(file));
  const prefix = `${basename(file)}.tmp-`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try {
      unlinkSync(join(folder, name));
      removed.push(join(folder, name));
    } catch {
      /* removed meanwhile */
    }
  }
  return removed;
}

/** Temp files not yet renamed or removed: deleted if the process exits before they are. */
const pendingTemps = new Set<string>();

/** Removes every temp file still being written (the CLI calls it before dying on a signal). */
export function removePendingTempFiles(): void {
  for (const temp of pendingTemps) {
    try {
      unlinkSync(temp);
    } catch {
      /* already gone */
    }
  }
  pendingTemps.clear();
}
process.on('exit', removePendingTempFiles);

/**
 * Writes each string of `chunks` as is (callers add the newlines). On any failure (of the
 * input or of the disk) the temp file is removed and `file` is left untouched; errors of
 * the input iterable are rethrown as they are.
 */
export async function writeTextAtomic(file: string, chunks: Iterable<string> | AsyncIterable<string>): Promise<void> {
  if (file === STDOUT) {
    for await (const chunk of chunks) await writeStdout(chunk);
    return;
  }
  const direct = isDeviceOrPipe(file);
  if (!direct) removeStaleTempFiles(file);
  const temp = direct ? file : `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (!direct) pendingTemps.add(temp);
  const stream = createWriteStream(temp);
  let failed: { error: unknown; fromInput: boolean } | undefined;
  stream.on('error', (error) => {
    failed ??= { error, fromInput: false };
  });
  try {
    await once(stream, 'open');
    for await (const chunk of chunks) {
      if (failed) break;
      if (!stream.write(chunk)) await once(stream, 'drain');
    }
  } catch (error) {
    // events.once rejects with the stream's own error, which the listener saw first.
    failed ??= { error, fromInput: true };
  }
  if (failed === undefined) {
    stream.end();
    try {
      await once(stream, 'finish');
    } catch (error) {
      failed ??= { error, fromInput: false };
    }
  }
  if (failed !== undefined) {
    stream.destroy();
    // Not events.once: it would reject on the 'error' a pending write raises after destroy.
    if (!stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
  } else {
    try {
      if (!direct) renameSync(temp, file);
      pendingTemps.delete(temp);
      return;
    } catch (error) {
      failed = { error, fromInput: false };
    }
  }
  try {
    if (!direct) unlinkSync(temp);
  } catch {
    /* the temp file may not exist */
  }
  pendingTemps.delete(temp);
  if (failed.fromInput) throw failed.error;
  throw new IoError(file, `cannot write: ${(failed.error as Error).message}`);
}

/**
 * A file written piece by piece through a temp file in the same folder, for writers that
 * interleave several outputs: commit() renames it into place, discard() removes it. Failing
 * to open or write it is an InputError naming the file.
 */
export class AtomicFile {
  private readonly temp: string;
  private readonly direct: boolean;
  /** Undefined for standard output (`-`). */
  private readonly stream: WriteStream | undefined;
  private error: Error | undefined;

  private constructor(readonly file: string) {
    this.direct = file === STDOUT || isDeviceOrPipe(file);
    this.temp = this.direct ? file : `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    if (file === STDOUT) return;
    if (!this.direct) {
      removeStaleTempFiles(file);
      pendingTemps.add(this.temp);
    }
    this.stream = createWriteStream(this.temp);
    this.stream.on('error', (error) => {
      this.error ??= error;
    });
  }

  /** Creates the temp file; rejects with an InputError when it cannot be created. */
  static async open(file: string): Promise<AtomicFile> {
    checkOutputPath(file);
    const f = new AtomicFile(file);
    if (f.stream === undefined) return f;
    try {
      await once(f.stream, 'open');
    } catch (error) {
      pendingTemps.delete(f.temp);
      throw new IoError(file, `cannot write: ${(error as Error).message}`);
    }
    return f;
  }

  async write(text: string | Uint8Array): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return writeStdout(text);
    await this.writing(async () => {
      if (!stream.write(text)) await once(stream, 'drain');
    });
  }

  /**
   * Writes bytes and resolves once they are written out (not only queued), so the caller may
   * fill the same buffer again: a streaming writer's way to make no garbage per block.
   */
  async writeOut(bytes: Uint8Array): Promise<void> {
    const stream = this.stream;
    if (stream === undefined)
      return new Promise((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
    await this.writing(
      () => new Promise<void>((resolve, reject) => stream.write(bytes, (err) => (err ? reject(err) : resolve()))),
    );
  }

  /** Flushes the temp file and renames it to the target; on failure removes it. */
  async commit(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return;
    await this.writing(async () => {
      stream.end();
      await once(stream, 'finish');
      if (!this.direct) renameSync(this.temp, this.file);
      pendingTemps.delete(this.temp);
    });
  }

  /** Runs `step` unless the stream has failed; a failure removes the temp file and names the target. */
  private async writing(step: () => Promise<void>): Promise<void> {
    try {
      if (this.error) throw this.error;
      await step();
    } catch (error) {
      await this.discard();
      throw new IoError(this.file, `cannot write: ${(error as Error).message}`);
    }
  }

  /** Abandons the file: the target is left untouched and the temp file removed. */
  async discard(): Promise<void> {
    const stream = this.stream;
    if (stream === undefined) return;
    stream.destroy();
    if (!stream.closed) await new Promise<void>((resolve) => stream.once('close', () => resolve()));
    try {
      if (!this.direct) unlinkSync(this.temp);
    } catch {
      /* already renamed or removed */
    }
    pendingTemps.delete(this.temp);
  }
}
