/** Streams lines into a file atomically: a temp file in the same folder, renamed into place when complete. */
import { createWriteStream, renameSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { InputError } from '../errors.js';

/**
 * Writes each string of `chunks` as is (callers add the newlines). On any failure (of the
 * input or of the disk) the temp file is removed and `file` is left untouched; errors of
 * the input iterable are rethrown as they are.
 */
export async function writeTextAtomic(file: string, chunks: Iterable<string> | AsyncIterable<string>): Promise<void> {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
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
      renameSync(temp, file);
      return;
    } catch (error) {
      failed = { error, fromInput: false };
    }
  }
  try {
    unlinkSync(temp);
  } catch {
    /* the temp file may not exist */
  }
  if (failed.fromInput) throw failed.error;
  throw new InputError(file, undefined, `cannot write: ${(failed.error as Error).message}`);
}
