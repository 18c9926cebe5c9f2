/**
 * How a command's failure is printed: one line, and the exit code from the error's code
 * (EXIT_CODES in lib/errors.ts). Usage errors (which add the usage line) are program.ts's.
 */
import { AbortError, EXIT_CODES, StructrankError } from '../errors.js';

export function reportRunError(err: unknown, error: (s: string) => void): number {
  if (err instanceof AbortError || (err as Error)?.name === 'AbortError') {
    error('structrank: cancelled\n');
    return EXIT_CODES.ABORT_ERR;
  }
  if (err instanceof StructrankError && err.code !== 'ERR_STRUCTRANK_INTERNAL') {
    error(`structrank: ${err.message}\n`);
    return EXIT_CODES[err.code];
  }
  error(`structrank: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  if (process.env.STRUCTRANK_DEBUG) error(`${(err as Error)?.stack}\n`);
  return EXIT_CODES.ERR_STRUCTRANK_INTERNAL;
}
