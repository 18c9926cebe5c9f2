#include "boost/rerank_eval.h"

#include <algorithm>

#include "core/candidate_order.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

std::vector<double> CandidateScores(const RerankData& data, double a0, const std::vector<double>& weights,
                                    int threads) {
  const int64_t C = data.candidates();
  const int64_t m = static_cast<int64_t>(weights.size());
  std::vector<double> F(C);
  ParallelFor(C, threads, 4096, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t c = b; c < e; ++c) {
      double f = a0 * data.logprob[c];
      for (int64_t q = data.features.row_ptr[c]; q < data.features.row_ptr[c + 1]; ++q) {
        int32_t k = data.features.cols[q];
        if (k < m) f += weights[k];
      }
      F[c] = f;
    }
  });
  return F;
}

// The candidate order of core/candidate_order.h: highest F, near-ties to the earlier one.
static int64_t ArgMax(const RerankData& data, const std::vector<double>& F, int64_t i) {
  if (data.sentence_ptr[i] == data.sentence_ptr[i + 1]) return -1;
  return FirstBest(data.sentence_ptr[i], data.sentence_ptr[i + 1], [&](int64_t c) { return F[c]; });
}

std::vector<int64_t> ChooseCandidates(const RerankData& data, const std::vector<double>& F) {
  std::vector<int64_t> chosen(data.sentences());
  for (int64_t i = 0; i < data.sentences(); ++i) chosen[i] = ArgMax(data, F, i);
  return chosen;
}

double ChosenScore(const RerankData& data, const std::vector<int64_t>& chosen) {
  if (static_cast<int64_t>(data.score.size()) != data.candidates())
    throw InputError("dev data has no scores");
  double sum = 0;
  for (int64_t c : chosen)
    if (c >= 0) sum += data.score[c];
  return sum;
}

std::vector<double> BoostPrefixCurve(const RerankData& dev, const BoostModel& model,
                                     const std::vector<int64_t>& checkpoints, int threads) {
  if (static_cast<int64_t>(dev.score.size()) != dev.candidates()) throw InputError("dev data has no scores");
  const int32_t m = model.num_features;
  // Inverted lists over the features the model ever picks (the others never change F).
  std::vector<char> used(m, 0);
  for (int32_t k : model.features) used[k] = 1;
  std::vector<int64_t> ptr(m + 1, 0);
  const int64_t C = dev.candidates();
  for (int64_t q = 0; q < dev.features.nnz(); ++q) {
    int32_t k = dev.features.cols[q];
    if (k < m && used[k]) ptr[k + 1]++;
  }
  for (int32_t k = 0; k < m; ++k) ptr[k + 1] += ptr[k];
  std::vector<int32_t> cands(ptr[m]);
  std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
  std::vector<int32_t> sentence_of(C);
  for (int64_t i = 0; i < dev.sentences(); ++i)
    for (int64_t c = dev.sentence_ptr[i]; c < dev.sentence_ptr[i + 1]; ++c)
      sentence_of[c] = static_cast<int32_t>(i);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t q = dev.features.row_ptr[c]; q < dev.features.row_ptr[c + 1]; ++q) {
      int32_t k = dev.features.cols[q];
      if (k < m && used[k]) cands[fill[k]++] = static_cast<int32_t>(c);
    }

  std::vector<double> F = CandidateScores(dev, model.a0, {}, threads);
  std::vector<int64_t> chosen = ChooseCandidates(dev, F);
  double total = ChosenScore(dev, chosen);
  std::vector<char> dirty(dev.sentences(), 0);
  std::vector<int32_t> dirty_list;
  std::vector<double> curve;
  int64_t t = 0;
  for (int64_t n : checkpoints) {
    n = std::min(n, model.rounds());
    for (; t < n; ++t) {
      const int32_t k = model.features[t];
      const double d = model.deltas[t];
      for (int64_t q = ptr[k]; q < ptr[k + 1]; ++q) {
        F[cands[q]] += d;
        int32_t i = sentence_of[cands[q]];
        if (!dirty[i]) dirty[i] = 1, dirty_list.push_back(i);
      }
    }
    for (int32_t i : dirty_list) {
      dirty[i] = 0;
      int64_t c = ArgMax(dev, F, i);
      total += dev.score[c] - dev.score[chosen[i]];
      chosen[i] = c;
    }
    dirty_list.clear();
    curve.push_back(total);
  }
  return curve;
}

}  // namespace structrank
