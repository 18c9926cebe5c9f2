#include "core/exp.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/simd.h"

namespace structrank {

namespace {

// The range the computation sees. At the low end x / ln 2 rounds to -1022, where the scale
// below is 2^(k-1) = 0 (zero exponent bits): e^x is 0 from there, never subnormal.
constexpr double kLowest = -708.39;
constexpr double kHighest = 710.0;  // e^x = inf (from 709.79 on)

// e^x for x in [kLowest, kHighest] (or NaN): 2^k e^r with k = round(x / ln 2), r = x - k ln 2
// in two parts, |r| <= ln 2 / 2 (Cody & Waite: ln 2's high part has 21 zero low bits, so
// k ln2_hi is exact). e^r by its Taylor series to r^13 (the next term is below 2^-57 of the
// sum) in Estrin's order, a short chain of dependent operations so that consecutive vectors
// overlap in the pipeline. 2^k = 2 * 2^(k-1), k - 1 in [-1023, 1023], a double made from its
// exponent bits: a normal one, or 0 at the bottom; no intermediate is ever subnormal.
inline double ExpInRange(double x) {
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double k = (x * kLog2e + kShifter) - kShifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double q0 = 1.0 / 2 + r * (1.0 / 6), q1 = 1.0 / 24 + r * (1.0 / 120);
  const double q2 = 1.0 / 720 + r * (1.0 / 5040), q3 = 1.0 / 40320 + r * (1.0 / 362880);
  const double q4 = 1.0 / 3628800 + r * (1.0 / 39916800), q5 = 1.0 / 479001600 + r * (1.0 / 6227020800);
  const double p = (q0 + r2 * q1) + r4 * (q2 + r2 * q3) + r8 * (q4 + r2 * q5);  // (e^r - 1 - r) / r^2
  const double er = 1.0 + (r + r2 * p);
  // The biased exponent k - 1 + 1023 sits in the low mantissa bits of shifter + it: an
  // integer subtract and shift put it in place (64-bit vector lanes have both).
  const double biased = k + (kShifter + 1022);
  uint64_t bits, shifter;
  std::memcpy(&bits, &biased, sizeof bits);
  std::memcpy(&shifter, &kShifter, sizeof shifter);
  const uint64_t scale_bits = (bits - shifter) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return (er * 2.0) * scale;
}

// Clamping inside the loop that computes e^x would let GCC thread the clamped constant
// through the whole computation, and the loop would no longer vectorize: a loop of its own.
// A NaN fails every comparison and stays NaN.
inline double Clamp(double x) { return std::min(std::max(x, kLowest), kHighest); }

// The loops vectorize to the register width of each variant (core/simd.h): N unused.
template <int N>
SR_ALWAYS_INLINE void ExpArrayBody(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = Clamp(x[i]);
  for (std::size_t i = 0; i < n; ++i) x[i] = ExpInRange(x[i]);
}

}  // namespace

SR_SIMD_DISPATCH(ExpArray, (double* x, std::size_t n), (x, n))

double Exp(double x) { return ExpInRange(Clamp(x)); }

}  // namespace structrank
