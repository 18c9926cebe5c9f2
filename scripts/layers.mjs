/**
 * The layers of lib/, bottom to top. A file may import from its own layer, from any lower
 * layer, and from the layers of the same rank its layer `sees`; a layer with `importedBy`
 * (the public API) is imported by no other layer. Read by scripts/import-graph.mjs (the
 * report) and scripts/eslint-layers.mjs (the lint rules eslint.config.js turns on for lib/).
 * `paths` are relative to lib/: a folder ends in '/', a file is named whole.
 */
export const LAYERS = [
  // Foundations: no model, no command.
  { rank: 0, name: 'errors', paths: ['errors.ts'] },
  { rank: 1, name: 'options', paths: ['options/'] },
  { rank: 2, name: 'trees', paths: ['trees/'] },
  { rank: 3, name: 'io', paths: ['io/'] },
  { rank: 4, name: 'native', paths: ['native.ts'] },
  { rank: 5, name: 'progress', paths: ['progress.ts', 'train-progress.ts'] },
  { rank: 6, name: 'eval', paths: ['eval/'] },
  // The one training loop and the trainer contract every model family trains through; what a
  // trained model offers the pipeline (model-contract.ts: NbestProducer, TrainedReranker).
  { rank: 7, name: 'training', paths: ['training/'] },
  // The model families: the reranker's kernel perceptron uses the kernels' symbol tables,
  // the tagger reads the parser's word-cluster format, the parser rescores with the
  // reranker's head model.
  { rank: 8, name: 'kernels', paths: ['kernels/'] },
  { rank: 8, name: 'parser', paths: ['parser/'], sees: ['rerank'] },
  { rank: 8, name: 'tagger', paths: ['tagger/'], sees: ['parser'] },
  { rank: 8, name: 'rerank', paths: ['rerank/'], sees: ['kernels'] },
  { rank: 9, name: 'pipeline', paths: ['pipeline/'] },
  // The public API re-exports the layers below it; nothing inside lib/ imports it.
  { rank: 10, name: 'api', paths: ['index.ts', 'api/'], importedBy: [] },
  // The distributed runtime knows no command: the worker is handed the commands it runs.
  { rank: 11, name: 'distributed', paths: ['distributed/'] },
  { rank: 12, name: 'commands', paths: ['commands/'] },
  { rank: 13, name: 'cli', paths: ['cli/', 'cli.ts'] },
].map((layer) => ({ sees: [], ...layer }));

/** The layer of a path relative to lib/ ('parser/chart-parser.ts'), or undefined. */
export function layerOf(path) {
  return LAYERS.find((layer) => layer.paths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)));
}

/** Whether a file of layer `from` may import one of layer `to`. */
export function mayImport(from, to) {
  if (from.name === to.name) return true;
  if (to.importedBy !== undefined && !to.importedBy.includes(from.name)) return false;
  return to.rank < from.rank || (to.rank === from.rank && from.sees.includes(to.name));
}
