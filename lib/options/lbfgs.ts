/**
 * The L-BFGS settings every L-BFGS trainer hands to native/optim (the CRF and maxent taggers,
 * the distributed coordinators): defined here once; the binding reads them without defaults.
 */

export interface LbfgsSettings {
  /** (s, y) correction pairs kept. */
  memory: number;
  /** Stop when |g| <= gradientTolerance * max(1, |x|). */
  gradientTolerance: number;
  /** Stop when the objective fell by less than this fraction over `past` iterations. */
  delta: number;
  past: number;
  /** Most trial points per line search. */
  maxLinesearch: number;
  /** Sufficient-decrease constant of the line search. */
  armijo: number;
}

export const LBFGS_DEFAULTS: LbfgsSettings = {
  memory: 6,
  gradientTolerance: 1e-5,
  delta: 1e-6,
  past: 10,
  maxLinesearch: 40,
  armijo: 1e-4,
};
