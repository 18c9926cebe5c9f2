/**
 * The reranking pipeline (Collins & Duffy 2002a; Collins & Koo 2005): jackknifed candidates for train (k folds, each
 * produced by a base model trained on the other folds), dev and test candidates from a base
 * model trained on all of train, the selected rerankers trained on the jackknifed candidates
 * with their hyper-parameters chosen on dev, and the test evaluation: base F1, the parser's
 * own 1-best where the lists mark it (a CRF's MBR tree), oracle F1,
 * each reranker's F1 and relative error reduction, times. Every step runs through a
 * StepCache keyed by its options and the content of its inputs, so a rerun skips finished
 * steps and a killed run resumes at the step it was in.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, throwIfAborted } from '../errors.js';
import { readNbest, type NbestSentence } from '../io/nbest.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { lockFolder } from '../io/folder-lock.js';
import { resolveThreads } from '../native.js';
import { formatSeconds } from '../progress.js';
import { StepCache } from './step-cache.js';
import {
  candidateSteps,
  inProcess,
  produceCandidates,
  produceRerankerResult,
  TREE_COUNTS_FILE,
  type CandidateExecutor,
  type RerankerResult,
} from './candidates.js';
import { mixChoice, type MemberScores } from './reranker-mix.js';
import type { ComponentFactory, Curve, Reranker, StepContext } from './components.js';
import { ComponentUnavailable } from './components.js';
import type { PipelineConfig, RerankerConfig } from './config.js';
import { readDataSets, stepDataOptions, type DataSets } from './data.js';
import {
  baseChoice,
  bucketLabel,
  corpusF1,
  decodeTreeCounts,
  f1ByLength,
  LENGTH_BUCKETS,
  mbrChoice,
  oracleChoice,
  relativeErrorReduction,
  scoreSet,
  type ScoredSet,
} from './evaluate.js';

/** The results row of the parser's own 1-best (SystemResult kind 'mbr'). */
export const MBR_SYSTEM_NAME = "base's 1-best (MBR tree)";

export interface SystemResult {
  name: string;
  /**
   * 'mbr': the parser's own 1-best (its MBR tree), where the lists mark it; 'mix': the
   * rerankers' scores summed (reranker-mix.ts).
   */
  kind: 'base' | 'mbr' | 'oracle' | 'reranker' | 'mix';
  testF1: number;
  devF1: number;
  /** Relative test F1-error reduction over the base model, percent (rerankers and oracle). */
  errorReduction?: number;
  /** Hyper-parameters chosen on dev. */
  selected?: Record<string, number | string>;
  /** Wall-clock seconds of the system's steps (base: all candidate generation). */
  seconds?: number;
  /** Test F1 per length bucket (NaN: empty bucket). */
  byLength: number[];
}

export interface CurveResult {
  reranker: string;
  axis: string;
  series: Curve[];
  /** The chosen x (e.g. N rounds) and series label. */
  chosen?: { x: number; label?: string };
}

export interface StepRecord {
  name: string;
  seconds: number;
  cached: boolean;
}

export interface PipelineResults {
  task: 'parse' | 'tag';
  /** 'F1' (brackets or chunks) or 'accuracy' (plain tags). */
  measure: string;
  sizes: { train: number; dev: number; test: number; folds: number; nbest: number; averageCandidates: number };
  systems: SystemResult[];
  curves: CurveResult[];
  lengthBuckets: string[];
  bucketSentences: number[];
  steps: StepRecord[];
  /** Rerankers the config asked for that are not part of this build. */
  unavailable: { name: string; why: string }[];
  totalSeconds: number;
}

export interface RunPipelineOptions {
  signal?: AbortSignal;
  /** Component factory (default: the real parser, tagger and rerankers). */
  components?: ComponentFactory;
  log?: (line: string) => void;
  progress?: StepContext['progress'];
  /** Runs the candidate steps (default: in this process; lib/distributed: as queued jobs). */
  executor?: CandidateExecutor;
}

interface StepTiming {
  seconds: number;
}

const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

function readTiming(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, 'time.json'), 'utf8')) as StepTiming).seconds;
  } catch {
    return 0;
  }
}

/** Creates a folder (and its parents); a path that is a file or unwritable is an input error. */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InputError(dir, undefined, `cannot create the folder: ${(err as Error).message}`);
  }
}

/** Options that decide the data a step sees (so cached outputs are reused only for the same data). */
function dataKey(config: PipelineConfig): object {
  return { task: config.task, ...stepDataOptions(config) };
}

/**
 * Runs the reranking experiment a config describes into config.output: jackknifed n-best lists,
 * rerankers tuned on dev, test evaluation; steps are cached, so a rerun resumes. One run per
 * output folder: a second run on the same folder is refused (naming the first) while the first
 * runs; the lock of a dead run is taken over.
 *
 * @example
 * ```ts
 * const results = await runPipeline(readPipelineConfig('pipeline.json'), { log: console.error });
 * console.log(formatResultsTable(results));
 * ```
 */
export async function runPipeline(config: PipelineConfig, options: RunPipelineOptions = {}): Promise<PipelineResults> {
  makeFolder(config.output);
  const lock = lockFolder(config.output);
  try {
    return await runSteps(config, options);
  } finally {
    lock.release();
  }
}

async function runSteps(config: PipelineConfig, options: RunPipelineOptions): Promise<PipelineResults> {
  const start = process.hrtime.bigint();
  const log = options.log ?? (() => {});
  const factory = options.components ?? (await import('./adapters/index.js')).realComponents;
  const threads = resolveThreads(config.threads, log);
  const ctx: StepContext = { signal: options.signal, threads, seed: config.seed, progress: options.progress, log };
  const done = (name: string, t0: bigint): void => log(`${name}: done in ${formatSeconds(seconds(t0))}`);
  const base = factory.base(config);
  const rerankers: { config: RerankerConfig & { name: string }; reranker: Reranker }[] = [];
  const unavailable: { name: string; why: string }[] = [];
  for (const rc of config.rerankers as (RerankerConfig & { name: string })[]) {
    try {
      rerankers.push({ config: rc, reranker: factory.reranker(rc, config) });
    } catch (err) {
      if (!(err instanceof ComponentUnavailable)) throw err;
      unavailable.push({ name: rc.name, why: err.message });
      log(`note: ${err.message}`);
    }
  }

  const data: DataSets = readDataSets(config);
  log(
    `data: ${data.train.length} train, ${data.dev.length} dev, ${data.test.length} test sentences; ${config.folds} folds; ${config.nbest}-best ${base.name} candidates`,
  );
  // A cluster text is read by every candidate step: its content is part of their keys.
  const clusterText = 'clusterText' in config.base ? config.base.clusterText : undefined;
  const inputs = [config.data.train, config.data.dev, config.data.test];
  if (clusterText !== undefined && clusterText !== 'train') {
    if (!existsSync(clusterText)) throw new InputError(clusterText, undefined, 'no such file (base.clusterText)');
    inputs.push(clusterText);
  }
  makeFolder(config.output);
  makeFolder(config.cache);
  const cache = new StepCache(config.cache);
  const steps: StepRecord[] = [];
  const baseKey = {
    data: dataKey(config),
    base: base.name,
    baseOptions: config.base,
    nbest: config.nbest,
    seed: config.seed,
  };

  // 1-2. Jackknifed training candidates; dev and test candidates from a base model trained
  // on all of train. An executor (lib/distributed) may run these steps as queued jobs.
  const candidates = candidateSteps(config, baseKey);
  const executor = options.executor ?? inProcess;
  const candidateDirs = await executor.run(candidates, inputs, (step) => {
    throwIfAborted(options.signal);
    return cache.run(step.name, step.options, inputs, async (dir) => {
      const t0 = process.hrtime.bigint();
      await produceCandidates(step, config, data, base, dir, ctx);
      done(step.name, t0);
    });
  });
  candidates.forEach((step, i) => {
    steps.push({ name: step.name, seconds: readTiming(candidateDirs[i].dir), cached: candidateDirs[i].cached });
    if (candidateDirs[i].cached) log(`${step.name}: cached (${candidateDirs[i].dir})`);
  });
  const foldFiles = candidateDirs.slice(0, config.folds).map((r) => join(r.dir, 'nbest.jsonl'));
  const devFile = join(candidateDirs[config.folds].dir, 'dev.jsonl');
  const testFile = join(candidateDirs[config.folds].dir, 'test.jsonl');

  // The folds' counts, when every fold step stored them (parse lists; older caches lack them).
  const countFiles = candidateDirs.slice(0, config.folds).map((r) => join(r.dir, TREE_COUNTS_FILE));
  const foldCounts = countFiles.every((f) => existsSync(f))
    ? countFiles.map((f) => decodeTreeCounts(readFileSync(f, 'utf8')))
    : [];
  // Read with the async reader: a treebank's lists take seconds to read, and Ctrl-C must stop them.
  const readLists = async (files: string[]): Promise<NbestSentence[]> => {
    const out: NbestSentence[] = [];
    for (const f of files)
      for await (const s of readNbest(f)) {
        throwIfAborted(options.signal);
        out.push(s);
      }
    return out;
  };
  const train = scoreSet(
    await readLists(foldFiles),
    foldCounts.length > 0 && foldCounts.every((c) => c !== undefined) ? foldCounts.flatMap((c) => c ?? []) : undefined,
  );
  const dev = scoreSet(await readLists([devFile]));
  const test = scoreSet(await readLists([testFile]));

  // 3. Rerankers: train, choose hyper-parameters on dev, choose test candidates. An executor
  // may run them elsewhere first; the loop then finds them in the step cache.
  const rerankInputs = [...foldFiles, devFile, testFile];
  const rerankName = (rc: RerankerConfig & { name: string }): string =>
    `rerank-${rc.name.replace(/[^A-Za-z0-9]+/g, '-')}`;
  await executor.prefetchRerankers?.(
    rerankers.map(({ config: rc }) => ({
      name: rerankName(rc),
      options: { reranker: rc, seed: config.seed },
      config: rc,
      inputs: rerankInputs,
    })),
  );
  const chosen: ({ config: RerankerConfig & { name: string } } & RerankerResult)[] = [];
  for (const { config: rc, reranker } of rerankers) {
    throwIfAborted(options.signal);
    const name = rerankName(rc);
    const step = { name, options: { reranker: rc, seed: config.seed }, config: rc, inputs: rerankInputs };
    let r: Awaited<ReturnType<StepCache['run']>>;
    try {
      r = await cache.run(name, step.options, rerankInputs, async (dir) => {
        const t0 = process.hrtime.bigint();
        await produceRerankerResult(step, reranker, { train, dev, test }, dir, ctx);
        done(name, t0);
      });
    } catch (err) {
      // A component that turns out to be missing only when it runs (e.g. a kernel the native
      // side does not support yet) is reported, and the other rerankers still run.
      if (!(err instanceof ComponentUnavailable)) throw err;
      unavailable.push({ name: rc.name, why: err.message });
      log(`note: ${err.message}`);
      continue;
    }
    steps.push({
      name,
      seconds:
        readTiming(r.dir) ||
        (JSON.parse(readFileSync(join(r.dir, 'result.json'), 'utf8')) as { seconds: number }).seconds,
      cached: r.cached,
    });
    if (r.cached) log(`${name}: cached (${r.dir})`);
    const saved = JSON.parse(readFileSync(join(r.dir, 'result.json'), 'utf8')) as RerankerResult;
    chosen.push({ config: rc, ...saved });
  }

  // 4. Evaluation.
  const baseDev = corpusF1(dev, baseChoice(dev));
  const baseTest = corpusF1(test, baseChoice(test));
  const system = (
    name: string,
    kind: SystemResult['kind'],
    devChoice: number[],
    testChoice: number[],
    extra: Partial<SystemResult> = {},
  ): SystemResult => {
    const testF1 = corpusF1(test, testChoice);
    return {
      name,
      kind,
      testF1,
      devF1: corpusF1(dev, devChoice),
      errorReduction: kind === 'base' ? undefined : relativeErrorReduction(testF1, baseTest),
      byLength: f1ByLength(test, testChoice).f1,
      ...extra,
    };
  };
  const baseSeconds = steps
    .filter((s) => s.name.startsWith('train-fold') || s.name === 'dev-test')
    .reduce((a, s) => a + s.seconds, 0);
  const devMbr = mbrChoice(dev);
  const testMbr = mbrChoice(test);
  const systems: SystemResult[] = [
    {
      ...system(`base (${base.name})`, 'base', baseChoice(dev), baseChoice(test)),
      devF1: baseDev,
      seconds: baseSeconds,
    },
    ...(devMbr && testMbr ? [system(MBR_SYSTEM_NAME, 'mbr', devMbr, testMbr)] : []),
    system('oracle', 'oracle', oracleChoice(dev), oracleChoice(test)),
    ...chosen.map((c) =>
      system(c.config.name, 'reranker', c.dev, c.test, { selected: c.selected, seconds: c.seconds }),
    ),
  ];
  const members = chosen.filter((c) => c.scores !== undefined);
  if (config.mix && members.length >= 2) {
    const scores = members.map((c) => c.scores as MemberScores);
    systems.push(
      system(
        `mix (${members.map((c) => c.config.name).join(' + ')})`,
        'mix',
        mixChoice(scores, 'dev'),
        mixChoice(scores, 'test'),
      ),
    );
  } else if (config.mix && chosen.filter((c) => c.config.type !== 'perceptron').length >= 2) {
    log('note: no mix of the rerankers: their cached steps predate candidate scores (delete rerank-* in the cache)');
  }
  const curves: CurveResult[] = chosen
    .filter((c) => c.curves && c.curves.length > 0)
    .map((c) => ({
      reranker: c.config.name,
      axis: c.axis ?? 'rounds',
      series: c.curves as Curve[],
      chosen:
        typeof c.selected.rounds === 'number'
          ? { x: c.selected.rounds, label: c.selected.eps !== undefined ? `eps=${c.selected.eps}` : undefined }
          : undefined,
    }));
  const plain =
    test.sentences.length > 0 &&
    Array.isArray(test.sentences[0].gold) &&
    test.counts.every((row) => row.every((c) => c.gold === c.test));
  const results: PipelineResults = {
    task: config.task,
    measure: config.task === 'parse' ? 'labeled bracket F1' : plain ? 'tag accuracy' : 'chunk F1',
    sizes: {
      train: train.sentences.length,
      dev: dev.sentences.length,
      test: test.sentences.length,
      folds: config.folds,
      nbest: config.nbest,
      averageCandidates:
        test.sentences.reduce((a, s) => a + s.candidates.length, 0) / Math.max(1, test.sentences.length),
    },
    systems,
    curves,
    lengthBuckets: LENGTH_BUCKETS.map(bucketLabel),
    bucketSentences: f1ByLength(test, baseChoice(test)).sentences,
    steps,
    unavailable,
    totalSeconds: seconds(start),
  };
  await writeTextAtomic(join(config.output, 'results.json'), [
    JSON.stringify(results, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n',
  ]);
  return results;
}

export type { ScoredSet };
