#include "boost/rerank_data.h"

#include <algorithm>
#include <string>

#include "core/candidate_order.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

void RerankData::NormalizeRows(int threads) {
  const int64_t n = features.rows();
  std::vector<int64_t> new_len(n);
  ParallelFor(n, threads, 4096, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t r = b; r < e; ++r) {
      auto first = features.cols.begin() + features.row_ptr[r];
      auto last = features.cols.begin() + features.row_ptr[r + 1];
      std::sort(first, last);
      new_len[r] = std::unique(first, last) - first;
    }
  });
  // Compact in place: rows only shrink, so writing left to right never overwrites unread data.
  int64_t out = 0;
  for (int64_t r = 0; r < n; ++r) {
    int64_t begin = features.row_ptr[r];
    for (int64_t k = 0; k < new_len[r]; ++k) features.cols[out + k] = features.cols[begin + k];
    features.row_ptr[r] = out;
    out += new_len[r];
  }
  features.row_ptr[n] = out;
  features.cols.resize(out);
  features.values.clear();
}

void RerankData::Validate(bool need_scores) const {
  if (sentence_ptr.empty() || sentence_ptr[0] != 0) throw InputError("sentence offsets must start at 0");
  for (std::size_t i = 1; i < sentence_ptr.size(); ++i)
    if (sentence_ptr[i] < sentence_ptr[i - 1]) throw InputError("sentence offsets are not monotone");
  if (sentence_ptr.back() != candidates())
    throw InputError("sentence offsets do not match the candidate count");
  if (features.rows() != candidates()) throw InputError("feature rows do not match the candidate count");
  if (need_scores && static_cast<int64_t>(score.size()) != candidates())
    throw InputError("scores do not match the candidate count");
  features.Validate(num_features);
  for (int64_t r = 0; r < features.rows(); ++r)
    for (int64_t k = features.row_ptr[r] + 1; k < features.row_ptr[r + 1]; ++k)
      if (features.cols[k] <= features.cols[k - 1])
        throw InputError("feature ids of candidate " + std::to_string(r) + " are not sorted and unique");
}

int64_t BestCandidate(const RerankData& data, int64_t sentence) {
  return OracleBest(
      data.sentence_ptr[sentence], data.sentence_ptr[sentence + 1], [&](int64_t c) { return data.score[c]; },
      [&](int64_t c) { return data.logprob[c]; });
}

}  // namespace structrank
