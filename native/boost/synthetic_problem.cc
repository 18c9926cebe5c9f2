#include "boost/synthetic_problem.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/thread_pool.h"

namespace structrank {

namespace {

struct Rng {  // splitmix64: tiny, seedable, good enough for test data
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return (Next() >> 11) * (1.0 / 9007199254740992.0); }
  double Normal() {
    double u = std::max(Uniform(), 1e-300), v = Uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

struct SentenceOut {
  std::vector<int32_t> lengths, ids;
  std::vector<double> logprob, score;
};

}  // namespace

RerankData GenerateSynthetic(const SyntheticOptions& o) {
  const int32_t m = o.features;
  // Zipf CDF over a random permutation of feature ids, so frequent ids are spread out.
  std::vector<double> cdf(m);
  double total = 0;
  for (int32_t r = 0; r < m; ++r) cdf[r] = (total += std::pow(r + 1.0, -o.zipf_exponent));
  for (double& v : cdf) v /= total;
  std::vector<int32_t> perm(m);
  Rng prng{o.seed * 7919 + 17};
  for (int32_t r = 0; r < m; ++r) perm[r] = r;
  for (int32_t r = m - 1; r > 0; --r) std::swap(perm[r], perm[prng.Next() % (r + 1)]);
  // Hidden weights: one feature in five matters.
  std::vector<double> hidden(m, 0.0);
  for (int32_t k = 0; k < m; ++k)
    if (prng.Uniform() < 0.2) hidden[k] = prng.Normal();
  auto draw = [&](Rng& rng) {
    double u = rng.Uniform();
    int32_t r = static_cast<int32_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    return perm[std::min(r, m - 1)];
  };

  std::vector<SentenceOut> out(o.sentences);
  ParallelFor(o.sentences, o.threads, 64, [&](std::size_t b, std::size_t e, int) {
    std::vector<int32_t> core, row;
    for (std::size_t i = b; i < e; ++i) {
      Rng rng{o.seed ^ (0xD1B54A32D192ED03ULL * (i + 1))};
      SentenceOut& s = out[i];
      int32_t n = 1 + static_cast<int32_t>(rng.Next() % (2 * o.candidates_per_sentence - 1));
      core.clear();
      for (int32_t t = 0; t < o.shared_per_sentence; ++t) core.push_back(draw(rng));
      std::sort(core.begin(), core.end());
      core.erase(std::unique(core.begin(), core.end()), core.end());
      for (int32_t j = 0; j < n; ++j) {
        row.clear();
        const int32_t drop = o.private_per_candidate / 2;
        for (std::size_t t = 0; t < core.size(); ++t)
          if (rng.Next() % core.size() >= static_cast<uint64_t>(drop)) row.push_back(core[t]);
        for (int32_t t = 0; t < o.private_per_candidate; ++t) row.push_back(draw(rng));
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        double quality = 0;
        for (int32_t k : row) quality += hidden[k];
        s.lengths.push_back(static_cast<int32_t>(row.size()));
        s.ids.insert(s.ids.end(), row.begin(), row.end());
        s.logprob.push_back(-30 + 0.3 * quality + rng.Normal());
        s.score.push_back(std::round(std::max(0.0, 20 + 2 * quality + 2 * rng.Normal())));
      }
    }
  });
  RerankData d;
  d.num_features = m;
  int64_t nnz = 0, cands = 0;
  for (auto& s : out) nnz += s.ids.size(), cands += s.lengths.size();
  d.features.cols.reserve(nnz);
  d.features.row_ptr.reserve(cands + 1);
  d.logprob.reserve(cands);
  d.score.reserve(cands);
  for (auto& s : out) {
    int64_t at = 0;
    for (int32_t len : s.lengths) {
      d.features.AddRow(s.ids.data() + at, nullptr, len);
      at += len;
    }
    d.logprob.insert(d.logprob.end(), s.logprob.begin(), s.logprob.end());
    d.score.insert(d.score.end(), s.score.begin(), s.score.end());
    d.sentence_ptr.push_back(d.sentence_ptr.back() + static_cast<int64_t>(s.lengths.size()));
    s = SentenceOut();
  }
  return d;
}

}  // namespace structrank
