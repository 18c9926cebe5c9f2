/**
 * The real components behind the pipeline's interfaces: the chart parser (task parse), the
 * CRF tagger (task tag), boosting and the log-linear reranker (lib/rerank/boost.ts) and the
 * kernel perceptron rerankers (lib/rerank/perceptron.ts). A part that cannot run in this
 * build raises ComponentUnavailable naming the step it would run.
 */
import type { BaseModel, ComponentFactory, Reranker } from '../components.js';
import type {
  BoostConfig,
  LoglinearConfig,
  ParserBaseConfig,
  PerceptronConfig,
  PipelineConfig,
  RerankerConfig,
  TaggerBaseConfig,
} from '../config.js';
import { chartParserBase } from './parser.js';
import { taggerBase } from './tagger.js';
import { boostReranker, loglinearReranker } from './linear.js';
import { perceptronReranker } from './perceptron.js';

export const realComponents: ComponentFactory = {
  base(config: PipelineConfig): BaseModel {
    if (config.task === 'parse') return chartParserBase(config.base as ParserBaseConfig);
    return taggerBase(config.base as TaggerBaseConfig, config.data.columns, config.data.label);
  },
  reranker(rc: RerankerConfig & { name: string }, pipeline: PipelineConfig): Reranker {
    if (rc.type === 'boost') return boostReranker(rc as BoostConfig & { name: string });
    if (rc.type === 'loglinear') return loglinearReranker(rc as LoglinearConfig & { name: string });
    return perceptronReranker(rc as PerceptronConfig & { name: string }, pipeline.task);
  },
};
