/** The sequence tagger (lib/tagger) as the pipeline's base model for task 'tag'. */
import { stepRun } from '../../training/step-run.js';
import { Tagger } from '../../tagger/tagger.js';
import type { DefaultTemplateName } from '../../tagger/templates.js';
import type { BaseModel, PipelineSentence, StepContext } from '../components.js';
import type { TaggerBaseConfig } from '../config.js';

export function taggerBase(options: TaggerBaseConfig, columns: string[], label: string): BaseModel {
  const name = `${options.algo.toUpperCase() === 'CRF' ? 'CRF' : options.algo} tagger`;
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext) {
      return Tagger.train(
        sentences.map((s) => s.rows as string[][]),
        {
          algo: options.algo,
          columns,
          label,
          order: options.order,
          epochs: options.epochs,
          c2: options.c2,
          optimizer: options.optimizer,
          templates: options.templates as DefaultTemplateName | undefined,
          threads: ctx.threads,
          seed: ctx.seed,
          ...ctx.checkpoints?.(`train ${name}`),
        },
        stepRun(ctx, `train ${name}`),
      );
    },
  };
}
