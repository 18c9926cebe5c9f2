/** The chart parser (lib/parser) as the pipeline's base model for task 'parse'. */
import { stepRun } from './progress.js';
import type { NbestSentence } from '../../io/nbest.js';
import { ChartParserModel } from '../../parser/chart-parser.js';
import { parseTree } from '../../trees/bracket-parser.js';
import { formatTree } from '../../trees/tree.js';
import type { BaseModel, PipelineSentence, StepContext } from '../components.js';
import type { ParserBaseConfig } from '../config.js';

/** Sentences per native call, so progress and cancellation stay responsive. */
const BATCH = 64;

export function chartParserBase(options: ParserBaseConfig): BaseModel {
  const name = options.crf ? 'CRF-CFG chart parser' : 'PCFG chart parser';
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext) {
      const trees = sentences.map((s) => parseTree(s.gold as string, s.id));
      const model = await ChartParserModel.train(trees, {
        markov: options.markov,
        crf: options.crf,
        epochs: options.epochs,
        rareThreshold: options.rareThreshold,
        threads: ctx.threads,
        seed: ctx.seed,
      }, stepRun(ctx, `train ${name}`));
      return {
        async nbest(test: PipelineSentence[], k: number, c: StepContext): Promise<NbestSentence[]> {
          const out: NbestSentence[] = [];
          for (let b = 0; b < test.length; b += BATCH) {
            const batch = test.slice(b, b + BATCH);
            const parsed = await model.parseNbest(batch.map((s) => s.tokens), k, { threads: c.threads, signal: c.signal });
            parsed.forEach((p, i) => {
              out.push({
                id: batch[i].id,
                tokens: batch[i].tokens,
                candidates: p.candidates.map((cand) => ({ tree: formatTree(cand.tree), logprob: cand.logprob })),
                line: 0,
              });
            });
            c.progress?.(`${k}-best parses`, Math.min(test.length, b + BATCH), test.length);
          }
          return out;
        },
      };
    },
  };
}
