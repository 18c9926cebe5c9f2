// Limited-memory BFGS (Nocedal 1980; Liu & Nocedal 1989) with a backtracking line search
// on the Armijo condition. Shared by the CRF and maxent taggers, the parser and the
// log-linear reranker. The caller drives it one iteration at a time, so it can evaluate a
// dev set, report progress or stop between iterations.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

// Returns f(x) and writes the gradient into `grad` (same size as x).
using Objective = std::function<double(const std::vector<double>& x, std::vector<double>& grad)>;

struct LbfgsOptions {
  int memory = 6;               // number of (s, y) correction pairs kept
  double gradient_tolerance = 1e-5;  // stop when |g| <= tol * max(1, |x|)
  double delta = 1e-6;          // stop when (f_past - f) / f < delta over `past` iterations
  int past = 10;
  int max_linesearch = 40;
  double armijo = 1e-4;         // sufficient-decrease constant
};

class Lbfgs {
 public:
  Lbfgs(Objective objective, std::vector<double> x0, LbfgsOptions options = {});
  // Continues from a state written by SaveState (a training checkpoint): the objective is
  // not evaluated again, so the next Iterate() does exactly what it would have done.
  Lbfgs(Objective objective, ByteReader& state, LbfgsOptions options = {});

  // Everything Iterate() depends on: point, gradient, correction pairs, counters, history.
  void SaveState(ByteWriter& out) const;

  // Performs one iteration (direction + line search). Returns false when converged or no
  // further progress is possible; x() then holds the best point found.
  bool Iterate();

  const std::vector<double>& x() const { return x_; }
  double value() const { return f_; }
  double gradient_norm() const;
  int iterations() const { return iterations_; }
  bool converged() const { return converged_; }
  // Total objective evaluations (line-search trials included).
  int evaluations() const { return evaluations_; }

 private:
  Objective objective_;
  LbfgsOptions options_;
  std::vector<double> x_, g_;
  double f_ = 0;
  std::vector<std::vector<double>> s_, y_;
  std::vector<double> rho_;
  int stored_ = 0, next_ = 0;
  int iterations_ = 0, evaluations_ = 0;
  bool converged_ = false;
  std::vector<double> history_;  // f after each iteration, for the delta test
  std::vector<double> d_, alpha_, x_new_, g_new_;  // scratch of Iterate(), kept to avoid reallocating
};

// Runs up to max_iterations; returns the final objective value and leaves the solution in x.
double MinimizeLbfgs(const Objective& objective, std::vector<double>& x, int max_iterations,
                     LbfgsOptions options = {});

}  // namespace structrank
