#include "perceptron/primal_perceptron.h"

#include "core/errors.h"

namespace structrank {

double Dot(const std::vector<double>& w, const CsrMatrix& x, int64_t row) {
  double s = 0;
  for (int64_t k = x.RowBegin(row); k < x.RowEnd(row); ++k) s += w[x.cols[k]] * x.Value(k);
  return s;
}

PrimalModel TrainPrimalPerceptron(const RankingProblem& problem, const CsrMatrix& features, int32_t num_features,
                                  const PerceptronOptions& options, const std::atomic<bool>* cancel) {
  if (features.rows() != problem.num_candidates()) throw InputError("one feature row per candidate is needed");
  features.Validate(num_features);
  PrimalModel model;
  model.weights.assign(num_features, 0.0);
  model.summed_weights.assign(num_features, 0.0);
  // Lazy averaging: summed = sum_t W_t, kept as n*W - sum_k (step_k - 1) * update_k.
  std::vector<double> correction(num_features, 0.0);
  const std::vector<uint32_t> order = TrainingOrder(problem.num_sentences(), options);
  int64_t step = 0;
  auto score = [&](int64_t c) { return Dot(model.weights, features, c); };
  for (uint32_t s : order) {
    ++step;
    if (cancel && (step & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    double best_score = 0, other_score = 0;
    const int64_t other = ArgmaxOther(problem, s, score, &best_score, &other_score);
    if (other < 0 || other_score < best_score) continue;
    const int64_t best = problem.Best(s);
    model.mistakes.push_back({step, best, other});
    for (auto [c, sign] : {std::pair<int64_t, double>{best, 1.0}, {other, -1.0}}) {
      for (int64_t k = features.RowBegin(c); k < features.RowEnd(c); ++k) {
        const double u = sign * features.Value(k);
        model.weights[features.cols[k]] += u;
        correction[features.cols[k]] += static_cast<double>(step - 1) * u;
      }
    }
  }
  model.steps = step;
  for (int32_t f = 0; f < num_features; ++f)
    model.summed_weights[f] = static_cast<double>(step) * model.weights[f] - correction[f];
  return model;
}

}  // namespace structrank
