/** Shared by `kernel trees` and `kernel tags`: option checks and matrix printing. */
import { z } from 'zod';
import { InputError } from '../errors.js';
import { once } from 'node:events';
import { native } from '../native.js';
import type { KernelsAddon } from '../kernels/native-kernels.js';
import { option } from '../options/field.js';
import { json, threads } from '../options/common.js';

/** The options both kernel commands take. */
export const kernelFields = {
  lambda: option(z.number().gt(0).lte(1), 'decay, 0 < L <= 1', { value: 'L' }),
  normalize: option(z.boolean().default(false), 'K(a,b) / sqrt(K(a,a) K(b,b))'),
  plain: option(z.boolean().default(false), 'use the plain reference algorithm (all pairs / full table)'),
  threads,
  json: option(json, 'print {"rows": [[...], ...]} (default: one row per line, space-separated)'),
};

/**
 * Prints a row-major matrix as JSON {"rows": [...]} or as space-separated lines, streamed
 * about 1 MB at a time (a large Gram matrix would not fit in one JS string). The native
 * core writes the numbers, exactly as String(x) / JSON.stringify would.
 */
export async function printMatrix(matrix: Float64Array, cols: number, json: boolean): Promise<void> {
  const out = process.stdout;
  const write = async (chunk: string | Uint8Array): Promise<void> => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const rows = cols > 0 ? matrix.length / cols : 0;
  const step = Math.max(1, Math.floor((1 << 20) / (20 * Math.max(cols, 1))));
  const { formatRows } = native<KernelsAddon>();
  if (json) await write('{"rows":[');
  for (let r = 0; r < rows; r += step) await write(formatRows(matrix, cols, r, Math.min(rows, r + step), json));
  if (json) await write(']}\n');
}

/** Native input errors (InputError without a file) are named after the command for the CLI's one-line report. */
export async function rethrowNative<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof InputError && err.file === '' && err.code === 'ERR_STRUCTRANK_INPUT') throw new InputError('kernel', undefined, err.problem);
    throw err;
  }
}
