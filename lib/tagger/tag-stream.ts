/**
 * Streams a CoNLL column file through a tagger: reads it in blocks of whole lines, tags each
 * block's finished sentences in native code (Tagger.tagColumnBlock) and writes every line with
 * its label appended, as `structrank tag` prints it. Memory stays at one block plus the
 * sentence that crosses into the next one, whatever the size of the input. Imports no option
 * schemas, so the `tag` command can run it straight from the command line (lib/cli/fast-tag.ts).
 */
import { isUtf8 } from 'node:buffer';
import { AbortError, InputError } from '../errors.js';
import { AtomicFile } from '../io/atomic-writer.js';
import { invalidUtf8, readChunks, startsWithBom } from '../io/lines.js';
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
}

/** The error for a first token line that has neither the model's input columns nor all its columns. */
export function firstWidthError(input: string, line: number, tagger: Tagger, found: number): InputError {
  const { columns, inputColumns } = tagger.meta;
  return new InputError(input, line, `expected ${inputColumns.length} columns (${inputColumns.join(', ')}) or ${columns.length} (${columns.join(', ')}), found ${found}`);
}

/** The error for a token line whose width differs from the first token line's. */
export function widthError(input: string, line: number, width: number, found: number): InputError {
  return new InputError(input, line, `expected ${width} columns, found ${found}`);
}

const NEWLINE = 0x0a;
/**
 * Bytes read at a time. Each block's native work (fields, attribute rows, output) takes about
 * 15x its size, on whichever pool thread runs it, and the C allocator keeps such memory per
 * thread: 256 KiB keeps the process near its model's size where 1 MiB blocks grew it by ~100 MB.
 */
export const BLOCK_BYTES = 1 << 18;

/** Tags `input` into `out`; the output is written to a temp file and renamed when complete. */
export async function tagStream(tagger: Tagger, options: TagStreamOptions): Promise<void> {
  const { input, separator, threads, signal } = options;
  const out = options.out !== undefined ? await AtomicFile.open(options.out) : await AtomicFile.open('-');
  let width = -1;
  let linesBefore = 0;
  let carry: Buffer = Buffer.alloc(0);
  let first = true;
  let sawBytes = false;
  const run = async (block: Buffer, final: boolean): Promise<void> => {
    if (!isUtf8(block)) throw invalidUtf8(input, block, linesBefore);
    // Blocks are tagged synchronously; a cancel request is seen between blocks.
    if (signal?.aborted) throw new AbortError();
    const r = tagger.tagColumnBlock(block, final, width, separator, threads);
    if (r.errorLine > 0) {
      const line = linesBefore + r.errorLine;
      throw r.errorKind === 1 ? firstWidthError(input, line, tagger, r.errorFound) : widthError(input, line, r.width, r.errorFound);
    }
    width = r.width;
    linesBefore += r.lines;
    if (r.output.length > 0) await out.write(r.output);
    carry = block.subarray(r.consumed);
  };
  try {
    for await (const chunk of readChunks(input, options.blockBytes ?? BLOCK_BYTES)) {
      let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      if (first) {
        // A byte-order mark is dropped; its bytes may come in more than one chunk.
        if (data.length < 3) {
          carry = data;
          continue;
        }
        if (startsWithBom(data)) data = data.subarray(3);
        first = false;
      }
      if (data.length > 0) sawBytes = true;
      const lastNewline = data.lastIndexOf(NEWLINE);
      if (lastNewline < 0) {
        carry = data;
        continue;
      }
      const rest = data.subarray(lastNewline + 1);
      await run(data.subarray(0, lastNewline + 1), false);
      // What run() left (an unfinished sentence) comes before the bytes after the last newline.
      carry = carry.length > 0 ? Buffer.concat([carry, rest]) : Buffer.from(rest);
    }
    if (!sawBytes && carry.length === 0) throw new InputError(input, undefined, 'empty file');
    if (carry.length > 0 && carry[carry.length - 1] !== NEWLINE) carry = Buffer.concat([carry, Buffer.from([NEWLINE])]);
    await run(carry, true);
    await out.commit();
  } catch (err) {
    await out.discard();
    throw err;
  }
}
