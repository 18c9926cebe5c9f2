// Objects that keep big buffers between uses (charts, a sentence's scores), taken and given
// back instead of allocated for each use.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace structrank {

// Why not allocate anew: a parse's buffers are megabytes on long sentences, and glibc keeps
// what a thread frees in that thread's malloc arena; native jobs run on any of libuv's pool
// threads, so each arena came to hold a copy of the biggest buffers. Given back, an object
// keeps its capacity for the next user, whatever thread that runs on.
template <class T>
class ObjectPool {
 public:
  // Keeps at most `max_kept` idle objects (more are freed when given back), and only those
  // `keep` accepts (none given: all).
  explicit ObjectPool(std::size_t max_kept, std::function<bool(const T&)> keep = {})
      : max_kept_(max_kept), keep_(std::move(keep)) {}

  std::unique_ptr<T> Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.empty()) return std::make_unique<T>();
    std::unique_ptr<T> x = std::move(idle_.back());
    idle_.pop_back();
    return x;
  }

  void Give(std::unique_ptr<T> x) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (x && idle_.size() < max_kept_ && (!keep_ || keep_(*x))) idle_.push_back(std::move(x));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> idle_;
  std::size_t max_kept_;
  std::function<bool(const T&)> keep_;
};

// An object taken from a pool for one scope, given back when the scope ends (also on an
// exception: only for objects that any later use resets, as CrfSentence::Prepare does).
template <class T>
class PoolLease {
 public:
  explicit PoolLease(ObjectPool<T>& pool) : pool_(pool), x_(pool.Take()) {}
  ~PoolLease() { pool_.Give(std::move(x_)); }
  PoolLease(const PoolLease&) = delete;
  PoolLease& operator=(const PoolLease&) = delete;
  T& operator*() const { return *x_; }
  T* operator->() const { return x_.get(); }

 private:
  ObjectPool<T>& pool_;
  std::unique_ptr<T> x_;
};

}  // namespace structrank
