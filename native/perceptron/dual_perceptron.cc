#include "perceptron/dual_perceptron.h"

#include <unordered_map>

#include "core/errors.h"
#include "perceptron/kernel_cache.h"

namespace structrank {

DualModel TrainDualPerceptron(const RankingProblem& problem, const std::function<double(int64_t, int64_t)>& kernel,
                              const PerceptronOptions& options, std::size_t cache_capacity,
                              const std::atomic<bool>* cancel) {
  DualModel model;
  KernelCache cache(kernel, cache_capacity);
  // The support set: candidate -> coefficient (sum of +1 for best, -1 for other).
  std::unordered_map<int64_t, double> coefficient;
  std::vector<int64_t> support;  // candidates with a coefficient, in order of arrival
  auto score = [&](int64_t x) {
    double g = 0;
    for (int64_t c : support) {
      const double a = coefficient[c];
      if (a != 0) g += a * cache(c, x);
    }
    return g;
  };
  const std::vector<uint32_t> order = TrainingOrder(problem.num_sentences(), options);
  int64_t step = 0;
  for (uint32_t s : order) {
    ++step;
    if (cancel && (step & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    double best_score = 0, other_score = 0;
    const int64_t other = ArgmaxOther(problem, s, score, &best_score, &other_score);
    if (other < 0 || other_score < best_score) continue;
    const int64_t best = problem.Best(s);
    model.mistakes.push_back({step, best, other});
    for (auto [c, delta] : {std::pair<int64_t, double>{best, 1.0}, {other, -1.0}}) {
      auto it = coefficient.find(c);
      if (it == coefficient.end()) {
        coefficient.emplace(c, delta);
        support.push_back(c);
      } else {
        it->second += delta;
      }
    }
  }
  model.steps = step;
  return model;
}

namespace {

// Per mistake k and test candidate y: K(best_k, y) - K(other_k, y), each distinct support
// candidate evaluated once against each y. Row-major mistakes x m.
std::vector<double> MistakeDeltas(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel) {
  std::unordered_map<int64_t, std::vector<double>> rows;
  auto row = [&](int64_t c) -> const std::vector<double>& {
    auto it = rows.find(c);
    if (it != rows.end()) return it->second;
    std::vector<double> r(m);
    for (int32_t y = 0; y < m; ++y) r[y] = kernel(c, y);
    return rows.emplace(c, std::move(r)).first->second;
  };
  std::vector<double> deltas(model.mistakes.size() * m);
  for (std::size_t k = 0; k < model.mistakes.size(); ++k) {
    const std::vector<double>& b = row(model.mistakes[k].best);
    const std::vector<double>& o = row(model.mistakes[k].other);
    for (int32_t y = 0; y < m; ++y) deltas[k * m + y] = b[y] - o[y];
  }
  return deltas;
}

int32_t Argmax(const std::vector<double>& v) {
  int32_t arg = 0;
  for (int32_t y = 1; y < static_cast<int32_t>(v.size()); ++y)
    if (v[y] > v[arg]) arg = y;
  return arg;
}

}  // namespace

std::vector<double> ScoreDual(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel,
                              Voting voting) {
  if (m <= 0) throw InputError("a sentence needs at least one candidate");
  const std::vector<double> deltas = MistakeDeltas(model, m, kernel);
  std::vector<double> scores(m, 0.0);
  for (std::size_t k = 0; k < model.mistakes.size(); ++k) {
    // Mistake k belongs to G_t for t >= its step: n - step + 1 of the n hypotheses.
    const double weight = voting == Voting::kAveraged ? static_cast<double>(model.steps - model.mistakes[k].step + 1) : 1.0;
    for (int32_t y = 0; y < m; ++y) scores[y] += weight * deltas[k * m + y];
  }
  return scores;
}

int32_t PredictDual(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel,
                    Voting voting) {
  if (voting != Voting::kVoted) return Argmax(ScoreDual(model, m, kernel, voting));
  if (m <= 0) throw InputError("a sentence needs at least one candidate");
  const std::vector<double> deltas = MistakeDeltas(model, m, kernel);
  std::vector<double> scores(m, 0.0);
  std::vector<int64_t> votes(m, 0), last(m, -1);
  // G_1 .. G_{t_1 - 1} are zero: they pick candidate 0.
  const std::size_t k_count = model.mistakes.size();
  const int64_t first = k_count ? model.mistakes[0].step : model.steps + 1;
  if (first > 1) {
    votes[0] += first - 1;
    last[0] = first - 1;
  }
  for (std::size_t k = 0; k < k_count; ++k) {
    for (int32_t y = 0; y < m; ++y) scores[y] += deltas[k * m + y];
    // Several mistakes at one step cannot happen (one update per step), so G_{t_k} is the
    // sum of the first k+1 deltas and survives until the next mistake.
    const int64_t until = k + 1 < k_count ? model.mistakes[k + 1].step : model.steps + 1;
    const int32_t chosen = Argmax(scores);
    votes[chosen] += until - model.mistakes[k].step;
    last[chosen] = until - 1;
  }
  int32_t arg = 0;
  for (int32_t y = 1; y < m; ++y)
    if (votes[y] > votes[arg] || (votes[y] == votes[arg] && last[y] > last[arg])) arg = y;
  return arg;
}

}  // namespace structrank
