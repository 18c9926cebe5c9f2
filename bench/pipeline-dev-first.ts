/**
 * `structrank pipeline --config <file>` with the dev-test candidate step first, then the
 * jackknife folds: on a slow machine the dev and test lists exist (in the step cache, under
 * the same keys as a normal run's) before the last folds do, so rerankers can be tried on
 * the folds finished so far (bench/floresta-rerank-lists.ts) while the rest runs or later.
 * A normal `structrank pipeline` run on the same config reuses every finished step.
 *
 *   npx tsx bench/pipeline-dev-first.ts bench/floresta-pipeline.json
 */
import type { CandidateExecutor } from '../lib/pipeline/candidates.js';
import { readPipelineConfig } from '../lib/pipeline/config.js';
import { progressBars } from '../lib/pipeline/cli.js';
import { formatResultsTable } from '../lib/pipeline/report.js';
import { runPipeline } from '../lib/pipeline/run.js';
import type { StepResult } from '../lib/pipeline/step-cache.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: npx tsx bench/pipeline-dev-first.ts <pipeline.json>');
  process.exit(2);
}
/** The last step (dev-test) first, the folds after it; results in the steps' own order. */
const devFirst: CandidateExecutor = {
  async run(steps, _inputs, local) {
    const out: StepResult[] = new Array<StepResult>(steps.length);
    const order = [steps.length - 1, ...steps.slice(0, -1).map((_, i) => i)];
    for (const i of order) out[i] = await local(steps[i]);
    return out;
  },
};
const results = await runPipeline(readPipelineConfig(file), {
  executor: devFirst,
  log: (line) => console.error(line),
  progress: progressBars(),
});
console.log(formatResultsTable(results));
