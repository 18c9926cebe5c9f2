/**
 * Loads the native addon: a matching prebuilt binary from prebuilds/ when there is one,
 * else the local source build in build/ (node-gyp-build's order).
 * Each capability declares the part of the addon it uses in its own module, e.g.
 * `native<KernelsAddon>()`.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { AbortError, nativeError } from './errors.js';
import { packageRoot } from './io/package-info.js';

export interface CancelFlagHandle {
  cancel(): void;
  isCancelled(): boolean;
}

/** The vector variant of the hot loops (native/core/simd.h): run, supported, and why. */
export interface SimdInfo {
  active: 'portable' | 'avx2' | 'avx512';
  supported: string[];
  description: string;
}

export interface CoreAddon {
  nativeInfo(): {
    abi: number;
    defaultThreads: number;
    /** The most threads a native call takes (native/core/thread_pool.h kMaxThreads). */
    maxThreads: number;
    modules: string[];
    simd: SimdInfo;
  };
  /** Tests: run `variant` from now on in this process; false when the CPU lacks it. */
  forceSimd(variant: 'portable' | 'avx2' | 'avx512'): boolean;
  CancelFlag: new () => CancelFlagHandle;
}

const require = createRequire(import.meta.url);

let addon: unknown;

export function native<T = CoreAddon>(): T & CoreAddon {
  if (addon === undefined) {
    const load = require('node-gyp-build') as (dir: string) => unknown;
    addon = load(packageRoot);
    // Native exceptions become lib/errors.ts classes by kind (binding/async.cc).
    (addon as { setErrorFactory?: (f: typeof nativeError) => void }).setErrorFactory?.(nativeError);
  }
  return addon as T & CoreAddon;
}

/**
 * Default thread count: all cores.
 *
 * @example
 * ```ts
 * const threads = defaultThreads();   // all cores
 * ```
 */
export function defaultThreads(): number {
  return resolveThreads(undefined);
}

let threadNoticeShown = false;
let maxThreads: number | undefined;

/**
 * The thread count to use for a requested `--threads` (0 or undefined: all cores). More
 * threads than cores only cost memory (per-thread charts, gradients) and time, so a larger
 * request is capped at the core count (and at the addon's nativeInfo().maxThreads), with a notice
 * (once per process) through `notice`. The one place a thread count is resolved: commands and
 * API methods call it on what they were given, and the addon takes only its result and uses
 * exactly that many threads (a count >= 1; anything else is a TypeError,
 * native/binding/options.h).
 */
export function resolveThreads(
  requested: number | undefined,
  notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): number {
  maxThreads ??= native().nativeInfo().maxThreads;
  const cores = Math.min(availableParallelism(), maxThreads);
  if (!requested || requested <= 0) return cores;
  if (requested <= cores) return requested;
  if (!threadNoticeShown) {
    threadNoticeShown = true;
    notice(`structrank: --threads ${requested} is more than the ${cores} cores here; using ${cores}`);
  }
  return cores;
}

/**
 * A native cancel flag wired to an AbortSignal: loops in C++ poll it.
 * Call `dispose()` when the job ends so the listener is removed.
 */
export function cancelFlagFor(signal: AbortSignal | undefined): { flag: CancelFlagHandle; dispose: () => void } {
  const flag = new (native().CancelFlag)();
  if (!signal) return { flag, dispose: () => {} };
  if (signal.aborted) flag.cancel();
  const onAbort = (): void => flag.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  return { flag, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Runs a native job with a cancel flag tied to `signal`. Rejects with AbortError at once if
 * the signal has already fired, and turns the native side's abort into the same AbortError.
 */
export async function withCancelFlag<T>(
  signal: AbortSignal | undefined,
  job: (flag: CancelFlagHandle) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw new AbortError();
  const { flag, dispose } = cancelFlagFor(signal);
  try {
    return await job(flag);
  } catch (err) {
    // By code, not class: the error may come from another copy of this module (lib/ and dist/ in tests).
    if ((err as { code?: unknown } | null)?.code === 'ABORT_ERR') throw new AbortError();
    throw err;
  } finally {
    dispose();
  }
}
