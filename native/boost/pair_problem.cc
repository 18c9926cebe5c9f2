#include "boost/pair_problem.h"

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// Writes (or only counts, when out is null) a \ b for sorted id ranges.
int64_t Difference(const int32_t* a, const int32_t* a_end, const int32_t* b, const int32_t* b_end,
                   int32_t* out) {
  int64_t n = 0;
  while (a != a_end) {
    if (b == b_end || *a < *b) {
      if (out) out[n] = *a;
      ++n;
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++a;
      ++b;
    }
  }
  return n;
}

void BuildInverted(const PairProblem& pp, bool plus, std::vector<int64_t>& ptr, std::vector<int32_t>& ids) {
  ptr.assign(pp.num_features + 1, 0);
  const int64_t P = pp.pairs();
  for (int64_t p = 0; p < P; ++p) {
    int64_t b = plus ? pp.pair_ptr[p] : pp.pair_split[p];
    int64_t e = plus ? pp.pair_split[p] : pp.pair_ptr[p + 1];
    for (int64_t k = b; k < e; ++k) ptr[pp.pair_features[k] + 1]++;
  }
  for (int32_t k = 0; k < pp.num_features; ++k) ptr[k + 1] += ptr[k];
  ids.resize(ptr.back());
  std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
  for (int64_t p = 0; p < P; ++p) {
    int64_t b = plus ? pp.pair_ptr[p] : pp.pair_split[p];
    int64_t e = plus ? pp.pair_split[p] : pp.pair_ptr[p + 1];
    for (int64_t k = b; k < e; ++k) ids[fill[pp.pair_features[k]]++] = static_cast<int32_t>(p);
  }
}

}  // namespace

PairProblem BuildPairs(const RerankData& data, PairWeighting weighting, int threads) {
  data.Validate(true);
  PairProblem pp;
  pp.num_features = data.num_features;
  const int64_t S = data.sentences();
  // Pass 1 (serial, cheap): which candidate pairs exist.
  std::vector<int64_t> best(S);
  std::vector<int64_t> pair_best, pair_other;
  for (int64_t i = 0; i < S; ++i) {
    best[i] = BestCandidate(data, i);
    for (int64_t c = data.sentence_ptr[i]; c < data.sentence_ptr[i + 1]; ++c) {
      if (c == best[i]) continue;
      double s = weighting == PairWeighting::kUniform ? 1.0 : data.score[best[i]] - data.score[c];
      if (s <= 0) continue;
      pair_best.push_back(best[i]);
      pair_other.push_back(c);
      pp.weight.push_back(s);
      pp.logprob_diff.push_back(data.logprob[best[i]] - data.logprob[c]);
    }
  }
  const int64_t P = pp.pairs();
  if (P > INT32_MAX) throw InputError("too many candidate pairs for int32 pair ids");
  const auto& F = data.features;
  auto row = [&](int64_t c) {
    return std::make_pair(F.cols.data() + F.row_ptr[c], F.cols.data() + F.row_ptr[c + 1]);
  };
  // Pass 2 (parallel): sizes of B+ and B-.
  std::vector<int64_t> plus_n(P), minus_n(P);
  ParallelFor(P, threads, 1024, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t p = b; p < e; ++p) {
      auto [x1, x1e] = row(pair_best[p]);
      auto [xj, xje] = row(pair_other[p]);
      plus_n[p] = Difference(x1, x1e, xj, xje, nullptr);
      minus_n[p] = Difference(xj, xje, x1, x1e, nullptr);
    }
  });
  pp.pair_ptr.resize(P + 1);
  pp.pair_split.resize(P);
  for (int64_t p = 0; p < P; ++p) {
    pp.pair_split[p] = pp.pair_ptr[p] + plus_n[p];
    pp.pair_ptr[p + 1] = pp.pair_split[p] + minus_n[p];
  }
  pp.pair_features.resize(pp.pair_ptr[P]);
  // Pass 3 (parallel): fill.
  ParallelFor(P, threads, 1024, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t p = b; p < e; ++p) {
      auto [x1, x1e] = row(pair_best[p]);
      auto [xj, xje] = row(pair_other[p]);
      Difference(x1, x1e, xj, xje, pp.pair_features.data() + pp.pair_ptr[p]);
      Difference(xj, xje, x1, x1e, pp.pair_features.data() + pp.pair_split[p]);
    }
  });
  BuildInverted(pp, true, pp.plus_ptr, pp.plus_pairs);
  BuildInverted(pp, false, pp.minus_ptr, pp.minus_pairs);
  return pp;
}

}  // namespace structrank
