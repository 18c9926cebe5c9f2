#include "tagger/maxent_encoder.h"

#include <algorithm>
#include <cmath>

#include "core/thread_pool.h"

namespace structrank {

double MaxentObjective(const TaggerModel& model, const TaggerCorpus& corpus, const std::vector<double>& w,
                       std::vector<double>& grad, double c2, int threads, const std::atomic<bool>* cancel) {
  const int32_t L = model.num_labels();
  const int nthreads = threads;
  std::vector<ObjectiveScratch> buffers(nthreads);
  for (auto& b : buffers) b.grad.assign(w.size(), 0.0);
  ParallelForFixed(
      static_cast<std::size_t>(corpus.sentences()), nthreads, 64,
      [&](std::size_t first, std::size_t last, int thread) {
        ObjectiveScratch& b = buffers[thread];
        for (std::size_t s = first; s < last; ++s) {
          const int32_t n = SentenceLength(corpus, s);
          if (n == 0) continue;
          const int32_t* gold = &corpus.labels[corpus.sentence_start[s]];
          b.emissions.resize(static_cast<std::size_t>(n) * L);
          model.Emissions(corpus, s, w.data(), b.emissions.data());
          const bool edges = model.has_edge_features();
          const int32_t P = model.num_pairs();
          if (edges) {
            b.pairs.resize(static_cast<std::size_t>(n) * P);
            model.EdgeScores(corpus, s, w.data(), b.pairs.data());
          }
          // Turn each row of emissions into (softmax - gold indicator), in place.
          for (int32_t i = 0; i < n; ++i) {
            double* x = &b.emissions[static_cast<std::size_t>(i) * L];
            int32_t prev = i > 0 ? gold[i - 1] : L;
            int32_t prev2 = i > 1 ? gold[i - 2] : L;
            for (int32_t y = 0; y < L; ++y) {
              x[y] += w[model.Trans1(prev, y)];
              if (model.order == 2 && i > 0) x[y] += w[model.Trans2(prev2, prev, y)];
              if (edges) x[y] += b.pairs[static_cast<std::size_t>(i) * P + prev * L + y];
            }
            double m = *std::max_element(x, x + L), z = 0;
            for (int32_t y = 0; y < L; ++y) z += std::exp(x[y] - m);
            double log_z = m + std::log(z);
            b.loss += log_z - x[gold[i]];
            for (int32_t y = 0; y < L; ++y) {
              double p = std::exp(x[y] - log_z) - (y == gold[i] ? 1.0 : 0.0);
              x[y] = p;
              b.grad[model.Trans1(prev, y)] += p;
              if (model.order == 2 && i > 0) b.grad[model.Trans2(prev2, prev, y)] += p;
            }
            if (edges) {  // edge features whose pair starts at the gold previous tag
              const int64_t t = corpus.sentence_start[s] + i;
              const int64_t F = model.num_node_features();
              for (int64_t k = corpus.edge_attributes.RowBegin(t); k < corpus.edge_attributes.RowEnd(t);
                   ++k) {
                int32_t a = corpus.edge_attributes.cols[k];
                for (int64_t g = model.edge_offset[a]; g < model.edge_offset[a + 1]; ++g) {
                  int32_t pair = model.edge_pair[g];
                  if (pair / L == prev) b.grad[F + g] += x[pair % L];
                }
              }
            }
          }
          AddEmissionGradient(model, corpus, s, b.emissions.data(), 1.0, b.grad.data());
        }
      },
      cancel);
  double loss = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    loss += c2 * w[k] * w[k];
    grad[k] = 2 * c2 * w[k];
  }
  loss = SumThreadGradients(buffers, nullptr, grad, loss);
  return loss;
}

}  // namespace structrank
