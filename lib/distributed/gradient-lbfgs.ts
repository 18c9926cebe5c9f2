/**
 * L-BFGS with an asynchronous objective, for training whose gradient is summed over queue
 * jobs (gradient.ts). It performs the same arithmetic, in the same order, as the native
 * optimizer every local trainer uses (native/optim/lbfgs.cc: two-loop recursion, backtracking
 * line search on the Armijo condition, the same stopping tests), so given the same objective
 * values and gradients it takes the same steps: a distributed run differs from a local one
 * only by the summation order of the gradient.
 */

import { decodeState, encodeState, type StateParts } from './state-bytes.js';

/** f(x) and its gradient. */
export type AsyncObjective = (x: Float64Array) => Promise<{ value: number; gradient: Float64Array }>;

export interface LbfgsSettings {
  memory: number;
  gradientTolerance: number;
  delta: number;
  past: number;
  maxLinesearch: number;
  armijo: number;
}

/** native/optim/lbfgs.h's LbfgsOptions defaults (the trainers use them, memory 6). */
export const LBFGS_DEFAULTS: LbfgsSettings = { memory: 6, gradientTolerance: 1e-5, delta: 1e-6, past: 10, maxLinesearch: 40, armijo: 1e-4 };

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export class AsyncLbfgs {
  private x: Float64Array;
  private g: Float64Array;
  private f = 0;
  private readonly s: Float64Array[];
  private readonly y: Float64Array[];
  private readonly rho: number[];
  private stored = 0;
  private next = 0;
  private readonly history: number[] = [];
  converged = false;
  iterations = 0;
  /** Objective evaluations, line-search trials included. */
  evaluations = 0;

  private constructor(
    private readonly objective: AsyncObjective,
    x0: Float64Array,
    private readonly o: LbfgsSettings,
  ) {
    this.x = Float64Array.from(x0);
    this.g = new Float64Array(x0.length);
    this.s = Array.from({ length: o.memory }, () => new Float64Array(x0.length));
    this.y = Array.from({ length: o.memory }, () => new Float64Array(x0.length));
    this.rho = new Array<number>(o.memory).fill(0);
  }

  /** Evaluates the objective at x0 (as the native constructor does). */
  static async start(objective: AsyncObjective, x0: Float64Array, settings: Partial<LbfgsSettings> = {}): Promise<AsyncLbfgs> {
    const l = new AsyncLbfgs(objective, x0, { ...LBFGS_DEFAULTS, ...settings });
    const r = await objective(l.x);
    l.f = r.value;
    l.g = Float64Array.from(r.gradient);
    l.evaluations++;
    if (l.gradientNorm() <= l.o.gradientTolerance * Math.max(1, Math.sqrt(dot(l.x, l.x)))) l.converged = true;
    return l;
  }

  /** Everything `iterate` depends on, for a training checkpoint (the objective is not evaluated again on restore). */
  saveState(): Uint8Array {
    return encodeState('lbfgs', this.saveParts());
  }

  /** The state as a header and vectors, for a trainer that stores more beside it. */
  saveParts(): StateParts {
    const { f, stored, next, history, converged, iterations, evaluations } = this;
    return {
      header: { f, stored, next, history, converged, iterations, evaluations, memory: this.o.memory },
      vectors: [this.x, this.g, Float64Array.from(this.rho), ...this.s, ...this.y],
    };
  }

  /** Continues from `saveState`'s bytes: the next `iterate` does what it would have done. */
  static restore(objective: AsyncObjective, bytes: Uint8Array, settings: Partial<LbfgsSettings> = {}): AsyncLbfgs {
    return AsyncLbfgs.fromParts(objective, decodeState('lbfgs', bytes), settings);
  }

  static fromParts(objective: AsyncObjective, { header: h, vectors }: StateParts, settings: Partial<LbfgsSettings> = {}): AsyncLbfgs {
    const o = { ...LBFGS_DEFAULTS, ...settings };
    const m = o.memory;
    const n = vectors[0]?.length ?? 0;
    if (h.memory !== m || vectors.length !== 3 + 2 * m || vectors.some((v, i) => v.length !== (i === 2 ? m : n))) {
      throw new Error('checkpoint: the L-BFGS state does not fit these settings');
    }
    const l = new AsyncLbfgs(objective, vectors[0], o);
    l.g = vectors[1];
    l.rho.splice(0, m, ...vectors[2]);
    for (let k = 0; k < m; k++) {
      l.s[k] = vectors[3 + k];
      l.y[k] = vectors[3 + m + k];
    }
    l.f = h.f as number;
    l.stored = h.stored as number;
    l.next = h.next as number;
    l.history.push(...(h.history as number[]));
    l.converged = h.converged as boolean;
    l.iterations = h.iterations as number;
    l.evaluations = h.evaluations as number;
    return l;
  }

  get weights(): Float64Array {
    return this.x;
  }

  get value(): number {
    return this.f;
  }

  gradientNorm(): number {
    return Math.sqrt(dot(this.g, this.g));
  }

  /** One iteration (direction + line search); false when converged or stuck. */
  async iterate(): Promise<boolean> {
    if (this.converged) return false;
    const n = this.x.length;
    const m = this.o.memory;
    const d = Float64Array.from(this.g);
    const alpha = new Array<number>(m).fill(0);
    for (let k = 0; k < this.stored; k++) {
      const j = (this.next - 1 - k + m) % m;
      alpha[j] = this.rho[j] * dot(this.s[j], d);
      const yj = this.y[j];
      for (let i = 0; i < n; i++) d[i] -= alpha[j] * yj[i];
    }
    if (this.stored > 0) {
      const j = (this.next - 1 + m) % m;
      const gamma = dot(this.s[j], this.y[j]) / dot(this.y[j], this.y[j]);
      for (let i = 0; i < n; i++) d[i] *= gamma;
    }
    for (let k = this.stored - 1; k >= 0; k--) {
      const j = (this.next - 1 - k + m) % m;
      const beta = this.rho[j] * dot(this.y[j], d);
      const sj = this.s[j];
      for (let i = 0; i < n; i++) d[i] += sj[i] * (alpha[j] - beta);
    }
    for (let i = 0; i < n; i++) d[i] = -d[i];

    let slope = dot(this.g, d);
    if (slope >= 0) {
      for (let i = 0; i < n; i++) d[i] = -this.g[i];
      slope = -dot(this.g, this.g);
      this.stored = 0;
    }
    let step = this.stored === 0 ? 1 / Math.max(1, Math.sqrt(-slope)) : 1;

    const xNew = new Float64Array(n);
    let gNew = new Float64Array(n);
    let fNew = 0;
    let accepted = false;
    for (let trial = 0; trial < this.o.maxLinesearch; trial++) {
      for (let i = 0; i < n; i++) xNew[i] = this.x[i] + step * d[i];
      const r = await this.objective(xNew);
      fNew = r.value;
      gNew = Float64Array.from(r.gradient);
      this.evaluations++;
      if (Number.isFinite(fNew) && fNew <= this.f + this.o.armijo * step * slope) {
        accepted = true;
        break;
      }
      step *= 0.5;
    }
    if (!accepted) {
      this.converged = true;
      return false;
    }
    const s = this.s[this.next];
    const y = this.y[this.next];
    for (let i = 0; i < n; i++) {
      s[i] = xNew[i] - this.x[i];
      y[i] = gNew[i] - this.g[i];
    }
    const sy = dot(s, y);
    if (sy > 1e-12 * Math.sqrt(dot(s, s) * dot(y, y))) {
      this.rho[this.next] = 1 / sy;
      this.next = (this.next + 1) % m;
      this.stored = Math.min(this.stored + 1, m);
    }
    this.x = xNew;
    this.g = gNew;
    this.f = fNew;
    this.iterations++;
    this.history.push(this.f);
    if (this.gradientNorm() <= this.o.gradientTolerance * Math.max(1, Math.sqrt(dot(this.x, this.x)))) this.converged = true;
    else if (this.o.past > 0 && this.history.length > this.o.past) {
      const past = this.history[this.history.length - 1 - this.o.past];
      if ((past - this.f) / Math.max(Math.abs(this.f), 1e-300) < this.o.delta) this.converged = true;
    }
    return !this.converged;
  }
}
