#include "core/thread_pool.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.h"

namespace structrank {

int HardwareThreads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : std::min(static_cast<int>(hw), kMaxThreads);
}

namespace {

// The loop of both: a thread takes the next chunk from a shared counter (`fixed` false) or
// its own chunks t, t + threads, ... (`fixed` true).
void RunChunks(std::size_t n, int threads, std::size_t grain, bool fixed,
               const std::function<void(std::size_t, std::size_t, int)>& body,
               const std::atomic<bool>* cancel) {
  if (threads < 1 || threads > kMaxThreads) {
    throw InputError("thread count " + std::to_string(threads) + " is outside 1.." +
                     std::to_string(kMaxThreads));
  }
  if (n == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  std::size_t chunks = (n + grain - 1) / grain;
  threads = static_cast<int>(std::min<std::size_t>(threads, chunks));

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;

  auto worker = [&](int thread_index) {
    std::size_t own = static_cast<std::size_t>(thread_index) * grain;
    const std::size_t stride = static_cast<std::size_t>(threads) * grain;
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      if (cancel && cancel->load(std::memory_order_relaxed)) return;
      std::size_t begin = fixed ? own : next.fetch_add(grain, std::memory_order_relaxed);
      own += stride;
      if (begin >= n) return;
      std::size_t end = std::min(n, begin + grain);
      try {
        body(begin, end, thread_index);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed.store(true);
        return;
      }
    }
  };

  if (threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool) th.join();
  }
  if (first_error) std::rethrow_exception(first_error);
  if (cancel && cancel->load()) throw Cancelled();
}

}  // namespace

void ParallelFor(std::size_t n, int threads, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t, int)>& body,
                 const std::atomic<bool>* cancel) {
  RunChunks(n, threads, grain, false, body, cancel);
}

void ParallelForFixed(std::size_t n, int threads, std::size_t grain,
                      const std::function<void(std::size_t, std::size_t, int)>& body,
                      const std::atomic<bool>* cancel) {
  RunChunks(n, threads, grain, true, body, cancel);
}

}  // namespace structrank
