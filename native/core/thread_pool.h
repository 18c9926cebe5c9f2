// Parallel loops over index ranges, with exceptions carried back to the caller.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>

namespace structrank {

// Most threads ever used. Callers keep per-thread buffers (gradients, charts), so an
// absurd request such as --threads 100000 would allocate gigabytes before any work.
constexpr int kMaxThreads = 256;

// Number of worker threads to use when the caller asks for `requested` (0 = all cores),
// at most the core count (and kMaxThreads).
int ResolveThreads(int requested);

// Calls body(begin, end, thread_index) on disjoint chunks covering [0, n), using up to
// `threads` threads that pull chunks of `grain` items from a shared counter. The first
// exception thrown by any thread is rethrown here after all threads have stopped.
// If `cancel` is set while running, remaining chunks are skipped and Cancelled is thrown.
void ParallelFor(std::size_t n, int threads, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t, int)>& body,
                 const std::atomic<bool>* cancel = nullptr);

// As ParallelFor, but chunk k always runs on thread k mod threads, in order: what each
// thread accumulates into its own buffer is the same in every run, so a reduction over
// per-thread sums (a gradient) gives the same bits for a given thread count. The price is
// no load balancing beyond the round-robin of many small chunks.
void ParallelForFixed(std::size_t n, int threads, std::size_t grain,
                      const std::function<void(std::size_t, std::size_t, int)>& body,
                      const std::atomic<bool>* cancel = nullptr);

}  // namespace structrank
