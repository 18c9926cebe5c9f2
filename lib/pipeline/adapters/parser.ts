/** The chart parser (lib/parser) as the pipeline's base model for task 'parse'. */
import { stepRun } from '../../training/step-run.js';
import { MAX_NBEST, type NbestSentence } from '../../io/nbest.js';
import { KBEST_TAG_MODES, selectKbest, type KbestTagMode } from '../../trees/kbest-modes.js';
import { ChartParserModel } from '../../parser/chart-parser.js';
import { parseTree } from '../../trees/bracket-parser.js';
import { formatTree } from '../../trees/tree.js';
import type { BaseModel, NbestProducer, PipelineSentence, StepContext } from '../components.js';
import type { ParserBaseConfig } from '../config.js';

/** Sentences per native call, so progress and cancellation stay responsive. */
const BATCH = 64;

export function chartParserBase(options: ParserBaseConfig): BaseModel {
  const name = options.crf ? 'CRF-CFG chart parser' : 'PCFG chart parser';
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext) {
      const trees = sentences.map((s) => parseTree(s.gold as string, s.id));
      const model = await ChartParserModel.train(
        trees,
        {
          markov: options.markov,
          crf: options.crf,
          epochs: options.epochs,
          rareThreshold: options.rareThreshold,
          threads: ctx.threads,
          seed: ctx.seed,
          // The CRF's passes resume in a retried job (the PCFG is counted in one pass).
          ...(options.crf ? ctx.checkpoints?.(`train ${name}`) : {}),
        },
        stepRun(ctx, `train ${name}`),
      );
      const mode: KbestTagMode = options.kbest;
      const poolSize = (k: number): number => options.pool ?? (mode === 'all' ? k : Math.min(MAX_NBEST, 5 * k));
      // Parses a pool of trees per sentence and keeps k of them by each mode asked for.
      const lists = async (
        test: PipelineSentence[],
        k: number,
        modes: readonly KbestTagMode[],
        c: StepContext,
      ): Promise<Record<string, NbestSentence[]>> => {
        const pool = Math.max(k, poolSize(k));
        const out: Record<string, NbestSentence[]> = Object.fromEntries(modes.map((m) => [m, []]));
        for (let b = 0; b < test.length; b += BATCH) {
          const batch = test.slice(b, b + BATCH);
          const parsed = await model.parseNbest(
            batch.map((s) => s.tokens),
            pool,
            { threads: c.threads, signal: c.signal },
          );
          parsed.forEach((p, i) => {
            for (const m of modes) {
              out[m].push({
                id: batch[i].id,
                tokens: batch[i].tokens,
                candidates: selectKbest(p.candidates, k, m).map((cand) => ({
                  tree: formatTree(cand.tree),
                  logprob: cand.logprob,
                })),
                line: 0,
              });
            }
          });
          c.progress?.(`${k}-best parses`, Math.min(test.length, b + BATCH), test.length);
        }
        return out;
      };
      const producer: NbestProducer = {
        async nbest(test: PipelineSentence[], k: number, c: StepContext): Promise<NbestSentence[]> {
          return (await lists(test, k, [mode], c))[mode];
        },
      };
      if (options.pool !== undefined && options.pool > 0) {
        producer.nbestVariants = async (test, k, c) => {
          if (poolSize(k) <= k) return { main: await producer.nbest(test, k, c), variants: {} };
          const all = await lists(test, k, KBEST_TAG_MODES, c);
          return { main: all[mode], variants: all };
        };
      }
      return producer;
    },
  };
}
