// Applying a linear reranker F(x) = a_0 L(x) + sum_k a_k h_k(x) to n-best lists, and the
// dev-set curve of a boosting model's prefixes (any N rounds, no retraining).
#pragma once
#include <cstdint>
#include <vector>

#include "boost/boost_model.h"
#include "boost/rerank_data.h"

namespace structrank {

// F of every candidate; feature ids >= weights.size() (unseen in training) count 0.
std::vector<double> CandidateScores(const RerankData& data, double a0, const std::vector<double>& weights,
                                    int threads);
// Per sentence, the index (global candidate id) of argmax F, ties to the earlier candidate;
// -1 for a sentence without candidates.
std::vector<int64_t> ChooseCandidates(const RerankData& data, const std::vector<double>& F);
// sum_i Score(z_i) of chosen candidates.
double ChosenScore(const RerankData& data, const std::vector<int64_t>& chosen);

// Summed dev Score after the first N rounds, for each N in `checkpoints` (ascending).
// Incremental: each round adds delta to F of the dev candidates with feature k*, and only
// sentences touched since the previous checkpoint are re-decided.
std::vector<double> BoostPrefixCurve(const RerankData& dev, const BoostModel& model,
                                     const std::vector<int64_t>& checkpoints, int threads);

}  // namespace structrank
