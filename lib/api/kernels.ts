/**
 * `structrank/kernels`: tree kernels (Collins & Duffy) and tagging kernels over banks of
 * trees or tag sequences: single values, rows and Gram matrices, on all cores.
 *
 * @example
 * ```ts
 * import { TreeBank, gramAsync } from 'structrank/kernels';
 * import { readTreesSync } from 'structrank/trees';
 * const bank = TreeBank.fromTrees(readTreesSync('a.mrg'));
 * const matrix = await gramAsync(bank, { lambda: 0.4 });
 * ```
 * @packageDocumentation
 */
export * from '../kernels/index.js';
