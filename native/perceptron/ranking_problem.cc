#include "perceptron/ranking_problem.h"

namespace structrank {

namespace {
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

std::vector<uint32_t> TrainingOrder(std::size_t n, const PerceptronOptions& options) {
  if (options.epochs < 1) throw InputError("epochs must be at least 1");
  std::vector<uint32_t> order;
  order.reserve(n * options.epochs);
  uint64_t state = options.seed;
  std::vector<uint32_t> epoch(n);
  for (int e = 0; e < options.epochs; ++e) {
    for (std::size_t i = 0; i < n; ++i) epoch[i] = static_cast<uint32_t>(i);
    if (options.shuffle)
      for (std::size_t i = n; i > 1; --i) std::swap(epoch[i - 1], epoch[SplitMix64(state) % i]);
    order.insert(order.end(), epoch.begin(), epoch.end());
  }
  return order;
}

}  // namespace structrank
