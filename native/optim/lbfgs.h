// Limited-memory BFGS (Nocedal 1980; Liu & Nocedal 1989) with a backtracking line search
// on the Armijo condition. Shared by the CRF and maxent taggers, the parser, the log-linear
// reranker and the distributed trainers. The caller drives it one iteration at a time, so it
// can evaluate a dev set, report progress or stop between iterations; a caller whose
// objective is evaluated elsewhere (queue jobs) drives each trial point itself
// (BeginIteration / EndTrial), with the same arithmetic.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

// Returns f(x) and writes the gradient into `grad` (same size as x).
using Objective = std::function<double(const std::vector<double>& x, std::vector<double>& grad)>;

struct LbfgsOptions {
  int memory = 6;                    // number of (s, y) correction pairs kept
  double gradient_tolerance = 1e-5;  // stop when |g| <= tol * max(1, |x|)
  double delta = 1e-6;               // stop when (f_past - f) / f < delta over `past` iterations
  int past = 10;
  int max_linesearch = 40;
  double armijo = 1e-4;  // sufficient-decrease constant
};

// Everything an iteration depends on, between iterations: what a checkpoint keeps.
struct LbfgsState {
  std::vector<double> x, g;
  double f = 0;
  std::vector<std::vector<double>> s, y;  // `memory` correction pairs, a ring; unwritten slots empty
  std::vector<double> rho;
  int stored = 0, next = 0;             // pairs in use; the slot written next
  int iterations = 0, evaluations = 0;  // evaluations include line-search trials
  bool converged = false;
  std::vector<double> history;  // f after each iteration, for the delta test
};

class Lbfgs {
 public:
  Lbfgs(Objective objective, std::vector<double> x0, LbfgsOptions options = {});
  // Without an objective: f0 and g0 were evaluated at x0 by the caller, who then drives the
  // iterations with BeginIteration / EndTrial.
  Lbfgs(std::vector<double> x0, double f0, std::vector<double> g0, LbfgsOptions options = {});
  // Continues from a saved state (a training checkpoint): the objective is not evaluated
  // again, so the next iteration does exactly what it would have done. `objective` may be
  // empty for a caller that drives the trials.
  Lbfgs(Objective objective, LbfgsState state, LbfgsOptions options = {});
  Lbfgs(Objective objective, ByteReader& state, LbfgsOptions options = {});

  void SaveState(ByteWriter& out) const;
  const LbfgsState& state() const { return st_; }

  // Performs one iteration (direction + line search). Returns false when converged or no
  // further progress is possible; x() then holds the best point found.
  bool Iterate();

  // One iteration driven by the caller: BeginIteration computes the direction and the first
  // trial point (false when already converged); the caller evaluates f at trial_point(),
  // writes the gradient into trial_gradient() and calls EndTrial(f), again while it returns
  // kRetry (the step was halved and trial_point() moved).
  enum class Trial { kRetry, kAccepted, kFailed };
  bool BeginIteration();
  const std::vector<double>& trial_point() const { return x_new_; }
  std::vector<double>& trial_gradient() { return g_new_; }
  Trial EndTrial(double f);

  const std::vector<double>& x() const { return st_.x; }
  double value() const { return st_.f; }
  double gradient_norm() const;
  int iterations() const { return st_.iterations; }
  bool converged() const { return st_.converged; }
  // Total objective evaluations (line-search trials included).
  int evaluations() const { return st_.evaluations; }

 private:
  void CheckConverged(double gradient_norm, double x_norm);  // the tests on |g|, then on the history

  Objective objective_;
  LbfgsOptions options_;
  LbfgsState st_;
  // The iteration in progress: direction, its slope, step, trial count; and scratch vectors
  // kept to avoid reallocating.
  std::vector<double> d_, alpha_, x_new_, g_new_;
  double slope_ = 0, step_ = 0;
  int trial_ = 0;
};

// Runs up to max_iterations; returns the final objective value and leaves the solution in x.
double MinimizeLbfgs(const Objective& objective, std::vector<double>& x, int max_iterations,
                     LbfgsOptions options = {});

}  // namespace structrank
