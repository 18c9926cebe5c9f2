/// <reference types="node" preserve="true" />
/**
 * Streaming line reading with file/line positions and UTF-8 validation. Files are read in
 * 1 MiB chunks; a corpus is never held as one string. Small whole files (configs, models)
 * are read here too, so every reader reports a missing or unreadable file the same way.
 *
 * `-` is standard input. Pipes and devices (`-`, /dev/stdin, a FIFO) are read as streams,
 * never at an offset; a reader that must look at the start first (readFileHead, to sniff a
 * format) copies such an input once into a private temp file that later reads of the same
 * name use, so the bytes it looked at are not lost.
 */
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, IoError } from '../errors.js';

/** The input name for standard input, as in `--input -`. */
export const STDIN = '-';

/** Pipes and devices copied to a temp file by readFileHead: input name -> copy. */
const spooled = new Map<string, string>();
let spoolFolder: string | undefined;

/** The path to open for an input name: its spooled copy, else itself. */
function openPath(file: string): string {
  return spooled.get(file) ?? file;
}

/** Opens an input for reading: `-` is file descriptor 0 (a pipe, file or socket), left open by `close`. */
function openInput(file: string): { fd: number; close: () => void } {
  if (file === STDIN && !spooled.has(file)) return { fd: 0, close: () => {} };
  let fd: number;
  try {
    fd = openSync(openPath(file), 'r');
  } catch (err) {
    throw openError(file, err);
  }
  return { fd, close: () => closeSync(fd) };
}

/** Whether `file` is a pipe or device (or `-`) rather than a regular file: it cannot be read at an offset or twice. */
export function isStream(file: string): boolean {
  if (spooled.has(file)) return false;
  if (file === STDIN) return true;
  try {
    const st = statSync(file);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/** Sleeps 10 ms (synchronous readers polling a non-blocking pipe). */
function waitForData(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
}

/** Reads the next chunk of an input (0 at its end), waiting while a non-blocking pipe has no data yet. */
function readChunk(file: string, fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw openError(file, err);
      waitForData();
    }
  }
}

/** Copies a pipe or device input into a temp file (once), so it can be read again from the start. */
function spool(file: string): void {
  if (spooled.has(file)) return;
  if (spoolFolder === undefined) {
    spoolFolder = mkdtempSync(join(tmpdir(), 'structrank-input-'));
    const folder = spoolFolder;
    process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  const copy = join(spoolFolder, `input-${spooled.size}`);
  const input = openInput(file);
  const from = input.fd;
  const to = openSync(copy, 'w');
  const buffer = Buffer.alloc(CHUNK);
  try {
    for (;;) {
      const n = readChunk(file, from, buffer);
      if (n === 0) break;
      writeSync(to, buffer, 0, n);
    }
  } finally {
    input.close();
    closeSync(to);
  }
  spooled.set(file, copy);
}

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
    if (this.first && startsWithBom(data)) data = data.subarray(3);
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
    if (!isText(block)) this.reportInvalidUtf8(block);
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
    throw invalidUtf8(this.file, block, this.lineNumber);
  }
}

/** Whether bytes begin with the UTF-8 byte-order mark (EF BB BF), which readers drop. */
export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Whether bytes can be text: valid UTF-8 without NUL bytes (which no text file holds, and binary files do). */
export function isText(bytes: Uint8Array): boolean {
  return isUtf8(bytes) && bytes.indexOf(0) < 0;
}

/**
 * The error for a block of whole lines that is not text (isText): names the first bad line and
 * byte. A NUL byte means a binary file (a model, an archive) where text was expected; other
 * bytes that are not UTF-8 get how to convert the two encodings such files usually are (UTF-16
 * from Windows editors; Latin-1, as the original CoNLL-2002 and CoNLL-2003 files are).
 */
export function invalidUtf8(file: string, block: Buffer, linesBefore: number): InputError {
  let start = 0;
  let line = linesBefore;
  let end: number;
  for (;;) {
    end = block.indexOf(NEWLINE, start);
    line++;
    if (end < 0 || !isText(block.subarray(start, end))) break;
    start = end + 1;
  }
  const bytes = block.subarray(start, end < 0 ? block.length : end);
  const nul = bytes.indexOf(0);
  const utf16 = linesBefore === 0 && start === 0 && looksUtf16(bytes);
  if (nul >= 0 && !utf16 && (isUtf8(bytes.subarray(0, nul)) || firstInvalidUtf8Byte(bytes) >= nul)) {
    return new InputError(
      file,
      line,
      `not a text file: a NUL byte at byte ${nul + 1} of the line (a binary file, such as a model, given where text is read?)`,
    );
  }
  if (utf16) {
    return new InputError(
      file,
      line,
      "invalid UTF-8: the file looks like UTF-16; structrank reads UTF-8 (convert with 'iconv -f UTF-16 -t UTF-8')",
    );
  }
  const at = firstInvalidUtf8Byte(bytes);
  const byte = bytes[at].toString(16).padStart(2, '0');
  return new InputError(
    file,
    line,
    `invalid UTF-8 (byte 0x${byte} at byte ${at + 1} of the line); structrank reads UTF-8: convert a Latin-1 file with 'iconv -f ISO-8859-1 -t UTF-8'`,
  );
}

/** Whether bytes begin with a UTF-16 byte-order mark (FF FE or FE FF). */
function looksUtf16(bytes: Buffer): boolean {
  return bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

/** Offset of the first byte that cannot start or continue a UTF-8 sequence (bytes must hold one). */
function firstInvalidUtf8Byte(bytes: Buffer): number {
  let at = 0;
  while (at < bytes.length) {
    const b = bytes[at];
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0 || !isUtf8(bytes.subarray(at, at + length))) return at;
    at += length;
  }
  return Math.max(0, bytes.length - 1);
}

/** The IoError for a file that cannot be opened or read, naming it. */
export function openError(file: string, err: unknown): InputError {
  const code = (err as NodeJS.ErrnoException).code;
  const problem =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory, not a file'
        : code === 'EACCES'
          ? 'permission denied'
          : `cannot read: ${(err as Error).message}`;
  return new IoError(file, problem, { cause: err });
}

/** Reads a file's lines as a stream. Throws InputError for missing files and bad UTF-8. */
export async function* readLines(file: string): AsyncGenerator<Line> {
  const splitter = new LineSplitter(file);
  const stream =
    file === STDIN && !spooled.has(file) ? process.stdin : createReadStream(openPath(file), { highWaterMark: CHUNK });
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
    if (stream !== process.stdin) stream.destroy();
  }
  splitter.finish(out);
  yield* out;
}

/** Synchronous twin of readLines, for small files and tests. */
export function* readLinesSync(file: string): Generator<Line> {
  const input = openInput(file);
  const fd = input.fd;
  const splitter = new LineSplitter(file);
  const buffer = Buffer.alloc(CHUNK);
  const out: Line[] = [];
  try {
    for (;;) {
      const n = readChunk(file, fd, buffer);
      if (n === 0) break;
      splitter.push(Buffer.from(buffer.subarray(0, n)), out);
      yield* out;
      out.length = 0;
    }
    splitter.finish(out);
    yield* out;
  } finally {
    input.close();
  }
}

/**
 * An input's raw bytes in chunks of up to `chunkBytes` (1 MiB), for readers that split lines
 * themselves (natively): regular files are read synchronously, pipes and `-` as streams.
 * No line splitting, BOM removal or UTF-8 check here. With `borrow`, a regular file's chunks
 * are views of one buffer, valid only until the next chunk is asked for (no copy per chunk).
 */
export async function* readChunks(file: string, chunkBytes = CHUNK, borrow = false): AsyncGenerator<Buffer> {
  if (isStream(file)) {
    const stream =
      file === STDIN && !spooled.has(file)
        ? process.stdin
        : createReadStream(openPath(file), { highWaterMark: chunkBytes });
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (err) {
      throw openError(file, err);
    } finally {
      if (stream !== process.stdin) stream.destroy();
    }
    return;
  }
  const input = openInput(file);
  const buffer = Buffer.alloc(chunkBytes);
  try {
    for (;;) {
      const n = readChunk(file, input.fd, buffer);
      if (n === 0) break;
      yield borrow ? buffer.subarray(0, n) : Buffer.from(buffer.subarray(0, n));
    }
  } finally {
    input.close();
  }
}

/** The first `bytes` bytes of a file (fewer if it is shorter), e.g. to sniff its format. */
export function readFileHead(file: string, bytes: number): Buffer {
  // Reading the head of a pipe would consume it: keep a copy to read again.
  if (isStream(file)) spool(file);
  const input = openInput(file);
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(input.fd, buffer, 0, bytes, 0));
  } catch (err) {
    throw openError(file, err);
  } finally {
    input.close();
  }
}

/** A whole (small) file's bytes; a missing or unreadable file is an InputError naming it. */
export function readWholeFile(file: string): Buffer {
  try {
    return readFileSync(file === STDIN && !spooled.has(file) ? 0 : openPath(file));
  } catch (err) {
    throw openError(file, err);
  }
}

/** readWholeFile without blocking the event loop (standard input is read as readWholeFile does). */
export async function readWholeFileAsync(file: string): Promise<Buffer> {
  if (file === STDIN && !spooled.has(file)) return readWholeFile(file);
  try {
    return await readFile(openPath(file));
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
  if (!isText(bytes)) {
    // The line splitter reports the line of the first bad byte.
    const splitter = new LineSplitter(file);
    const lines: Line[] = [];
    splitter.push(bytes, lines);
    splitter.finish(lines);
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
