/** Shared by `kernel trees` and `kernel tags`: option checks and matrix printing. */
import { numberOption } from '../cli/args.js';
import { InputError, UsageError } from '../errors.js';
import { once } from 'node:events';

export function lambdaOption(command: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`${command}: missing required option --lambda`);
  return numberOption(command, value, 'lambda', 0, (n) => n > 0 && n <= 1);
}

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
