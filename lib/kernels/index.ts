/** Tree and tagging kernels: banks, kernel values, rows and Gram matrices. */
export { TreeBank, unwrapTree, type TreeBankOptions } from './tree-bank.js';
export {
  SequenceBank,
  builtinWordFeatures,
  type TaggedSequence,
  type SequenceBankOptions,
  type BuiltinWordFeature,
  type WordFeatureFunction,
} from './sequence-bank.js';
export {
  kernel,
  row,
  rowAsync,
  gram,
  gramAsync,
  toRows,
  type Bank,
  type TreeKernelOptions,
  type SequenceKernelOptions,
  type ParallelOptions,
  type AsyncOptions,
} from './kernel.js';
