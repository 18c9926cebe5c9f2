#include "boost/loglinear_reranker.h"

#include <cmath>
#include <memory>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

double LoglinearObjective(const RerankData& data, const std::vector<int64_t>& best, double l2,
                          const std::vector<double>& params, std::vector<double>& grad, int threads) {
  const int64_t S = data.sentences();
  const std::size_t n = params.size();
  const int T = threads;
  std::vector<std::vector<double>> part(T, std::vector<double>(n, 0.0));
  std::vector<double> loss_part(T, 0.0);
  ParallelForFixed(S, T, 256, [&](std::size_t b, std::size_t e, int t) {
    std::vector<double>& g = part[t];
    std::vector<double> F;
    for (std::size_t i = b; i < e; ++i) {
      const int64_t c0 = data.sentence_ptr[i], c1 = data.sentence_ptr[i + 1];
      if (c0 == c1) continue;
      F.resize(c1 - c0);
      double mx = -INFINITY;
      for (int64_t c = c0; c < c1; ++c) {
        double f = params[0] * data.logprob[c];
        for (int64_t q = data.features.row_ptr[c]; q < data.features.row_ptr[c + 1]; ++q)
          f += params[1 + data.features.cols[q]];
        F[c - c0] = f;
        mx = std::max(mx, f);
      }
      double z = 0;
      for (double f : F) z += std::exp(f - mx);
      const double logz = mx + std::log(z);
      const int64_t bc = best[i];
      loss_part[t] += logz - F[bc - c0];
      for (int64_t c = c0; c < c1; ++c) {
        double p = std::exp(F[c - c0] - logz) - (c == bc ? 1.0 : 0.0);
        g[0] += p * data.logprob[c];
        for (int64_t q = data.features.row_ptr[c]; q < data.features.row_ptr[c + 1]; ++q)
          g[1 + data.features.cols[q]] += p;
      }
    }
  });
  grad.assign(n, 0.0);
  double loss = 0;
  for (int t = 0; t < T; ++t) {
    loss += loss_part[t];
    for (std::size_t k = 0; k < n; ++k) grad[k] += part[t][k];
  }
  for (std::size_t k = 1; k < n; ++k) {
    loss += l2 * params[k] * params[k];
    grad[k] += 2 * l2 * params[k];
  }
  return loss;
}

LoglinearResult TrainLoglinear(const RerankData& data, double l2, int max_iterations, int threads,
                               const IterationCallback& callback, const std::atomic<bool>* cancel) {
  LoglinearResult r = TrainLoglinear(data, l2, max_iterations, threads, {}, callback, cancel);
  r.state.clear();
  return r;
}

LoglinearResult TrainLoglinear(const RerankData& data, double l2, int max_iterations, int threads,
                               const std::vector<uint8_t>& resume, const IterationCallback& callback,
                               const std::atomic<bool>* cancel) {
  data.Validate(true);
  std::vector<int64_t> best(data.sentences());
  for (int64_t i = 0; i < data.sentences(); ++i)
    best[i] = data.sentence_ptr[i] == data.sentence_ptr[i + 1] ? -1 : BestCandidate(data, i);
  std::vector<double> x(1 + data.num_features, 0.0);
  x[0] = 1.0;  // start from the base model's ranking
  LoglinearResult r;
  auto objective = [&](const std::vector<double>& p, std::vector<double>& g) {
    return LoglinearObjective(data, best, l2, p, g, threads);
  };
  std::unique_ptr<Lbfgs> made;
  if (resume.empty()) {
    made = std::make_unique<Lbfgs>(objective, std::move(x));
  } else {
    ByteReader in(resume.data(), resume.size());
    made = std::make_unique<Lbfgs>(objective, in);
    if (!in.AtEnd() || made->x().size() != x.size())
      throw ModelError("checkpoint: L-BFGS state does not fit this reranking problem");
  }
  Lbfgs& lbfgs = *made;
  while (lbfgs.iterations() < max_iterations) {
    if (cancel && cancel->load()) throw Cancelled();
    if (!lbfgs.Iterate()) break;
    if (callback && !callback(lbfgs.iterations(), lbfgs.value())) break;
  }
  r.converged = lbfgs.converged();
  ByteWriter w;
  lbfgs.SaveState(w);
  r.state = std::move(w.bytes());
  r.iterations = lbfgs.iterations();
  r.objective = lbfgs.value();
  r.a0 = lbfgs.x()[0];
  r.weights.assign(lbfgs.x().begin() + 1, lbfgs.x().end());
  return r;
}

}  // namespace structrank
