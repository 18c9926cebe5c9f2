/**
 * The real components behind the pipeline's interfaces. Each adapter wraps one part of
 * structrank (chart parser, tagger, boosting / log-linear / perceptron rerankers); a part
 * that is not in this build raises ComponentUnavailable naming the step it would run.
 */
import { ComponentUnavailable, type BaseModel, type Reranker } from '../components.js';
import type { BoostConfig, LoglinearConfig, PipelineConfig, RerankerConfig, TaggerBaseConfig } from '../config.js';
import type { ComponentFactory } from '../run.js';
import { taggerBase } from './tagger.js';
import { boostReranker, loglinearReranker } from './linear.js';

export const realComponents: ComponentFactory = {
  base(config: PipelineConfig): BaseModel {
    if (config.task === 'parse') {
      throw new ComponentUnavailable('the chart parser (lib/parser)', 'candidate generation', 'its branch is not merged into this build');
    }
    return taggerBase(config.base as TaggerBaseConfig, config.data.columns, config.data.label);
  },
  reranker(rc: RerankerConfig & { name: string }): Reranker {
    if (rc.type === 'boost') return boostReranker(rc as BoostConfig & { name: string });
    if (rc.type === 'loglinear') return loglinearReranker(rc as LoglinearConfig & { name: string });
    throw new ComponentUnavailable('the kernel perceptron reranker (lib/rerank/perceptron)', `reranker '${rc.name}'`, 'its branch is not merged into this build');
  },
};
