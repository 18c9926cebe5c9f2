/**
 * What a command may write, settled before any work: every command that reads files and
 * writes files calls `claimOutputs` once, with its inputs and outputs by flag.
 *
 * - An output that is one of the inputs (the same file by device and inode, so also through
 *   a symbolic or hard link) is a usage error: nothing is read or written. An output that
 *   does not exist yet cannot be an input.
 * - Two outputs of one command must be different files.
 * - Each output file is locked for the run (`<file>.lock`, created exclusively, holding the
 *   pid, host and command line): a second process writing the same file fails at its start
 *   naming the first, instead of both reporting success while the last rename wins. A lock
 *   whose process is gone is taken over; locks are removed at exit, on Ctrl-C and when the
 *   command returns (`releaseAllLocks`).
 *
 * `-` (standard input or output) and devices or pipes (/dev/null) are neither compared nor
 * locked.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { checkOutputPath, isDeviceOrPipe, STDOUT } from './atomic-writer.js';
import { lockPath, type FolderLock } from './folder-lock.js';

/** Files by the flag (or argument name) that gave them; undefined entries are ignored. */
export type NamedFiles = Record<string, string | undefined>;

/** The suffix of an output file's lock file. */
export const OUTPUT_LOCK_SUFFIX = '.lock';

/** A file's identity (device and inode, after following links), or undefined when it does not exist. */
function identity(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function named(files: NamedFiles): [string, string][] {
  return Object.entries(files).filter(
    (e): e is [string, string] => e[1] !== undefined && e[1] !== STDOUT && e[1] !== '',
  );
}

/**
 * Refuses outputs that are inputs (or each other) with a UsageError naming both flags; an
 * output that cannot be written (a folder, a missing folder) is an IoError, as in
 * checkOutputPath (unless `writable: false`, for outputs whose folder is made later). Writes
 * nothing.
 */
export function checkOutputs(
  command: string,
  inputs: NamedFiles,
  outputs: NamedFiles,
  options: { writable?: boolean } = {},
): void {
  const outs = named(outputs);
  if (options.writable !== false) for (const [, file] of outs) checkOutputPath(file);
  const seen: [string, string, string][] = [];
  for (const [flag, file] of named(inputs)) {
    const id = identity(file);
    if (id !== undefined) seen.push([flag, file, id]);
  }
  const outSeen: [string, string, string][] = [];
  for (const [flag, file] of outs) {
    if (isDeviceOrPipe(file)) continue;
    const id = identity(file);
    const input = id === undefined ? undefined : seen.find((s) => s[2] === id);
    if (input !== undefined) {
      const same = resolve(input[1]) === resolve(file) ? '' : ` (${input[1]}, through a link)`;
      throw new UsageError(
        `${command}: ${flag} ${file} is the input ${input[0]}${same}: refusing to write over an input; choose another output file`,
      );
    }
    const key = id ?? `path:${resolve(file)}`;
    const other = outSeen.find((s) => s[2] === key);
    if (other !== undefined)
      throw new UsageError(`${command}: ${flag} ${file} is also the output ${other[0]}: give each output its own file`);
    outSeen.push([flag, file, key]);
  }
}

/** The locks of a command's outputs. */
export interface OutputClaim {
  release(): void;
}

/**
 * checkOutputs, then locks every output file for this process until `release()`, exit or
 * `releaseAllLocks()`. A file another live structrank process is writing is an InputError
 * naming that process (pid, host, start, command line).
 */
export function claimOutputs(command: string, inputs: NamedFiles, outputs: NamedFiles): OutputClaim {
  checkOutputs(command, inputs, outputs);
  const locks: FolderLock[] = [];
  const release = (): void => {
    for (const lock of locks) lock.release();
  };
  try {
    for (const [, file] of named(outputs)) {
      if (isDeviceOrPipe(file)) continue;
      locks.push(lockPath(`${file}${OUTPUT_LOCK_SUFFIX}`, file, 'output file'));
    }
  } catch (err) {
    release();
    throw err;
  }
  return { release };
}
