/**
 * The pipeline's distributable steps. Candidate steps: each jackknife fold (a base model trained on the other
 * k-1 folds, n-best lists for the held-out fold) and dev-test (a base model trained on all of
 * train, n-best lists for dev and test). `produceCandidates` is the one body of these steps:
 * the local pipeline calls it inside its step cache, a distributed worker calls it for a
 * queued job (lib/distributed/jobs.ts), so both write the same files. Reranker steps
 * (`produceRerankerResult`): one reranker trained on the jackknifed lists and tuned on dev.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeNbest, type NbestSentence } from '../io/nbest.js';
import type { BaseModel, Curve, NbestProducer, PipelineSentence, Reranker, StepContext } from './components.js';
import type { PipelineConfig, RerankerConfig } from './config.js';
import { foldRange, type DataSets } from './data.js';
import { encodeTreeCounts, rescoreSet, type ScoredSet } from './evaluate.js';
import type { StepResult } from './step-cache.js';
import type { MemberScores } from './reranker-mix.js';

/** One candidate step: its cache name and key options, and which fold it holds out (null: dev-test). */
export interface CandidateStep {
  name: string;
  /** The options hashed into the step's cache key. */
  options: object;
  fold: number | null;
}

/** Runs candidate steps and returns their cache folders, in the order given. */
export interface CandidateExecutor {
  run(
    steps: CandidateStep[],
    inputs: string[],
    local: (step: CandidateStep) => Promise<StepResult>,
  ): Promise<StepResult[]>;
  /**
   * Optional: runs the reranker steps elsewhere, all at once, and puts their outputs into the
   * step cache, so the pipeline's own loop finds them cached. A step it cannot run is left to
   * that loop.
   */
  prefetchRerankers?(steps: RerankerStep[]): Promise<void>;
}

/** The default: every step in this process, one after the other. */
export const inProcess: CandidateExecutor = {
  async run(steps, _inputs, local) {
    const out: StepResult[] = [];
    for (const step of steps) out.push(await local(step));
    return out;
  },
};

/** The candidate steps of a config, folds first, in the order the pipeline reads them. */
export function candidateSteps(config: PipelineConfig, baseKey: object): CandidateStep[] {
  const steps: CandidateStep[] = [];
  for (let f = 0; f < config.folds; f++) {
    steps.push({
      name: `train-fold${f + 1}of${config.folds}`,
      options: { ...baseKey, folds: config.folds, fold: f },
      fold: f,
    });
  }
  steps.push({ name: 'dev-test', options: baseKey, fold: null });
  return steps;
}

/** The files a candidate step writes. */
export function candidateFiles(fold: number | null, task: 'parse' | 'tag'): string[] {
  if (fold === null) return ['dev.jsonl', 'test.jsonl', 'time.json'];
  return task === 'parse' ? ['nbest.jsonl', TREE_COUNTS_FILE, 'time.json'] : ['nbest.jsonl', 'time.json'];
}

/** A parse fold's candidate counts (evaluate.ts, encodeTreeCounts): scored where the fold ran. */
export const TREE_COUNTS_FILE = 'nbest.counts.json';

function withGold(nbest: NbestSentence[], sentences: PipelineSentence[]): NbestSentence[] {
  return nbest.map((s, i) => ({ ...s, id: sentences[i].id, tokens: sentences[i].tokens, gold: sentences[i].gold }));
}

/** The body of a candidate step: trains the base model and writes the n-best files into `dir`. */
export async function produceCandidates(
  step: CandidateStep,
  config: Pick<PipelineConfig, 'folds' | 'nbest'>,
  data: DataSets,
  base: BaseModel,
  dir: string,
  ctx: StepContext,
): Promise<void> {
  const t0 = process.hrtime.bigint();
  const log = ctx.log ?? (() => {});
  if (step.fold !== null) {
    const [lo, hi] = foldRange(data.train.length, config.folds, step.fold);
    const rest = [...data.train.slice(0, lo), ...data.train.slice(hi)];
    const heldOut = data.train.slice(lo, hi);
    log(`${step.name}: training ${base.name} on ${rest.length} sentences, ${config.nbest}-best on ${heldOut.length}`);
    const model = await base.train(rest, ctx, data.dev);
    log(`${step.name}: trained in ${secondsSince(t0)} s; writing the n-best lists`);
    const lists = await writeLists(model, heldOut, join(dir, 'nbest'), config.nbest, ctx);
    // Scoring the jackknifed lists is the coordinator's largest serial part: done here, per fold.
    const counts = encodeTreeCounts(lists);
    if (counts !== undefined) writeFileSync(join(dir, TREE_COUNTS_FILE), counts);
  } else {
    log(
      `${step.name}: training ${base.name} on all ${data.train.length} sentences, ${config.nbest}-best on dev and test`,
    );
    const model = await base.train(data.train, ctx, data.dev);
    log(`${step.name}: trained in ${secondsSince(t0)} s; writing the n-best lists`);
    await writeLists(model, data.dev, join(dir, 'dev'), config.nbest, ctx);
    await writeLists(model, data.test, join(dir, 'test'), config.nbest, ctx);
  }
  writeFileSync(join(dir, 'time.json'), JSON.stringify({ seconds: Number(process.hrtime.bigint() - t0) / 1e9 }));
}

function secondsSince(t0: bigint): string {
  return (Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2);
}

/** Writes `<stem>.jsonl` and, for a model that gives variants of its lists, `<stem>.<name>.jsonl` each. */
async function writeLists(
  model: NbestProducer,
  sentences: PipelineSentence[],
  stem: string,
  k: number,
  ctx: StepContext,
): Promise<NbestSentence[]> {
  if (!model.nbestVariants) {
    const lists = withGold(await model.nbest(sentences, k, ctx), sentences);
    await writeNbest(`${stem}.jsonl`, lists);
    return lists;
  }
  const { main, variants } = await model.nbestVariants(sentences, k, ctx);
  const lists = withGold(main, sentences);
  await writeNbest(`${stem}.jsonl`, lists);
  for (const [name, list] of Object.entries(variants))
    await writeNbest(`${stem}.${name}.jsonl`, withGold(list, sentences));
  return lists;
}

/** One reranker step: its cache name, the options hashed into its key, and its input files. */
export interface RerankerStep {
  name: string;
  options: object;
  config: RerankerConfig & { name: string };
  /** The fold n-best files in order, then dev and test. */
  inputs: string[];
}

/** What a reranker step writes to result.json. */
export interface RerankerResult {
  selected: Record<string, number | string>;
  curves?: Curve[];
  axis?: string;
  dev: number[];
  test: number[];
  /** Every candidate's score, where the reranker gives them (the mix, reranker-mix.ts). */
  scores?: MemberScores;
  seconds: number;
}

/** The body of a reranker step: train, choose on dev and test, write result.json into `dir`. */
export async function produceRerankerResult(
  step: RerankerStep,
  reranker: Reranker,
  scored: { train: ScoredSet; dev: ScoredSet; test: ScoredSet },
  dir: string,
  ctx: StepContext,
): Promise<void> {
  const t0 = process.hrtime.bigint();
  // The reranker trains and selects on its own Score kind; F1 is counted the same for all.
  const kind = step.config.score ?? 'errors';
  const sets = {
    train: rescoreSet(scored.train, kind),
    dev: rescoreSet(scored.dev, kind),
    test: rescoreSet(scored.test, kind),
  };
  ctx.log?.(
    `${step.name}: training ${step.config.name} on ${sets.train.sentences.length} jackknifed n-best lists, tuning on ${sets.dev.sentences.length} dev lists`,
  );
  const model = await reranker.train(sets.train, sets.dev, ctx);
  const devChoice = await model.choose(sets.dev, ctx);
  const testChoice = await model.choose(sets.test, ctx);
  const scores = model.score && { dev: await model.score(sets.dev, ctx), test: await model.score(sets.test, ctx) };
  const out: RerankerResult = {
    selected: model.selected,
    curves: model.curves,
    axis: model.curveAxis,
    dev: devChoice,
    test: testChoice,
    scores,
    seconds: Number(process.hrtime.bigint() - t0) / 1e9,
  };
  writeFileSync(join(dir, 'result.json'), JSON.stringify(out));
}
