/**
 * One run per output folder or output file: a lock file holding the owner's pid and host,
 * created exclusively (O_EXCL). A second run refuses with a message naming the first; a lock
 * left by a process that is gone (same host, pid no longer running) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../errors.js';

export const LOCK_FILE = '.structrank.lock';

export interface LockOwner {
  pid: number;
  host: string;
  started: string;
  command: string;
}

/** Whether process `pid` runs on this host (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : undefined;
  } catch {
    return undefined; // unreadable or half-written: see the caller
  }
}

export interface FolderLock {
  readonly file: string;
  /** Removes the lock file (idempotent). */
  release(): void;
}

/**
 * Locks `dir` (which must exist) for this process. Throws InputError when another live
 * process holds it; takes over a lock whose process has died.
 */
export function lockFolder(dir: string, command = process.argv.slice(2).join(' ')): FolderLock {
  return lockPath(join(dir, LOCK_FILE), dir, 'output folder', command);
}

/** Locks held by this process: released by `releaseAllLocks` (a second Ctrl-C dies without 'exit' handlers). */
const held = new Set<FolderLock>();

/** Releases every lock this process holds (idempotent). */
export function releaseAllLocks(): void {
  for (const lock of [...held]) lock.release();
}

/**
 * Takes the lock file `file` for `target` (an output folder, or an output file: the `what`
 * of the messages) by creating it exclusively with this process's pid, host, start time and
 * command line. Throws InputError (naming `target`) when another live process holds it;
 * takes over a lock whose process has died on this host. Released by `release()`, at exit,
 * or by `releaseAllLocks()`.
 */
export function lockPath(
  file: string,
  target: string,
  what: string,
  command = process.argv.slice(2).join(' '),
): FolderLock {
  const me: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new InputError(target, undefined, `cannot lock the ${what}: ${(err as Error).message}`);
      const owner = readOwner(file);
      if (owner === undefined) {
        // Another process may be between creating and writing the file: only a lock that
        // stays unreadable is treated as stale.
        if (attempt === 0) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
          continue;
        }
      } else if (owner.host !== me.host || processAlive(owner.pid)) {
        if (owner.pid === me.pid && owner.host === me.host)
          throw new InputError(
            target,
            undefined,
            `this process already ${what === 'output folder' ? 'runs in' : 'writes'} this ${what}`,
          );
        throw new InputError(
          target,
          undefined,
          `another structrank run uses this ${what}: pid ${owner.pid} on ${owner.host}, started ${owner.started}` +
            `${owner.command ? ` (structrank ${owner.command})` : ''}; wait for it to finish or choose another ${what}` +
            `${owner.host !== me.host ? `; if that process is gone, remove ${file}` : ''}`,
        );
      }
      // Stale: its process is gone. Remove it and retry (another run may win the race).
      try {
        unlinkSync(file);
      } catch {
        /* removed by another run taking it over */
      }
      continue;
    }
    writeSync(fd, JSON.stringify(me) + '\n');
    closeSync(fd);
    let released = false;
    const lock: FolderLock = {
      file,
      release: (): void => {
        if (released) return;
        released = true;
        held.delete(lock);
        process.off('exit', lock.release);
        // Only our own lock: a run that took over a lock we lost must keep its own.
        if (readOwner(file)?.pid === me.pid) {
          try {
            unlinkSync(file);
          } catch {
            /* already gone */
          }
        }
      },
    };
    held.add(lock);
    process.on('exit', lock.release);
    return lock;
  }
  throw new InputError(target, undefined, `cannot lock the ${what}: ${file} keeps changing (another run starting?)`);
}
