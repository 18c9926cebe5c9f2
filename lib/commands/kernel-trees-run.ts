/** What `kernel trees` does once its options are read; shared by the command and its lean path. */
import { TreeBank } from '../kernels/tree-bank.js';
import { gramAsync } from '../kernels/kernel.js';

export interface KernelTreesSettings {
  lambda: number;
  depth: number | undefined;
  normalize: boolean;
  strip: boolean;
  plain: boolean;
  /** Resolved thread count. */
  threads: number;
}

/** Reads the treebank files (one or two) and computes the Gram matrix of A against B, or of A against itself. */
export async function kernelTreesMatrix(
  files: readonly string[],
  s: KernelTreesSettings,
): Promise<{ matrix: Float64Array; cols: number }> {
  const banks = files.map((file) => TreeBank.fromFile(file, { strip: s.strip }));
  const a = banks[0];
  const b = banks[1];
  const matrix = await gramAsync(a, b ?? null, {
    lambda: s.lambda,
    depth: s.depth,
    normalize: s.normalize,
    plain: s.plain,
    threads: s.threads,
  });
  return { matrix, cols: (b ?? a).size };
}
