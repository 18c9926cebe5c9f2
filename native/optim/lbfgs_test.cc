#include <cmath>
#include <vector>

#include "core/test_harness.h"
#include "optim/lbfgs.h"

using namespace structrank;

// f(x) = (1 - x0)^2 + 100 (x1 - x0^2)^2, its minimum at (1, 1); with its gradient.
static double Rosenbrock(const std::vector<double>& x, std::vector<double>& g) {
  double a = 1 - x[0], b = x[1] - x[0] * x[0];
  g[0] = -2 * a - 400 * x[0] * b;
  g[1] = 200 * b;
  return a * a + 100 * b * b;
}

TEST(lbfgs_minimizes_an_ill_conditioned_quadratic) {
  // f(x) = sum_i c_i (x_i - i)^2 with condition number 1000.
  const int n = 20;
  Objective f = [&](const std::vector<double>& x, std::vector<double>& g) {
    double v = 0;
    for (int i = 0; i < n; ++i) {
      double c = std::pow(1000.0, i / double(n - 1));
      v += c * (x[i] - i) * (x[i] - i);
      g[i] = 2 * c * (x[i] - i);
    }
    return v;
  };
  std::vector<double> x(n, 0.0);
  LbfgsOptions opt;
  opt.gradient_tolerance = 1e-10;
  opt.delta = 0;
  double v = MinimizeLbfgs(f, x, 500, opt);
  CHECK(v < 1e-12);
  for (int i = 0; i < n; ++i) CHECK_NEAR(x[i], double(i), 1e-6);
}

TEST(lbfgs_minimizes_rosenbrock) {
  Objective f = Rosenbrock;
  std::vector<double> x{-1.2, 1.0};
  LbfgsOptions opt;
  opt.gradient_tolerance = 1e-9;
  opt.delta = 0;
  double v = MinimizeLbfgs(f, x, 1000, opt);
  CHECK(v < 1e-12);
  CHECK_NEAR(x[0], 1.0, 1e-5);
  CHECK_NEAR(x[1], 1.0, 1e-5);
}

TEST(lbfgs_iterates_one_step_at_a_time_and_stops_when_converged) {
  Objective f = [](const std::vector<double>& x, std::vector<double>& g) {
    g[0] = 2 * (x[0] - 3);
    return (x[0] - 3) * (x[0] - 3);
  };
  Lbfgs opt(f, {0.0});
  int steps = 0;
  while (opt.Iterate() && steps < 100) ++steps;
  CHECK(opt.converged());
  CHECK_NEAR(opt.x()[0], 3.0, 1e-4);
  CHECK(!opt.Iterate());
}

TEST(lbfgs_resumed_from_saved_state_takes_the_same_steps) {
  // Rosenbrock: many iterations with a full correction history, so every part of the state counts.
  int evaluations = 0;
  Objective f = [&](const std::vector<double>& x, std::vector<double>& g) {
    ++evaluations;
    return Rosenbrock(x, g);
  };
  LbfgsOptions opt;
  opt.memory = 3;
  Lbfgs whole(f, {-1.2, 1.0}, opt);
  for (int i = 0; i < 20; ++i) whole.Iterate();
  Lbfgs first(f, {-1.2, 1.0}, opt);
  for (int i = 0; i < 8; ++i) first.Iterate();
  ByteWriter w;
  first.SaveState(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  const int before = evaluations;
  Lbfgs resumed(f, r, opt);
  CHECK(r.AtEnd());
  CHECK(evaluations == before);  // no evaluation on loading
  CHECK(resumed.iterations() == 8);
  for (int i = 0; i < 12; ++i) resumed.Iterate();
  CHECK(resumed.iterations() == whole.iterations());
  CHECK(resumed.x() == whole.x());  // bit for bit
  CHECK(resumed.value() == whole.value());
  // A state of another memory size is refused.
  LbfgsOptions other = opt;
  other.memory = 4;
  ByteReader again(w.bytes().data(), w.bytes().size());
  bool refused = false;
  try {
    Lbfgs wrong(f, again, other);
  } catch (const ModelError&) {
    refused = true;
  }
  CHECK(refused);
}

TEST(lbfgs_driven_by_the_caller_takes_the_same_steps_bit_for_bit) {
  // Rosenbrock from a start whose first steps need line-search halvings.
  LbfgsOptions opt;
  opt.memory = 3;
  Lbfgs own(Rosenbrock, {-1.2, 1.0}, opt);
  std::vector<double> g0(2);
  const double f0 = Rosenbrock({-1.2, 1.0}, g0);
  Lbfgs driven({-1.2, 1.0}, f0, g0, opt);
  int retries = 0;
  for (int it = 0; it < 30; ++it) {
    const bool more = own.Iterate();
    bool driven_more = false;
    if (driven.BeginIteration()) {
      Lbfgs::Trial t;
      do {
        t = driven.EndTrial(Rosenbrock(driven.trial_point(), driven.trial_gradient()));
        if (t == Lbfgs::Trial::kRetry) ++retries;
      } while (t == Lbfgs::Trial::kRetry);
      driven_more = t == Lbfgs::Trial::kAccepted && !driven.converged();
    }
    CHECK(more == driven_more);
    CHECK(driven.x() == own.x());
    CHECK(driven.value() == own.value());
    CHECK(driven.evaluations() == own.evaluations());
    if (!more) break;
  }
  CHECK(retries > 0);  // the halving path was taken
  // Its state saved and restored without an objective continues the same way.
  ByteWriter w;
  driven.SaveState(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  Lbfgs restored(Objective(), r, opt);
  CHECK(restored.state().x == driven.state().x);
  CHECK(restored.state().history == driven.state().history);
  bool refused = false;
  try {
    restored.Iterate();  // no objective to call
  } catch (const std::logic_error&) {
    refused = true;
  }
  CHECK(refused);
}
