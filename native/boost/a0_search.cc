#include "boost/a0_search.h"

#include <cmath>
#include <vector>

#include "core/thread_pool.h"

namespace structrank {

namespace {
constexpr std::size_t kChunk = 8192;

double SerialLoss(const PairProblem& pp, double a0, int64_t begin, int64_t end) {
  double sum = 0;
  for (int64_t p = begin; p < end; ++p) sum += pp.weight[p] * std::exp(-a0 * pp.logprob_diff[p]);
  return sum;
}
}  // namespace

double A0Loss(const PairProblem& pp, double a0, int threads) {
  const int64_t P = pp.pairs();
  const int64_t chunks = (P + kChunk - 1) / kChunk;
  std::vector<double> partial(chunks, 0.0);
  ParallelFor(chunks, threads, 1, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t c = b; c < e; ++c)
      partial[c] = SerialLoss(pp, a0, c * kChunk, std::min<int64_t>(P, (c + 1) * kChunk));
  });
  double sum = 0;
  for (double v : partial) sum += v;
  return sum;
}

double SearchA0(const PairProblem& pp, int threads) {
  // Find the first t in [1, N-1] with loss(t+1) >= loss(t); if none, t = N.
  int lo = 1, hi = kA0GridPoints;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    double here = A0Loss(pp, A0GridValue(mid), threads);
    double next = A0Loss(pp, A0GridValue(mid + 1), threads);
    if (next >= here)
      hi = mid;
    else
      lo = mid + 1;
  }
  return A0GridValue(lo);
}

double SearchA0BruteForce(const PairProblem& pp, int threads) {
  std::vector<double> loss(kA0GridPoints + 1);
  ParallelFor(kA0GridPoints, threads, 16, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t t = b + 1; t <= e; ++t) loss[t] = A0Loss(pp, A0GridValue(static_cast<int>(t)), 1);
  });
  int best = 1;
  for (int t = 2; t <= kA0GridPoints; ++t)
    if (loss[t] < loss[best]) best = t;
  return A0GridValue(best);
}

}  // namespace structrank
