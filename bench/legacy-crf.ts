/**
 * The CRF settings bench/parser.ts and bench/parser-extras.ts measure their legacy tables with:
 * the model before the surface-feature defaults (Markov order 2, parent annotation, VP head
 * tags, no hashed surface features, no pruning, SGD, verb-lexicalized rules, no PCFGs mixed
 * into its MBR decoding).
 */
export const LEGACY_CRF = {
  markov: 2,
  parent: true,
  vpHeadTag: true,
  surfaceBits: 0,
  prune: 0,
  optimizer: 'sgd',
  verbFeatures: true,
  pcfgWeight: 0,
} as const;
