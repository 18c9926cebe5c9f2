// The pair structures of Collins & Koo (2005), section 4.5, as int32 arrays in CSR form:
//   pair p = (i, j), j a competitor of the best candidate x_{i,1};
//   B+_p (features on x_{i,1} only) then B-_p (on x_{i,j} only) in pair_features;
//   A+_k / A-_k (pairs where feature k is in B+ / B-) as inverted lists, pair ids ascending.
#pragma once
#include <cstdint>
#include <vector>

#include "boost/rerank_data.h"

namespace structrank {

enum class PairWeighting : int32_t { kScoreDifference = 0, kUniform = 1 };

struct PairProblem {
  int32_t num_features = 0;
  std::vector<double> weight;        // S_{i,j}
  std::vector<double> logprob_diff;  // L(x_{i,1}) - L(x_{i,j})
  std::vector<int64_t> pair_ptr{0};  // pair p's features: [pair_ptr[p], pair_ptr[p+1])
  std::vector<int64_t> pair_split;   // B-_p starts here
  std::vector<int32_t> pair_features;
  std::vector<int64_t> plus_ptr, minus_ptr;  // size num_features + 1
  std::vector<int32_t> plus_pairs, minus_pairs;

  int64_t pairs() const { return static_cast<int64_t>(weight.size()); }
  // T of Collins & Koo (2005): sum over pairs of |B+| + |B-|.
  int64_t total_cost() const { return static_cast<int64_t>(pair_features.size()); }
  int64_t PairCost(int64_t p) const { return pair_ptr[p + 1] - pair_ptr[p]; }
};

// Builds the pairs of every sentence. With score weighting, pairs whose S_{i,j} is 0 (a
// competitor as good as the best) are dropped: they contribute nothing to ExpLoss.
PairProblem BuildPairs(const RerankData& data, PairWeighting weighting, int threads);

}  // namespace structrank
