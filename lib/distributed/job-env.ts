/**
 * What a job body gets and returns, and the kinds of job. Apart from the registry (jobs.ts),
 * which imports every body, so that the bodies need not import it back.
 */
import type { OptionFields, OptionValues } from '../options/field.js';
import type { StepContext } from '../pipeline/components.js';
import type { ArtifactStore } from './store.js';

/** Every kind of job a worker runs; jobs.ts has a payload schema and a body for each. */
export type JobKind =
  | 'pipeline.reranker'
  | 'pipeline.candidates'
  | 'collect'
  | 'shard'
  | 'nbest-shard'
  | 'kernel-strip'
  | 'empty'
  | 'train.crf-gradient'
  | 'train.perceptron-epoch'
  | 'train.reranker-epoch'
  | 'train.parser-gradient';

/** A command as a shard job runs it: its options and its run, as on the command line (lib/commands/). */
export interface ShardCommand {
  options: OptionFields;
  run(
    values: OptionValues<OptionFields>,
    context: { positionals: string[]; given: ReadonlySet<string> },
  ): Promise<number | void>;
}

/**
 * The commands shard jobs run (`shard`: parse, tag; `nbest-shard`: rerank). The runtime imports
 * no command: the worker's caller (the `worker` command) hands them over.
 */
export type ShardCommands = Record<'parse' | 'tag' | 'rerank', () => Promise<ShardCommand>>;

/** What a job body gets from the worker that runs it. */
export interface JobEnv {
  store: ArtifactStore;
  /** Threads for native work (0 = all cores). */
  threads: number;
  signal?: AbortSignal;
  log: (line: string) => void;
  progress?: StepContext['progress'];
  commands: ShardCommands;
}

/** What a job returns (stored by BullMQ as the job's return value). */
export interface JobOutcome {
  step?: string;
  /** True when the step's outputs were already in the store. */
  cached?: boolean;
  files?: Record<string, string>;
}
