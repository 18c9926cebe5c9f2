/**
 * Streaming line reading with file/line positions and UTF-8 validation. Files are read in
 * 1 MiB chunks; a corpus is never held as one string. Small whole files (configs, models)
 * are read here too, so every reader reports a missing or unreadable file the same way.
 */
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { InputError, IoError } from '../errors.js';

export interface Line {
  /** The line's text without its line terminator (\n or \r\n). */
  text: string;
  /** 1-based line number. */
  number: number;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** Splits byte chunks into validated lines; shared by the sync and async readers. */
class LineSplitter {
  private carry: Buffer = Buffer.alloc(0);
  private lineNumber = 0;
  private first = true;

  constructor(private readonly file: string) {}

  push(chunk: Buffer, out: Line[]): void {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    if (this.first && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
      data = data.subarray(3);
    }
    if (data.length > 0) this.first = false;
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline < 0) {
      this.carry = Buffer.from(data);
      return;
    }
    this.emit(data.subarray(0, lastNewline + 1), out);
    this.carry = Buffer.from(data.subarray(lastNewline + 1));
  }

  finish(out: Line[]): void {
    if (this.carry.length > 0) this.emit(Buffer.concat([this.carry, Buffer.from([NEWLINE])]), out);
    this.carry = Buffer.alloc(0);
  }

  /** `block` holds whole lines, each ending in \n. */
  private emit(block: Buffer, out: Line[]): void {
    if (!isUtf8(block)) this.reportInvalidUtf8(block);
    const text = block.toString('utf8');
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end < 0) break;
      const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      out.push({ text: text.slice(start, stop), number: ++this.lineNumber });
      start = end + 1;
    }
  }

  private reportInvalidUtf8(block: Buffer): never {
    let start = 0;
    let line = this.lineNumber;
    for (;;) {
      const end = block.indexOf(NEWLINE, start);
      line++;
      if (!isUtf8(block.subarray(start, end))) break;
      start = end + 1;
    }
    throw new InputError(this.file, line, 'invalid UTF-8');
  }
}

function openError(file: string, err: unknown): InputError {
  const code = (err as NodeJS.ErrnoException).code;
  const problem = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a file' : code === 'EACCES' ? 'permission denied' : `cannot read: ${(err as Error).message}`;
  return new IoError(file, problem, { cause: err });
}

/** Reads a file's lines as a stream. Throws InputError for missing files and bad UTF-8. */
export async function* readLines(file: string): AsyncGenerator<Line> {
  const splitter = new LineSplitter(file);
  const stream = createReadStream(file, { highWaterMark: CHUNK });
  const out: Line[] = [];
  try {
    for await (const chunk of stream) {
      splitter.push(chunk as Buffer, out);
      yield* out;
      out.length = 0;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw openError(file, err);
  } finally {
    stream.destroy();
  }
  splitter.finish(out);
  yield* out;
}

/** Synchronous twin of readLines, for small files and tests. */
export function* readLinesSync(file: string): Generator<Line> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw openError(file, err);
  }
  const splitter = new LineSplitter(file);
  const buffer = Buffer.alloc(CHUNK);
  const out: Line[] = [];
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, CHUNK, null);
      } catch (err) {
        throw openError(file, err);
      }
      if (n === 0) break;
      splitter.push(Buffer.from(buffer.subarray(0, n)), out);
      yield* out;
      out.length = 0;
    }
    splitter.finish(out);
    yield* out;
  } finally {
    closeSync(fd);
  }
}

/** The first `bytes` bytes of a file (fewer if it is shorter), e.g. to sniff its format. */
export function readFileHead(file: string, bytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0));
  } catch (err) {
    throw openError(file, err);
  } finally {
    closeSync(fd);
  }
}

/** A whole (small) file's bytes; a missing or unreadable file is an InputError naming it. */
export function readWholeFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw openError(file, err);
  }
}

/**
 * A whole (small) file as UTF-8 text, e.g. a config, without a leading byte-order mark (as
 * Windows editors write; JSON.parse refuses it); invalid UTF-8 (e.g. a UTF-16 file) is an
 * InputError with its line, other errors as for readWholeFile.
 */
export function readTextFile(file: string): string {
  const bytes = readWholeFile(file);
  if (!isUtf8(bytes)) {
    // The line splitter reports the line of the first bad byte.
    const splitter = new LineSplitter(file);
    const lines: Line[] = [];
    splitter.push(bytes, lines);
    splitter.finish(lines);
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
