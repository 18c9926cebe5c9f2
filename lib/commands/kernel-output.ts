/** Shared by `kernel trees` and `kernel tags`: option checks and matrix printing. */
import { z } from 'zod';
import { InputError } from '../errors.js';
import { once } from 'node:events';
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
 * Prints a row-major matrix as JSON {"rows": [...]} or as space-separated lines, streamed a
 * row at a time (a large Gram matrix would not fit in one JS string).
 */
export async function printMatrix(matrix: Float64Array, cols: number, json: boolean): Promise<void> {
  const out = process.stdout;
  let buffer = json ? '{"rows":[' : '';
  const flush = async (): Promise<void> => {
    if (buffer.length === 0) return;
    const ok = out.write(buffer);
    buffer = '';
    if (!ok) await once(out, 'drain');
  };
  for (let i = 0, r = 0; i < matrix.length; i += cols, r++) {
    const row = Array.from(matrix.subarray(i, i + cols));
    buffer += json ? `${r > 0 ? ',' : ''}${JSON.stringify(row)}` : `${row.join(' ')}\n`;
    if (buffer.length > 1 << 20) await flush();
  }
  if (json) buffer += ']}\n';
  await flush();
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
