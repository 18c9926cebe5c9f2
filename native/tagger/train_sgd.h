// SGD on the CRF objective, one sentence per step with the decaying gain
// eta_t = eta0 / (1 + lambda eta0 t), lambda = 2 c2 / N, the L2 prior applied as a scale of
// the whole weight vector (Bottou; CRFsuite's train_l2sgd.c).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "tagger/chain_encoder.h"

namespace structrank {

// What the next pass depends on besides the weights: the trained weights are scale * w.
struct SgdState {
  double scale = 1;
  int64_t t = 0;  // steps taken (the gain's schedule)
};

// One pass over the sentences in `order`: updates w and state; returns the objective
// sum_s (log Z_s - score(gold_s)) + c2 |scale * w|^2, each sentence's term taken before
// its step.
double SgdEpoch(const ChainEncoder& encoder, const std::vector<int64_t>& order, double eta0, double c2,
                std::vector<double>& w, SgdState& state, const std::atomic<bool>* cancel);

}  // namespace structrank
