// The reranking problem as plain arrays: sentences own consecutive candidates, each
// candidate has a base log-probability L(x), a Score(x) and sorted binary feature ids.
#pragma once
#include <cstdint>
#include <vector>

#include "core/csr.h"

namespace structrank {

struct RerankData {
  std::vector<int64_t> sentence_ptr{0};  // sentence i owns candidates [ptr[i], ptr[i+1])
  std::vector<double> logprob;           // L(x) per candidate
  std::vector<double> score;             // Score(x) per candidate (may be empty at test time)
  CsrMatrix features;                    // binary feature ids per candidate, sorted, unique
  int32_t num_features = 0;

  int64_t sentences() const { return static_cast<int64_t>(sentence_ptr.size()) - 1; }
  int64_t candidates() const { return static_cast<int64_t>(logprob.size()); }

  // Sorts and de-duplicates every candidate's feature ids (parallel over candidates).
  void NormalizeRows(int threads);
  // Throws InputError on inconsistent sizes, ids out of range or unsorted rows.
  void Validate(bool need_scores) const;
};

// x_{i,1}: the candidate of sentence i with the highest Score, ties broken by higher L(x),
// then by the lower index.
int64_t BestCandidate(const RerankData& data, int64_t sentence);

}  // namespace structrank
