/// <reference types="node" preserve="true" />
/**
 * A tagger model file read straight into native memory (NativeTagger.sharedBytes), which the
 * loaded model then uses in place: its weights, feature tables and attribute hash table are
 * never copied, parsed or hashed again (docs/formats.md, `tagger` version 2). Standard input
 * and other non-regular files are read as any file is, and the model copies their arrays.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { openError, readWholeFile, readWholeFileAsync, STDIN } from '../io/lines.js';

/** Allocates `size` bytes the native model can keep. */
export type SharedAllocator = (size: number) => Buffer;

/** The whole file in bytes from `allocate` (fewer when the file shrank while being read). */
export function readModelBytes(file: string, allocate: SharedAllocator): Buffer {
  if (file === STDIN) return readWholeFile(file);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return readWholeFile(file);
    const bytes = allocate(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return at < bytes.length ? bytes.subarray(0, at) : bytes;
  } catch (err) {
    throw openError(file, err);
  } finally {
    closeSync(fd);
  }
}

/** readModelBytes without blocking the event loop. */
export async function readModelBytesAsync(file: string, allocate: SharedAllocator): Promise<Buffer> {
  if (file === STDIN) return readWholeFileAsync(file);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return await readWholeFileAsync(file);
    const bytes = allocate(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const { bytesRead } = await handle.read(bytes, at, bytes.length - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at < bytes.length ? bytes.subarray(0, at) : bytes;
  } catch (err) {
    throw openError(file, err);
  } finally {
    await handle.close();
  }
}
