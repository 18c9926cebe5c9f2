/** The chart parser (lib/parser) as the pipeline's base model for task 'parse'. */
import { stepRun } from '../../training/step-run.js';
import { ChartParserModel } from '../../parser/chart-parser.js';
import { parseTree } from '../../trees/bracket-parser.js';
import type { BaseModel, PipelineSentence, StepContext } from '../components.js';
import type { KbestParser } from '../../parser/nbest-lists.js';
import type { EnsembleMember, ParserBaseConfig } from '../config.js';
import { CLUSTER_CLASSES } from '../../options/clusters.js';
import { clustersFromText, clusterWork, describeClusters } from '../../tagger/word-clusters.js';
import type { WordClusters } from '../../parser/clusters.js';
import { trainTreeModel } from '../../rerank/tree-model.js';
import { trainHeadModel } from '../../rerank/head-model.js';

export function chartParserBase(options: ParserBaseConfig): BaseModel {
  const name = options.crf ? 'CRF-CFG chart parser' : 'PCFG chart parser';
  return {
    name,
    async train(sentences: PipelineSentence[], ctx: StepContext, dev?: PipelineSentence[]) {
      const treesOf = (set: PipelineSentence[]) => set.map((s) => parseTree(s.gold as string, s.id));
      const trees = treesOf(sentences);
      // The CRF's pass is chosen on dev, as `train-parser --dev` does; the PCFG has no passes.
      const devTrees = options.crf && options.devPass && dev !== undefined && dev.length > 0 ? treesOf(dev) : undefined;
      const clusters =
        options.clusterText === undefined
          ? undefined
          : await clustersOf(sentences, options.clusterText, options.clusterClasses ?? CLUSTER_CLASSES, ctx);
      // The PCFGs mixed into a parser's MBR decoding reach the lists only through the first
      // parser's own MBR tree: with an ensemble (whose mean leaves them out) or without MBR
      // trees no parser trains them.
      const mbr = options.crf && options.mbr;
      const pcfgWeight = mbr && (options.ensemble ?? []).length === 0 ? options.pcfgWeight : 0;
      const trainOne = (member: EnsembleMember, label: string): Promise<ChartParserModel> =>
        ChartParserModel.train(
          trees,
          {
            markov: member.markov,
            ...(member.parent !== undefined ? { parent: member.parent } : {}),
            crf: options.crf,
            rareThreshold: options.rareThreshold,
            ...(clusters !== undefined ? { clusters } : {}),
            threads: ctx.threads,
            // The CRF's own options; its passes resume in a retried job (the PCFG is counted in one pass).
            ...(options.crf
              ? {
                  epochs: options.epochs,
                  margin: options.margin,
                  tagSets: options.tagSets,
                  seed: member.seed ?? ctx.seed,
                  pcfgWeight,
                  // The lists carry the head model's verdict as features; the parser needs none.
                  headModel: false,
                  ...(options.latentModel === true ? { keepPcfgs: true } : {}),
                  ...(devTrees ? { dev: devTrees } : {}),
                  ...ctx.checkpoints?.(label),
                }
              : {}),
          },
          stepRun(ctx, label),
        );
      const model = await trainOne({ markov: options.markov }, `train ${name}`);
      const members: ChartParserModel[] = [];
      for (const [i, member] of (options.ensemble ?? []).entries())
        members.push(await trainOne({ ...member, markov: member.markov ?? options.markov }, `train ${name} ${i + 2}`));
      // An ensemble's MBR tree is parsed by the first model with the others' posteriors.
      const mbrParser: KbestParser | undefined =
        mbr && members.length > 0
          ? { parseNbest: (sentences, k, o) => model.parseNbest(sentences, k, { ...o, ensemble: members }) }
          : undefined;
      const treeModel = options.treeModel === true ? trainTreeModel(trees) : undefined;
      const headModel = options.headModel === true ? trainHeadModel(trees) : undefined;
      return model.nbestProducer({
        kbest: options.kbest,
        pool: options.pool,
        mbr,
        posteriors: options.posteriors,
        mbrParser,
        ...(options.union === true ? { members } : {}),
        ...(treeModel !== undefined ? { treeModel } : {}),
        ...(headModel !== undefined ? { headModel } : {}),
        ...(options.latentModel === true ? { latentModel: true } : {}),
      });
    },
  };
}

/**
 * The word clusters of `sentences` (a fold's training set) and the text file, as
 * `train-parser --cluster-text` computes them: each fold clusters its own training words, so
 * its held-out sentences are as new to them as the test set is.
 */
async function clustersOf(
  sentences: PipelineSentence[],
  textFile: string,
  classes: number,
  ctx: StepContext,
): Promise<WordClusters> {
  const label = 'word clusters';
  const clusters = await clustersFromText(
    sentences.map((s) => s.tokens),
    textFile,
    {
      classes,
      lowercase: true,
      signal: ctx.signal,
      onProgress: (p) => {
        const { done, total } = clusterWork(p);
        ctx.progress?.(label, done, total, `exchange pass ${p.pass}/${p.passes}`);
      },
    },
  );
  ctx.log?.(`${label}: ${describeClusters(clusters)}`);
  return clusters;
}
