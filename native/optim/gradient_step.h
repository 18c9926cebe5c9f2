// One stochastic gradient step over dense weights, after a batch, with an L2 prior:
//   g = prior * (theta - mean) + the gradients, summed in order;  where g != 0:
//   AdaGrad (Duchi, Hazan & Singer 2011), with squared sums:
//     squared_sum += g^2;  theta -= eta * g / sqrt(squared_sum)
//   plain SGD, without them (the caller's eta is the step's gain):
//     theta -= eta * g
// A weight whose g is exactly 0 keeps its value (and its squared sum: where no gradient has
// been seen AdaGrad's step would be 0 / 0). The gradients are left zero, and `iterate_sum`
// (when set) adds each weight after the step, for iterate averaging.
#pragma once
#include <cstddef>

namespace structrank {

struct GradientStep {
  double* theta = nullptr;
  double* squared_sum = nullptr;       // per weight, the sum of its squared g: AdaGrad; null: SGD
  double* iterate_sum = nullptr;       // optional
  const double* prior_mean = nullptr;  // optional (0)
  double* const* gradients = nullptr;  // num_gradients arrays of dim entries (one per thread)
  int num_gradients = 0;
  double prior = 0;  // the L2 prior's weight in this step: batch size / (sentences x sigma^2)
  double eta = 0;
  size_t dim = 0;
};

// Runs the vector variant of core/simd.h; every variant gives the bits of the definition.
void ApplyGradientStep(const GradientStep& step);

}  // namespace structrank
