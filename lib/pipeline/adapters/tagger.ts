/** The sequence tagger (lib/tagger) as the pipeline's base model for task 'tag'. */
import { stepRun } from '../../training/step-run.js';
import type { NbestSentence } from '../../io/nbest.js';
import { Tagger } from '../../tagger/tagger.js';
import type { DefaultTemplateName } from '../../tagger/templates.js';
import type { BaseModel, PipelineSentence, StepContext } from '../components.js';
import type { TaggerBaseConfig } from '../config.js';
import { AbortError } from '../../errors.js';

export function taggerBase(options: TaggerBaseConfig, columns: string[], label: string): BaseModel {
  const name = `${options.algo.toUpperCase() === 'CRF' ? 'CRF' : options.algo} tagger`;
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext) {
      const tagger = await Tagger.train(
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
      return {
        async nbest(test: PipelineSentence[], k: number, c: StepContext): Promise<NbestSentence[]> {
          const out: NbestSentence[] = [];
          const batch = 1024; // batches off the JS thread, all cores each; progress between them
          for (let b = 0; b < test.length; b += batch) {
            if (c.signal?.aborted) throw new AbortError();
            const part = test.slice(b, b + batch);
            const lists = await tagger.tagNbest(
              part.map((s) => s.rows as string[][]),
              k,
              { threads: c.threads, signal: c.signal },
            );
            lists.forEach((cands, i) => {
              out.push({
                id: part[i].id,
                tokens: part[i].tokens,
                candidates: cands.map((x) => ({ tags: x.tags, logprob: x.logprob })),
                line: 0,
              });
            });
            c.progress?.(`${k}-best tags`, Math.min(test.length, b + batch), test.length);
          }
          return out;
        },
      };
    },
  };
}
