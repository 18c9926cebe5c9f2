/**
 * `structrank/pipeline`: the reranking experiment end to end: jackknifed n-best lists from a
 * base model, rerankers tuned on dev, test evaluation and an HTML report.
 *
 * @example
 * ```ts
 * import { readPipelineConfig, runPipeline, writeReport } from 'structrank/pipeline';
 * const config = readPipelineConfig('pipeline.json');
 * const results = await runPipeline(config, { log: console.error });
 * ```
 * @packageDocumentation
 */
export {
  validatePipelineConfig,
  readPipelineConfig,
  pipelineConfigSchema,
  pipelineJsonSchema,
  type PipelineConfig,
  type PipelineConfigInput,
  type RerankerConfig,
} from '../pipeline/config.js';
export { runPipeline, type PipelineResults, type SystemResult, type RunPipelineOptions } from '../pipeline/run.js';
export {
  ComponentUnavailable,
  type BaseModel,
  type NbestProducer,
  type Reranker,
  type TrainedReranker,
  type CandidateSet,
  type PipelineSentence,
  type StepContext,
  type Curve,
  type ComponentFactory,
} from '../pipeline/components.js';
export {
  scoreSet,
  corpusF1,
  oracleChoice,
  relativeErrorReduction,
  f1ByLength,
  type ScoredSet,
} from '../pipeline/evaluate.js';
export { formatResultsTable, renderReport, writeReport, lineChart } from '../pipeline/report.js';
export { demoConfig, demoConfigInput, DEMO_SIZES } from '../pipeline/demo.js';
export { StepCache, stepKey, type StepResult } from '../pipeline/step-cache.js';
export { realComponents } from '../pipeline/adapters/index.js';
export { tagSequenceFeatures } from '../rerank/tag-features.js';
