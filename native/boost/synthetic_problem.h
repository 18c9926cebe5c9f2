// A seeded random reranking problem shaped like the data of Collins & Koo (2005), for tests and benchmarks:
// Zipf-distributed feature frequencies; candidates of one sentence share a core of
// features and differ in a few, as parse trees of one sentence do; a hidden linear
// model makes some features predictive of Score, and L(x) is a noisy view of it.
#pragma once
#include <cstdint>

#include "boost/rerank_data.h"

namespace structrank {

struct SyntheticOptions {
  int64_t sentences = 36000;
  int32_t candidates_per_sentence = 27;  // mean; actual counts vary 1..2*mean-1
  int32_t features = 500000;
  int32_t shared_per_sentence = 250;   // core features of a sentence
  int32_t private_per_candidate = 20;  // extra features per candidate (also drops this many / 2)
  double zipf_exponent = 1.0;
  uint64_t seed = 1;
  int threads = 0;  // the caller's count, >= 1 (core/thread_pool.h)
};

RerankData GenerateSynthetic(const SyntheticOptions& options);

}  // namespace structrank
