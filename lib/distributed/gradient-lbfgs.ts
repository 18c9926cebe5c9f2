/**
 * L-BFGS with an asynchronous objective, for training whose gradient is summed over queue
 * jobs (gradient.ts). The optimizer is the native one every local trainer uses
 * (native/optim/lbfgs.cc), driven one trial point at a time: given the same objective values
 * and gradients it takes the same steps, so a distributed run differs from a local one only
 * by the summation order of the gradient.
 */

import { ModelFileError } from '../errors.js';
import { native } from '../native.js';
import { LBFGS_DEFAULTS, type LbfgsSettings } from '../options/lbfgs.js';
import { decodeState, encodeState, type StateParts } from './state-bytes.js';

/**
 * f(x) and its gradient. x is the optimizer's buffer, rewritten for the next trial, and the
 * gradient is copied once the promise resolves: neither may be kept past that.
 */
export type AsyncObjective = (x: Float64Array) => Promise<{ value: number; gradient: Float64Array }>;

export { LBFGS_DEFAULTS, type LbfgsSettings };

/** native/optim/lbfgs.h's LbfgsState, as the binding gives it. */
interface NativeLbfgsState {
  x: Float64Array;
  g: Float64Array;
  f: number;
  s: Float64Array[];
  y: Float64Array[];
  rho: Float64Array;
  stored: number;
  next: number;
  iterations: number;
  evaluations: number;
  converged: boolean;
  history: Float64Array;
}

interface NativeLbfgsHandle {
  beginIteration(): boolean;
  /** The point to evaluate, copied into `into` when it has the right size. */
  trialPoint(into?: Float64Array): Float64Array;
  /** 0: retry at the moved trial point; 1: accepted; 2: no decrease found (converged). */
  endTrial(value: number, gradient: Float64Array): 0 | 1 | 2;
  point(): Float64Array;
  value(): number;
  converged(): boolean;
  state(): NativeLbfgsState;
}

interface LbfgsAddon {
  NativeLbfgs: new (
    start: { x: Float64Array; f: number; g: Float64Array } | { state: NativeLbfgsState },
    settings: LbfgsSettings,
  ) => NativeLbfgsHandle;
}

export class AsyncLbfgs {
  /** Every trial point is copied into this one buffer: the objective must not keep it. */
  private trial: Float64Array | undefined;

  private constructor(
    private readonly objective: AsyncObjective,
    private readonly handle: NativeLbfgsHandle,
    private readonly settings: LbfgsSettings,
  ) {}

  /** Evaluates the objective at x0 (as the native constructor does). */
  static async start(
    objective: AsyncObjective,
    x0: Float64Array,
    settings: Partial<LbfgsSettings> = {},
  ): Promise<AsyncLbfgs> {
    const o = { ...LBFGS_DEFAULTS, ...settings };
    const x = Float64Array.from(x0);
    const r = await objective(x);
    const { NativeLbfgs } = native<LbfgsAddon>();
    return new AsyncLbfgs(objective, new NativeLbfgs({ x, f: r.value, g: r.gradient }, o), o);
  }

  /** Everything `iterate` depends on, for a training checkpoint (the objective is not evaluated again on restore). */
  saveState(): Uint8Array {
    return encodeState('lbfgs', this.saveParts());
  }

  /** The state as a header and vectors, for a trainer that stores more beside it. */
  saveParts(): StateParts {
    const { f, stored, next, history, converged, iterations, evaluations, x, g, rho, s, y } = this.handle.state();
    // Pair slots not yet written come back empty; the checkpoint keeps them as zeros.
    const full = (v: Float64Array): Float64Array => (v.length === x.length ? v : new Float64Array(x.length));
    return {
      header: {
        f,
        stored,
        next,
        history: Array.from(history),
        converged,
        iterations,
        evaluations,
        memory: this.settings.memory,
      },
      vectors: [x, g, rho, ...s.map(full), ...y.map(full)],
    };
  }

  /** Continues from `saveState`'s bytes: the next `iterate` does what it would have done. */
  static restore(objective: AsyncObjective, bytes: Uint8Array, settings: Partial<LbfgsSettings> = {}): AsyncLbfgs {
    return AsyncLbfgs.fromParts(objective, decodeState('lbfgs', bytes), settings);
  }

  static fromParts(
    objective: AsyncObjective,
    { header: h, vectors }: StateParts,
    settings: Partial<LbfgsSettings> = {},
  ): AsyncLbfgs {
    const o = { ...LBFGS_DEFAULTS, ...settings };
    const m = o.memory;
    const n = vectors[0]?.length ?? 0;
    if (h.memory !== m || vectors.length !== 3 + 2 * m || vectors.some((v, i) => v.length !== (i === 2 ? m : n))) {
      throw new ModelFileError('', 'checkpoint: the L-BFGS state does not fit these settings');
    }
    const state: NativeLbfgsState = {
      x: vectors[0],
      g: vectors[1],
      rho: vectors[2],
      s: vectors.slice(3, 3 + m),
      y: vectors.slice(3 + m),
      f: h.f as number,
      stored: h.stored as number,
      next: h.next as number,
      iterations: h.iterations as number,
      evaluations: h.evaluations as number,
      converged: h.converged as boolean,
      history: Float64Array.from(h.history as number[]),
    };
    const { NativeLbfgs } = native<LbfgsAddon>();
    return new AsyncLbfgs(objective, new NativeLbfgs({ state }, o), o);
  }

  get weights(): Float64Array {
    return this.handle.point();
  }

  get value(): number {
    return this.handle.value();
  }

  /** One iteration (direction + line search); false when converged or stuck. */
  async iterate(): Promise<boolean> {
    if (!this.handle.beginIteration()) return false;
    for (;;) {
      this.trial = this.handle.trialPoint(this.trial);
      const r = await this.objective(this.trial);
      const outcome = this.handle.endTrial(r.value, r.gradient);
      if (outcome === 1) return !this.handle.converged();
      if (outcome === 2) return false;
    }
  }
}
