// Kernel values between the items of two banks (or one bank and itself), computed on
// many threads: a single value, one row, a full symmetric or a rectangular Gram matrix.
// Every entry is  beta * L_a[i] * L_b[j] + k(i, j)  where k is the raw kernel or, with
// normalize, raw(i,j) / sqrt(raw(i,i) raw(j,j)); the log-prob term is skipped when beta = 0.
#pragma once
#include <atomic>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace structrank {

// sqrt(K(x,x)) per item, computed on first use and kept (thread-safe: a value computed
// twice by two threads is the same value).
class NormCache {
 public:
  explicit NormCache(std::size_t n) : values_(new std::atomic<double>[n]) {
    for (std::size_t i = 0; i < n; ++i) values_[i].store(-1.0, std::memory_order_relaxed);
  }
  template <typename Self>
  double Get(std::size_t i, const Self& self) {
    double v = values_[i].load(std::memory_order_relaxed);
    if (v < 0) {
      v = std::sqrt(self(i));
      values_[i].store(v, std::memory_order_relaxed);
    }
    return v;
  }

 private:
  std::unique_ptr<std::atomic<double>[]> values_;
};

struct PairwiseKernel {
  std::size_t rows = 0, cols = 0;                       // items of bank a and bank b
  std::function<double(std::size_t, std::size_t)> raw;  // raw kernel a[i] vs b[j]; thread-safe
  std::function<double(std::size_t)> self_a, self_b;    // raw(a[i], a[i]), raw(b[j], b[j])
  bool same_bank = false;                               // a and b are one bank (symmetric)
  bool normalize = false;
  double beta = 0.0;
  const double* logprob_a = nullptr;  // L(a[i]); required when beta != 0
  const double* logprob_b = nullptr;
  // Optional: norms kept across calls (a bank keeps one per kernel setting).
  std::shared_ptr<NormCache> norms_a, norms_b;
};

// One value; throws InputError for an index out of range.
double KernelValue(const PairwiseKernel& k, std::size_t i, std::size_t j);
// a[i] against every b[j].
std::vector<double> KernelRow(const PairwiseKernel& k, std::size_t i, int threads,
                              const std::atomic<bool>* cancel = nullptr);
// Row-major rows x cols; when same_bank, only i <= j is computed and mirrored.
std::vector<double> GramMatrix(const PairwiseKernel& k, int threads,
                               const std::atomic<bool>* cancel = nullptr);

}  // namespace structrank
