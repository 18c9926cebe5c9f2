// Kernel jobs over native banks, shared with other binding files (the perceptron).
#pragma once
#include <napi.h>

#include <memory>

#include "kernels/gram.h"

namespace structrank::binding {

// A kernel between the items of two banks that owns (keeps alive) everything it reads,
// so it can outlive the JS call and run on worker threads.
struct KernelJob {
  PairwiseKernel kernel;
  std::shared_ptr<const void> keep_a, keep_b;
  virtual ~KernelJob() = default;
};

// `a` and `b`: TreeBank or SequenceBank objects of the same kind; `options` as for
// bank.kernel(...). Throws InputError for mismatched handles or bad options.
std::shared_ptr<KernelJob> MakeKernelJob(const Napi::Value& a, const Napi::Value& b,
                                         const Napi::Value& options);

}  // namespace structrank::binding
