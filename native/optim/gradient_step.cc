#include "optim/gradient_step.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/simd.h"

namespace structrank {

namespace {

// One weight, as optim/gradient_step.h defines the step (the tail past whole vectors).
template <bool kAdagrad>
SR_ALWAYS_INLINE void StepOne(const GradientStep& s, size_t f) {
  double g = s.prior * (s.prior_mean ? s.theta[f] - s.prior_mean[f] : s.theta[f]);
  for (int k = 0; k < s.num_gradients; ++k) g += s.gradients[k][f], s.gradients[k][f] = 0;
  if (g != 0) {
    if constexpr (kAdagrad) {
      s.squared_sum[f] += g * g;
      s.theta[f] -= s.eta * g / std::sqrt(s.squared_sum[f]);
    } else {
      s.theta[f] -= s.eta * g;
    }
  }
  if (s.iterate_sum) s.iterate_sum[f] += s.theta[f];
}

#ifdef SR_HAS_LANES
// N entries of a gradient, which are left zero (written only if one is not: entries already
// zero stay clean in the cache).
template <int N>
SR_ALWAYS_INLINE void TakeGradient(double* SR_RESTRICT grad, Vec<N>& x) {
  const Vec<N> zero{};
  std::memcpy(&x, grad, sizeof x);
  const auto nonzero = x != zero;  // lanes of all ones or all zeros
  int64_t any = 0;
  for (int l = 0; l < N; ++l) any |= nonzero[l];
  if (any) std::memcpy(grad, &zero, sizeof zero);
}
#endif

// The weights a step touches do not fit any cache (2^22 and more), so the step is one pass
// over the arrays, N weights at a time, with no branch per weight: a branch on whether each
// pair of weights moves mispredicted about as often as not when a third of them were nonzero,
// and cost twice the whole pass. The square root of each lane is written per lane; with
// -fno-math-errno the compiler makes it one vector square root, which rounds as the scalar one.
template <int N, bool kAdagrad>
SR_ALWAYS_INLINE void StepLoop(const GradientStep& s) {
  size_t f = 0;
#ifdef SR_HAS_LANES
  // Locals, so that the stores into the weights cannot be taken to change the step's fields.
  double* SR_RESTRICT theta_of = s.theta;
  double* SR_RESTRICT squared_of = s.squared_sum;
  double* SR_RESTRICT iterates_of = s.iterate_sum;
  const double* SR_RESTRICT mean_of = s.prior_mean;
  double* const* gradients = s.gradients;
  const int num_gradients = s.num_gradients;
  const double prior = s.prior, eta = s.eta;
  const size_t dim = s.dim;
  for (; f + N <= dim; f += N) {
    Vec<N> theta, g, x;
    // The first gradient is read (and zeroed) before the weights, the sums taken in the
    // same order: with two lanes a third faster than reading the weights first.
    Vec<N> first{};
    if (num_gradients > 0) TakeGradient<N>(gradients[0] + f, first);
    std::memcpy(&theta, theta_of + f, sizeof theta);
    g = theta;
    if (mean_of) std::memcpy(&x, mean_of + f, sizeof x), g -= x;
    g *= prior;
    // Adding a zero changes no nonzero g, and a zero g stays zero.
    g += first;
    for (int k = 1; k < num_gradients; ++k) TakeGradient<N>(gradients[k] + f, x), g += x;
    if constexpr (kAdagrad) {
      Vec<N> squared, root;
      std::memcpy(&squared, squared_of + f, sizeof squared);
      squared += g * g;  // unchanged where g == 0
      for (int l = 0; l < N; ++l) root[l] = std::sqrt(squared[l]);
      const Vec<N> stepped = theta - eta * g / root;
      theta = g != 0 ? stepped : theta;
      std::memcpy(squared_of + f, &squared, sizeof squared);
    } else {
      const Vec<N> stepped = theta - eta * g;
      theta = g != 0 ? stepped : theta;
    }
    std::memcpy(theta_of + f, &theta, sizeof theta);
    if (iterates_of) {
      std::memcpy(&x, iterates_of + f, sizeof x);
      x += theta;
      std::memcpy(iterates_of + f, &x, sizeof x);
    }
  }
#endif
  for (; f < s.dim; ++f) StepOne<kAdagrad>(s, f);
}

template <int N>
SR_ALWAYS_INLINE void ApplyGradientStepBody(const GradientStep& s) {
  if (s.squared_sum)
    StepLoop<N, true>(s);
  else
    StepLoop<N, false>(s);
}

}  // namespace

SR_SIMD_DISPATCH(ApplyGradientStep, (const GradientStep& step), (step))

}  // namespace structrank
