/**
 * The real components behind the pipeline's interfaces. Each adapter wraps one part of
 * structrank (chart parser, tagger, boosting / log-linear / perceptron rerankers); a part
 * that is not in this build raises ComponentUnavailable naming the step it would run.
 */
import { ComponentUnavailable, type BaseModel, type Reranker } from '../components.js';
import type { PipelineConfig, RerankerConfig } from '../config.js';
import type { ComponentFactory } from '../run.js';

export const realComponents: ComponentFactory = {
  base(config: PipelineConfig): BaseModel {
    if (config.task === 'parse') {
      throw new ComponentUnavailable('the chart parser (lib/parser)', 'candidate generation', 'its branch is not merged into this build');
    }
    throw new ComponentUnavailable('the CRF tagger (lib/tagger)', 'candidate generation', 'its branch is not merged into this build');
  },
  reranker(rc: RerankerConfig & { name: string }): Reranker {
    const what = rc.type === 'perceptron' ? 'the kernel perceptron rerankers (lib/rerank/perceptron)' : 'the boosting and log-linear rerankers (lib/rerank)';
    throw new ComponentUnavailable(what, `reranker '${rc.name}'`, 'its branch is not merged into this build');
  },
};
