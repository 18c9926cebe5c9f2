/**
 * The sharded L-BFGS coordinator, one for every model trained by summed shard gradients (the
 * CRF tagger, gradient.ts; the CRF parser, parser-gradient.ts). At every point L-BFGS asks
 * about, each shard's loss and gradient are computed at the same weights (queue jobs, or one
 * after another in this process); the model's `ShardObjective` adds its prior to the shards'
 * terms in the order its native objective sums them, and the coordinator takes the step with
 * the native optimizer's arithmetic (gradient-lbfgs.ts). The model thus equals local
 * training's up to the order in which per-sentence gradients are summed.
 */
import { InternalError } from '../errors.js';
import { AsyncLbfgs, type LbfgsSettings } from './gradient-lbfgs.js';
import { decodeState, encodeState, type StateParts } from './state-bytes.js';

/** One shard's loss and gradient at given weights. */
export interface CrfShardResult {
  loss: number;
  gradient: Float64Array;
}

/** Computes every shard's loss and gradient at given weights; results in shard order. */
export interface GradientExecutor {
  readonly shards: number;
  crfGradients(weights: Float64Array): Promise<CrfShardResult[]>;
  /** Bytes of weights and results moved between coordinator and workers so far. */
  readonly bytesMoved: number;
  close(): Promise<void>;
}

/** Per-evaluation figures of a distributed run, for logs and bench/distributed.ts. */
export interface GradientStats {
  evaluations: number;
  /** Wall time of the evaluations (shards' work, queue round trips, transfers, summing). */
  seconds: number;
  bytesMoved: number;
}

/** What one model adds to the shards' terms: its prior, summed as its native objective sums. */
export interface ShardObjective {
  /** The state's kind in a checkpoint (state-bytes.ts). */
  readonly stateKind: string;
  /** The native trainer's L-BFGS settings (default: LBFGS_DEFAULTS). */
  readonly lbfgs?: Partial<LbfgsSettings>;
  /** Sees the starting weights before the first evaluation. */
  start?(x0: Float64Array): void;
  /** The objective at x from the shards' terms (shard order): writes `gradient`, returns the value. */
  sum(x: Float64Array, parts: readonly CrfShardResult[], gradient: Float64Array): number;
  /** The loss a step reports (default: the objective's value). */
  loss?(value: number): number;
  /** State kept beside the L-BFGS state in a checkpoint: header fields and vectors after L-BFGS's. */
  saveExtra?(): StateParts;
  /** Takes back what `saveExtra` stored: removes its vectors from the end of `parts`. */
  loadExtra?(parts: StateParts): void;
}

/** The coordinator as a trainer's `external` steps (Tagger.train, ChartParserModel.train). */
export interface ShardedTrainer {
  /** One L-BFGS iteration; `initial` gives the weights to start from (asked for on the first step only). */
  step(initial: () => Float64Array): Promise<{ loss: number; converged: boolean; weights: Float64Array }>;
  /** The L-BFGS state (and the objective's extra state) after the last step, for a checkpoint. */
  saveState(): Uint8Array;
  /** Continues from `saveState`'s bytes; returns the weights reached. */
  loadState(bytes: Uint8Array): Float64Array;
  close(): Promise<void>;
}

/** L-BFGS iterations over `objective` summed over `executor`'s shards. */
export function shardedLbfgs(
  objective: ShardObjective,
  executor: GradientExecutor,
  stats?: GradientStats,
): ShardedTrainer {
  let lbfgs: AsyncLbfgs | undefined;
  let gradient = new Float64Array(0); // reused: the optimizer copies it (AsyncObjective)
  const evaluate = async (x: Float64Array): Promise<{ value: number; gradient: Float64Array }> => {
    const t0 = Date.now();
    const parts = await executor.crfGradients(x);
    if (gradient.length !== x.length) gradient = new Float64Array(x.length);
    const value = objective.sum(x, parts, gradient);
    if (stats) {
      stats.evaluations++;
      stats.seconds += (Date.now() - t0) / 1000;
      stats.bytesMoved = executor.bytesMoved;
    }
    return { value, gradient };
  };
  return {
    async step(initial) {
      if (!lbfgs) {
        const x0 = initial();
        objective.start?.(x0);
        lbfgs = await AsyncLbfgs.start(evaluate, x0, objective.lbfgs);
      }
      const more = await lbfgs.iterate();
      return {
        loss: objective.loss ? objective.loss(lbfgs.value) : lbfgs.value,
        converged: !more,
        weights: lbfgs.weights,
      };
    },
    saveState() {
      if (!lbfgs) throw new InternalError('no L-BFGS state before the first distributed step');
      const p = lbfgs.saveParts();
      const extra = objective.saveExtra?.() ?? { header: {}, vectors: [] };
      return encodeState(objective.stateKind, {
        header: { ...p.header, ...extra.header },
        vectors: [...p.vectors, ...extra.vectors],
      });
    },
    loadState(bytes) {
      const p = decodeState(objective.stateKind, bytes);
      objective.loadExtra?.(p);
      lbfgs = AsyncLbfgs.fromParts(evaluate, p, objective.lbfgs);
      return lbfgs.weights;
    },
    close: () => executor.close(),
  };
}
