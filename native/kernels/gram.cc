#include "kernels/gram.h"

#include <cmath>
#include <string>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

void CheckIndex(std::size_t i, std::size_t n, const char* which) {
  if (i >= n)
    throw InputError(std::string("index ") + std::to_string(i) + " out of range for " + which + " (" +
                     std::to_string(n) + " items)");
}

void CheckSettings(const PairwiseKernel& k) {
  if (k.beta != 0.0 && (k.logprob_a == nullptr || k.logprob_b == nullptr))
    throw InputError("beta != 0 needs log-probabilities for both banks");
}

// Norms in parallel (only when normalizing), through the cache when there is one.
std::vector<double> Norms(std::size_t n, const std::function<double(std::size_t)>& self,
                          const std::shared_ptr<NormCache>& cache, int threads,
                          const std::atomic<bool>* cancel) {
  std::vector<double> norms(n);
  ParallelFor(
      n, threads, 64,
      [&](std::size_t b, std::size_t e, int) {
        for (std::size_t i = b; i < e; ++i) norms[i] = cache ? cache->Get(i, self) : std::sqrt(self(i));
      },
      cancel);
  return norms;
}

inline double Finish(const PairwiseKernel& k, double raw, double norm_a, double norm_b, std::size_t i,
                     std::size_t j) {
  double v = raw;
  if (k.normalize) v = norm_a > 0 && norm_b > 0 ? raw / (norm_a * norm_b) : 0.0;
  if (k.beta != 0.0) v += k.beta * k.logprob_a[i] * k.logprob_b[j];
  return v;
}

}  // namespace

double KernelValue(const PairwiseKernel& k, std::size_t i, std::size_t j) {
  CheckIndex(i, k.rows, "the first bank");
  CheckIndex(j, k.cols, "the second bank");
  CheckSettings(k);
  double na = 1, nb = 1;
  if (k.normalize) {
    na = k.norms_a ? k.norms_a->Get(i, k.self_a) : std::sqrt(k.self_a(i));
    nb = k.norms_b ? k.norms_b->Get(j, k.self_b) : std::sqrt(k.self_b(j));
  }
  return Finish(k, k.raw(i, j), na, nb, i, j);
}

std::vector<double> KernelRow(const PairwiseKernel& k, std::size_t i, int threads,
                              const std::atomic<bool>* cancel) {
  CheckIndex(i, k.rows, "the first bank");
  CheckSettings(k);
  std::vector<double> norms_b;
  double na = 1;
  if (k.normalize) {
    norms_b = Norms(k.cols, k.self_b, k.norms_b, threads, cancel);
    na = k.norms_a ? k.norms_a->Get(i, k.self_a) : std::sqrt(k.self_a(i));
  }
  std::vector<double> row(k.cols);
  ParallelFor(
      k.cols, threads, 64,
      [&](std::size_t b, std::size_t e, int) {
        for (std::size_t j = b; j < e; ++j)
          row[j] = Finish(k, k.raw(i, j), na, k.normalize ? norms_b[j] : 1, i, j);
      },
      cancel);
  return row;
}

std::vector<double> GramMatrix(const PairwiseKernel& k, int threads, const std::atomic<bool>* cancel) {
  CheckSettings(k);
  const std::size_t rows = k.rows, cols = k.cols;
  std::vector<double> out(rows * cols);
  std::vector<double> norms_a, norms_b;
  if (k.normalize) {
    norms_a = Norms(rows, k.self_a, k.norms_a, threads, cancel);
    norms_b = k.same_bank ? norms_a : Norms(cols, k.self_b, k.norms_b, threads, cancel);
  }
  // One row per task: rows differ in length (triangle), the shared counter balances them.
  ParallelFor(
      rows, threads, 1,
      [&](std::size_t b, std::size_t e, int) {
        for (std::size_t i = b; i < e; ++i) {
          if (cancel && cancel->load(std::memory_order_relaxed)) return;
          const double na = k.normalize ? norms_a[i] : 1;
          for (std::size_t j = k.same_bank ? i : 0; j < cols; ++j) {
            if (k.same_bank && i == j && k.normalize) {  // exactly 1, and no second self kernel
              out[i * cols + j] = Finish(k, 1.0, 1.0, 1.0, i, j);
              continue;
            }
            out[i * cols + j] = Finish(k, k.raw(i, j), na, k.normalize ? norms_b[j] : 1, i, j);
          }
        }
      },
      cancel);
  if (k.same_bank)
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < i; ++j) out[i * cols + j] = out[j * cols + i];
  return out;
}

}  // namespace structrank
