/** The chart parser (lib/parser) as the pipeline's base model for task 'parse'. */
import { stepRun } from '../../training/step-run.js';
import { ChartParserModel } from '../../parser/chart-parser.js';
import { parseTree } from '../../trees/bracket-parser.js';
import type { BaseModel, PipelineSentence, StepContext } from '../components.js';
import type { ParserBaseConfig } from '../config.js';

export function chartParserBase(options: ParserBaseConfig): BaseModel {
  const name = options.crf ? 'CRF-CFG chart parser' : 'PCFG chart parser';
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext, dev?: PipelineSentence[]) {
      const treesOf = (set: PipelineSentence[]) => set.map((s) => parseTree(s.gold as string, s.id));
      const trees = treesOf(sentences);
      // The CRF's pass is chosen on dev, as `train-parser --dev` does; the PCFG has no passes.
      const devTrees = options.crf && options.devPass && dev !== undefined && dev.length > 0 ? treesOf(dev) : undefined;
      const model = await ChartParserModel.train(
        trees,
        {
          markov: options.markov,
          crf: options.crf,
          epochs: options.epochs,
          margin: options.margin,
          ...(devTrees ? { dev: devTrees } : {}),
          rareThreshold: options.rareThreshold,
          threads: ctx.threads,
          seed: ctx.seed,
          // The CRF's passes resume in a retried job (the PCFG is counted in one pass).
          ...(options.crf ? ctx.checkpoints?.(`train ${name}`) : {}),
        },
        stepRun(ctx, `train ${name}`),
      );
      return model.nbestProducer({ kbest: options.kbest, pool: options.pool, mbr: options.crf && options.mbr });
    },
  };
}
