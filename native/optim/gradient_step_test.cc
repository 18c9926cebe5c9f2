#include "optim/gradient_step.h"

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "core/simd.h"
#include "core/test_harness.h"

using namespace structrank;

namespace {

// The state one step reads and writes: weights (a third of them zero, as in a hashed table
// early in training), squared sums, iterate sums and one gradient per thread, each mostly zero.
struct State {
  std::vector<double> theta, squared, iterates, mean;
  std::vector<std::vector<double>> grads;
};

State RandomState(size_t dim, int threads, bool with_mean, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> n(0, 1);
  State s;
  s.theta.assign(dim, 0.0), s.squared.assign(dim, 0.0), s.iterates.assign(dim, 0.0);
  for (size_t f = 0; f < dim; ++f) {
    if (u(rng) < 0.66) s.theta[f] = 0.1 * n(rng), s.squared[f] = 1 + u(rng);
    s.iterates[f] = n(rng);
  }
  if (with_mean) {
    s.mean.assign(dim, 0.0);
    for (size_t f = 0; f < dim; f += 3) s.mean[f] = 0.05 * n(rng);
  }
  s.grads.assign(threads, std::vector<double>(dim, 0.0));
  for (auto& g : s.grads)
    for (size_t f = 0; f < dim; ++f)
      if (u(rng) < 0.1) g[f] = n(rng);
  s.grads[0][dim / 2] = -0.0;  // a negative zero is no gradient
  return s;
}

GradientStep StepOf(State& s, std::vector<double*>& grads, bool averaging, bool adagrad = true) {
  grads.clear();
  for (auto& g : s.grads) grads.push_back(g.data());
  GradientStep step;
  step.theta = s.theta.data();
  step.squared_sum = adagrad ? s.squared.data() : nullptr;
  step.iterate_sum = averaging ? s.iterates.data() : nullptr;
  step.prior_mean = s.mean.empty() ? nullptr : s.mean.data();
  step.gradients = grads.data();
  step.num_gradients = static_cast<int>(grads.size());
  step.prior = 0.02;
  step.eta = 0.1;
  step.dim = s.theta.size();
  return step;
}

// The update as its definition (optim/gradient_step.h) states it, one weight at a time.
void Reference(State& s, bool averaging, bool adagrad) {
  for (size_t f = 0; f < s.theta.size(); ++f) {
    double g = 0.02 * (s.mean.empty() ? s.theta[f] : s.theta[f] - s.mean[f]);
    for (auto& grad : s.grads) g += grad[f], grad[f] = 0;
    if (g != 0 && adagrad) {
      s.squared[f] += g * g;
      s.theta[f] -= 0.1 * g / std::sqrt(s.squared[f]);
    } else if (g != 0) {
      s.theta[f] -= 0.1 * g;
    }
    if (averaging) s.iterates[f] += s.theta[f];
  }
}

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

// Every vector variant (core/simd.h) against the definition, bit for bit, over sizes on both
// sides of whole vectors, AdaGrad and SGD, with and without a prior mean and averaging, one
// to three gradients: the weights, the squared sums and the iterate sums; every gradient
// left zero (SGD leaves the squared sums alone).
TEST(gradient_step_equals_its_definition_in_every_simd_variant) {
  const SimdLevel kept = SimdActive();
  int compared = 0;
  for (SimdLevel level : {SimdLevel::kPortable, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (!SimdSupported(level)) {
      std::cout << "  gradient_step_equals_its_definition_in_every_simd_variant: " << SimdName(level)
                << " skipped: this CPU (or this build) cannot run it\n";
      continue;
    }
    CHECK(SimdForce(level));
    for (size_t dim : {1, 7, 8, 9, 31, 64, 1001}) {
      for (int threads = 1; threads <= 3; ++threads) {
        for (int variant = 0; variant < 8; ++variant) {
          const bool with_mean = variant & 1, averaging = variant & 2, adagrad = !(variant & 4);
          State want = RandomState(dim, threads, with_mean, 17 * dim + threads);
          State got = want;
          std::vector<double*> grads;
          // Two steps: the second starts from weights the first moved and zero gradients.
          for (int rep = 0; rep < 2; ++rep) {
            Reference(want, averaging, adagrad);
            ApplyGradientStep(StepOf(got, grads, averaging, adagrad));
          }
          CHECK(SameBits(got.theta, want.theta));
          CHECK(SameBits(got.squared, want.squared));
          CHECK(SameBits(got.iterates, want.iterates));
          for (const auto& g : got.grads)
            for (double x : g) CHECK(x == 0);
          ++compared;
        }
      }
    }
  }
  CHECK(compared >= 7 * 3 * 8);
  CHECK(SimdForce(kept));
}

// A weight no gradient has reached (squared sum 0) and whose prior term is 0 stays where it
// is: the step there would be 0 / 0.
TEST(adagrad_step_leaves_weights_without_a_gradient) {
  State s;
  s.theta = {0, 0.5, 0, 0, 0, 0, 0, 0, 0};
  s.squared = {0, 2, 0, 0, 0, 0, 0, 0, 0};
  s.iterates.assign(9, 0.0);
  s.grads = {std::vector<double>(9, 0.0)};
  s.grads[0][8] = 1.0;
  std::vector<double*> grads;
  ApplyGradientStep(StepOf(s, grads, true));
  for (int f : {0, 2, 3, 4, 5, 6, 7}) CHECK(s.theta[f] == 0 && s.squared[f] == 0 && s.iterates[f] == 0);
  // The prior alone moves a nonzero weight towards 0; the gradient moves the last one by eta.
  CHECK(s.theta[1] < 0.5 && s.theta[1] > 0.49);
  CHECK_NEAR(s.theta[8], -0.1, 1e-15);
  CHECK(s.squared[8] == 1.0);
}
