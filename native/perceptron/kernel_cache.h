// A bounded cache of kernel values between training candidates: K(a, b) is symmetric, so
// the key is the unordered pair. When full it is emptied (cheap, and kernel values are
// recomputed exactly, so results never depend on the capacity).
#pragma once
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace structrank {

class KernelCache {
 public:
  KernelCache(std::function<double(int64_t, int64_t)> kernel, std::size_t capacity)
      : kernel_(std::move(kernel)), capacity_(capacity) {}

  double operator()(int64_t a, int64_t b) {
    if (capacity_ == 0) return kernel_(a, b);
    const uint64_t key = a < b ? (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b)
                               : (static_cast<uint64_t>(b) << 32) | static_cast<uint32_t>(a);
    auto it = values_.find(key);
    if (it != values_.end()) {
      ++hits_;
      return it->second;
    }
    const double v = kernel_(a, b);
    ++misses_;
    if (values_.size() >= capacity_) values_.clear();
    values_.emplace(key, v);
    return v;
  }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  std::function<double(int64_t, int64_t)> kernel_;
  std::size_t capacity_;
  std::unordered_map<uint64_t, double> values_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace structrank
