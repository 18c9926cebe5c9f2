/** Shared by `kernel trees` and `kernel tags`: option checks and matrix printing. */
import { numberOption } from '../cli/args.js';
import { InputError, UsageError } from '../errors.js';
import { toRows } from '../kernels/kernel.js';

export function lambdaOption(command: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`${command}: missing required option --lambda`);
  return numberOption(command, value, 'lambda', 0, (n) => n > 0 && n <= 1);
}

/** Prints a row-major matrix as JSON {"rows": [...]} or as space-separated lines. */
export function printMatrix(matrix: Float64Array, cols: number, json: boolean): void {
  const rows = toRows(matrix, cols);
  if (json) {
    process.stdout.write(JSON.stringify({ rows }) + '\n');
    return;
  }
  const out: string[] = rows.map((r) => r.join(' '));
  process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
}

/** Native input errors (code ERR_STRUCTRANK_INPUT) become InputError for the CLI's one-line report. */
export async function rethrowNative<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e?.code === 'ERR_STRUCTRANK_INPUT' && !(e instanceof InputError)) throw new InputError('kernel', undefined, e.message);
    throw err;
  }
}
