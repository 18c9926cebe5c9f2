/** Matrix printing for the kernel commands (kept free of the option machinery: the lean `kernel trees` path loads it). */
import { once } from 'node:events';
import { native } from '../native.js';
import type { KernelsAddon } from './native-kernels.js';

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
