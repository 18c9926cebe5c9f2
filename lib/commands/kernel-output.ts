/** Shared by `kernel trees` and `kernel tags`: their options and native error naming (printing: lib/kernels/print-matrix.ts). */
import { z } from 'zod';
import { InputError } from '../errors.js';
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

/** Native input errors (InputError without a file) are named after the command for the CLI's one-line report. */
export async function rethrowNative<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof InputError && err.file === '' && err.code === 'ERR_STRUCTRANK_INPUT')
      throw new InputError('kernel', undefined, err.problem);
    throw err;
  }
}
