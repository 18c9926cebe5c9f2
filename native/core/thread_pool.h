// Parallel loops over index ranges, with exceptions carried back to the caller.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>

namespace structrank {

// Thread counts: every native function that takes `threads` uses that many (a count the
// caller resolved, 1 <= threads <= kMaxThreads; lib/native.ts resolveThreads turns a user's
// --threads into one). Nothing in native/ substitutes "all cores" for a count; the loops
// below are where a count out of range is refused (InputError).

// Most threads ever used. Callers keep per-thread buffers (gradients, charts), so an
// absurd request such as --threads 100000 would allocate gigabytes before any work.
constexpr int kMaxThreads = 256;

// The cores of this machine (at most kMaxThreads): what a caller may choose as "all cores".
int HardwareThreads();

// Calls body(begin, end, thread_index) on disjoint chunks covering [0, n), using up to
// `threads` threads that pull chunks of `grain` items from a shared counter. The first
// exception thrown by any thread is rethrown here after all threads have stopped.
// If `cancel` is set while running, remaining chunks are skipped and Cancelled is thrown.
// InputError when `threads` is outside [1, kMaxThreads].
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
