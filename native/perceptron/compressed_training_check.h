// Test helper shared by the tests of the compressed scorers (tree DAG, tag suffixes):
// trains the same data with the compressed scorer and with plain kernel sums and checks
// that both make the same, non-trivial, mistake-by-mistake decisions.
#pragma once
#include "core/test_harness.h"
#include "perceptron/reranker_model.h"

namespace structrank {

// 3 epochs over 2 chunks on 2 threads; returns the compressed model.
inline RerankerModel CheckCompressedTrainingAgrees(const CandidateBank& bank, const RankingSet& set,
                                                   double beta) {
  PerceptronOptions opt;
  opt.epochs = 3;
  opt.chunks = 2;
  opt.threads = 2;
  opt.compressed = true;
  RerankerModel fast = RerankerModel::Train(bank, set, beta, false, opt);
  opt.compressed = false;
  RerankerModel plain = RerankerModel::Train(bank, set, beta, false, opt);
  CHECK(fast.run().TotalMistakes() > 10);
  CHECK(SameDecisions(fast.run(), plain.run()));
  return fast;
}

}  // namespace structrank
