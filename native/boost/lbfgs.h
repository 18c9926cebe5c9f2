// A small limited-memory BFGS minimizer (Nocedal & Wright, algorithm 7.4) with a
// backtracking Armijo line search. Private to the reranker: no shared optimizer was in
// main when this was written.
#pragma once
#include <atomic>
#include <functional>
#include <vector>

namespace structrank {

struct LbfgsOptions {
  int history = 10;
  int max_iterations = 200;
  double gradient_tolerance = 1e-5;  // stop when |g| <= tol * max(1, |x|)
  double relative_decrease = 1e-9;   // stop when the objective improves by less (relative)
};

// Evaluates f(x) and writes its gradient into g.
using Objective = std::function<double(const std::vector<double>& x, std::vector<double>& g)>;
// Called after every iteration with (iteration, f); return false to stop.
using IterationCallback = std::function<bool(int, double)>;

// Minimizes f from x (updated in place); returns the final objective.
double MinimizeLbfgs(const Objective& f, std::vector<double>& x, const LbfgsOptions& options,
                     const IterationCallback& callback = nullptr, const std::atomic<bool>* cancel = nullptr);

}  // namespace structrank
