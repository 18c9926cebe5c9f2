/**
 * Streams a CoNLL column file through a tagger: reads it in blocks of whole lines, tags each
 * block's finished sentences in native code (Tagger.tagColumnBlock) and writes every line with
 * its label appended, as `structrank tag` prints it. Memory stays at one block plus the
 * sentence that crosses into the next one, whatever the size of the input. Imports no option
 * schemas, so the `tag` command can run it straight from the command line (lib/cli/fast-tag.ts).
 */
import { AbortError, InputError } from '../errors.js';
import { AtomicFile } from '../io/atomic-writer.js';
import { invalidUtf8, isText, readChunks, startsWithBom } from '../io/lines.js';
import type { Tagger } from './tagger.js';

export interface TagStreamOptions {
  input: string;
  /** Output file; undefined: standard output. */
  out?: string;
  separator: 'whitespace' | 'tab';
  threads: number;
  signal?: AbortSignal;
  /** Bytes read at a time (default BLOCK_BYTES; tests use small blocks to cross sentences). */
  blockBytes?: number;
  /** Called after each block is tagged, with the input bytes tagged so far (for progress lines). */
  onBlock?: (bytes: number) => void;
}

/** The error for a first token line that has neither the model's input columns nor all its columns. */
export function firstWidthError(input: string, line: number, tagger: Tagger, found: number): InputError {
  const { columns, inputColumns } = tagger.meta;
  return new InputError(
    input,
    line,
    `expected ${inputColumns.length} columns (${inputColumns.join(', ')}) or ${columns.length} (${columns.join(', ')}), found ${found}`,
  );
}

/** The error for a token line whose width differs from the first token line's. */
export function widthError(input: string, line: number, width: number, found: number): InputError {
  return new InputError(input, line, `expected ${width} columns, found ${found}`);
}

const NEWLINE = 0x0a;
/**
 * Bytes read at a time. Each block's native work (fields, attribute rows, output) takes about
 * 15x its size, and the C allocator keeps that memory: 64 KiB blocks add about 2 MB to the
 * model's process, 256 KiB ones 6 MB (1 MiB ones grew it by ~100 MB), for 3% more CPU than
 * 256 KiB (docs/design/tagger-speed.md, "The `tag` process").
 */
export const BLOCK_BYTES = 1 << 16;

/** Tags `input` into `out`; the output is written to a temp file and renamed when complete. */
export async function tagStream(tagger: Tagger, options: TagStreamOptions): Promise<void> {
  const { input, separator, threads, signal } = options;
  const blockBytes = options.blockBytes ?? BLOCK_BYTES;
  const out = options.out !== undefined ? await AtomicFile.open(options.out) : await AtomicFile.open('-');
  let width = -1;
  let linesBefore = 0;
  let tagged = 0;
  // The bytes read and not yet tagged are buf[0, have); the output of a block goes to `written`.
  // Both are reused from block to block (grown when a block needs more), so a stream of any
  // length leaves no garbage behind it: the process stays at the model plus these buffers.
  let buf = Buffer.alloc(2 * blockBytes);
  let have = 0;
  let written = Buffer.alloc(2 * blockBytes);
  let first = true;
  let sawBytes = false;
  const run = async (block: Buffer, final: boolean): Promise<number> => {
    if (!isText(block)) throw invalidUtf8(input, block, linesBefore);
    // Blocks are tagged synchronously; a cancel request is seen between blocks.
    if (signal?.aborted) throw new AbortError();
    const r = tagger.tagColumnBlock(block, final, width, separator, threads, written);
    if (r.errorLine > 0) {
      const line = linesBefore + r.errorLine;
      throw r.errorKind === 1
        ? firstWidthError(input, line, tagger, r.errorFound)
        : widthError(input, line, r.width, r.errorFound);
    }
    width = r.width;
    linesBefore += r.lines;
    tagged += r.consumed;
    options.onBlock?.(tagged);
    if (r.output.length > 0) await out.writeOut(r.output);
    if (r.output.length > written.length) written = Buffer.alloc(2 * r.output.length);
    return r.consumed;
  };
  const append = (bytes: Uint8Array): void => {
    if (have + bytes.length > buf.length) {
      const grown = Buffer.alloc(2 * (have + bytes.length));
      buf.copy(grown, 0, 0, have);
      buf = grown;
    }
    buf.set(bytes, have);
    have += bytes.length;
  };
  try {
    for await (const chunk of readChunks(input, blockBytes, true)) {
      append(chunk);
      if (first) {
        // A byte-order mark is dropped; its bytes may come in more than one chunk.
        if (have < 3) continue;
        if (startsWithBom(buf.subarray(0, have))) {
          buf.copy(buf, 0, 3, have);
          have -= 3;
        }
        first = false;
      }
      if (have > 0) sawBytes = true;
      // (lastIndexOf with -1 would search the stale bytes after `have`.)
      const lastNewline = have > 0 ? buf.lastIndexOf(NEWLINE, have - 1) : -1;
      if (lastNewline < 0) continue;
      const consumed = await run(buf.subarray(0, lastNewline + 1), false);
      // What run() left (an unfinished sentence) and the bytes after the last newline move to the front.
      buf.copy(buf, 0, consumed, have);
      have -= consumed;
    }
    if (!sawBytes && have === 0) throw new InputError(input, undefined, 'empty file');
    if (have > 0 && buf[have - 1] !== NEWLINE) append(Buffer.from([NEWLINE]));
    await run(buf.subarray(0, have), true);
    await out.commit();
  } catch (err) {
    await out.discard();
    throw err;
  }
}
