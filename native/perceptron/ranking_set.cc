#include "perceptron/ranking_set.h"

#include <string>

#include "core/candidate_order.h"
#include "core/errors.h"

namespace structrank {

void RankingSet::Validate(bool need_scores) const {
  if (sentence_ptr.empty() || sentence_ptr[0] != 0) throw InputError("ranking set: offsets must start at 0");
  for (std::size_t s = 1; s < sentence_ptr.size(); ++s) {
    if (sentence_ptr[s] < sentence_ptr[s - 1]) throw InputError("ranking set: offsets are not monotone");
  }
  const auto n = static_cast<std::size_t>(candidates());
  if (logprob.size() != n)
    throw InputError("ranking set: expected " + std::to_string(n) + " log-probabilities");
  if (need_scores && score.size() != n)
    throw InputError("ranking set: expected " + std::to_string(n) + " scores");
}

std::vector<RankingExample> BuildExamples(const RankingSet& set) {
  std::vector<RankingExample> out;
  for (int64_t s = 0; s < set.sentences(); ++s) {
    const int64_t b = set.sentence_ptr[s], e = set.sentence_ptr[s + 1];
    if (e - b < 2) continue;
    bool all_equal = true;
    for (int64_t c = b + 1; c < e; ++c) {
      if (set.score[c] != set.score[b]) all_equal = false;
    }
    const int64_t best = OracleBest(
        b, e, [&](int64_t c) { return set.score[c]; }, [&](int64_t c) { return set.logprob[c]; });
    if (!all_equal) out.push_back({s, static_cast<int32_t>(best)});
  }
  return out;
}

}  // namespace structrank
