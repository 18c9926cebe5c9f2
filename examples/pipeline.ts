/**
 * The reranking pipeline through the library API: parse the embedded GUM data with the
 * chart parser (jackknifed 20-best lists), rerank with boosting and the log-linear model,
 * print the test table and write an HTML report.
 *
 *   npx tsx examples/pipeline.ts [output-folder]
 *
 * Steps are cached in <output-folder>/cache: run it twice and the second run only evaluates.
 */
import { join, resolve } from 'node:path';
import { formatResultsTable, runPipeline, validatePipelineConfig, writeReport } from '../lib/api/pipeline.js';

const output = resolve(process.argv[2] ?? 'structrank-example');
const gum = resolve(import.meta.dirname, '..', 'data', 'gum-open');

// The same object a pipeline.json would hold; validation fills the defaults and names a bad field.
const config = validatePipelineConfig(
  {
    task: 'parse',
    data: {
      train: join(gum, 'train.mrg'),
      dev: join(gum, 'dev.mrg'),
      test: join(gum, 'test.mrg'),
      maxLength: 25,
      trainLimit: 600,
      devLimit: 150,
      testLimit: 200,
    },
    folds: 3,
    nbest: 10,
    // The PCFG base keeps this example to seconds; the default base is the CRF parser.
    base: { markov: 2, crf: false },
    rerankers: [
      { type: 'boost', rounds: 2000, eps: [0.001, 0.005], cutoff: 2 },
      { type: 'loglinear', l2: [1, 10], cutoff: 2 },
    ],
    output,
  },
  'examples/pipeline.ts',
);

// Ctrl-C stops the running step; the finished ones stay cached.
const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

const results = await runPipeline(config, {
  signal: controller.signal,
  log: (line) => console.error(line),
  progress: (label, done, total) => {
    if (done === total) console.error(`${label}: ${done}/${total}`);
  },
});
console.log(formatResultsTable(results));
for (const s of results.systems) {
  if (s.kind === 'reranker')
    console.log(`${s.name}: ${s.testF1.toFixed(2)} F1 (${s.errorReduction?.toFixed(1)}% relative error reduction)`);
}
console.log(`report: ${await writeReport(output, results, 'structrank example pipeline')}`);
