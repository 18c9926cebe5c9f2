// Dual vs primal perceptron with a linear kernel, voted vs a naive stored-hypotheses
// implementation, averaged scores, separable data.
#include <cmath>
#include <random>
#include <vector>

#include "core/csr.h"
#include "core/test_harness.h"
#include "perceptron/dual_perceptron.h"
#include "perceptron/primal_perceptron.h"

namespace structrank {
namespace {

struct Toy {
  RankingProblem problem;
  CsrMatrix features;
  int32_t num_features = 0;
};

// Random small-integer features; `separable` gives every best candidate feature 0 and
// every other candidate feature 1, so a weight vector ranks all best candidates first.
Toy RandomToy(uint32_t seed, int sentences, int num_features, bool separable) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> count(1, 5), feature(2, num_features - 1), value(1, 3), nnz(1, 6);
  Toy toy;
  toy.num_features = num_features;
  for (int s = 0; s < sentences; ++s) {
    const int m = count(rng);
    toy.problem.AddSentence(m);
    for (int c = 0; c < m; ++c) {
      std::vector<int32_t> ids;
      std::vector<float> vals;
      if (separable) {
        ids.push_back(c == 0 ? 0 : 1);
        vals.push_back(1.0f);
      }
      for (int k = nnz(rng); k > 0; --k) {
        ids.push_back(feature(rng));
        vals.push_back(static_cast<float>(value(rng)));
      }
      toy.features.AddRow(ids.data(), vals.data(), static_cast<int64_t>(ids.size()));
    }
  }
  return toy;
}

double Linear(const CsrMatrix& a, int64_t i, const CsrMatrix& b, int64_t j) {
  double s = 0;
  for (int64_t p = a.RowBegin(i); p < a.RowEnd(i); ++p)
    for (int64_t q = b.RowBegin(j); q < b.RowEnd(j); ++q)
      if (a.cols[p] == b.cols[q]) s += static_cast<double>(a.Value(p)) * b.Value(q);
  return s;
}

TEST(dual_equals_primal_with_a_linear_kernel) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Toy toy = RandomToy(seed, 60, 12, false);
    PerceptronOptions options;
    options.epochs = 4;
    options.seed = seed * 17;
    auto kernel = [&](int64_t a, int64_t b) { return Linear(toy.features, a, toy.features, b); };
    DualModel dual = TrainDualPerceptron(toy.problem, kernel, options, seed == 2 ? 5 : 1 << 20);
    PrimalModel primal = TrainPrimalPerceptron(toy.problem, toy.features, toy.num_features, options);
    CHECK(!dual.mistakes.empty());
    CHECK(dual.mistakes.size() == primal.mistakes.size());
    for (std::size_t k = 0; k < dual.mistakes.size(); ++k) {
      CHECK(dual.mistakes[k].step == primal.mistakes[k].step);
      CHECK(dual.mistakes[k].best == primal.mistakes[k].best);
      CHECK(dual.mistakes[k].other == primal.mistakes[k].other);
    }
    CHECK(dual.steps == primal.steps);
    // Scores on fresh test candidates: final and averaged.
    Toy test = RandomToy(seed + 100, 20, 12, false);
    for (std::size_t s = 0; s < test.problem.num_sentences(); ++s) {
      const int64_t begin = test.problem.Begin(s);
      const int32_t m = static_cast<int32_t>(test.problem.End(s) - begin);
      auto k = [&](int64_t c, int32_t y) { return Linear(toy.features, c, test.features, begin + y); };
      std::vector<double> last = ScoreDual(dual, m, k, Voting::kLast);
      std::vector<double> avg = ScoreDual(dual, m, k, Voting::kAveraged);
      for (int32_t y = 0; y < m; ++y) {
        CHECK_NEAR(last[y], Dot(primal.weights, test.features, begin + y), 1e-9);
        CHECK_NEAR(avg[y], Dot(primal.summed_weights, test.features, begin + y), 1e-9);
      }
    }
  }
}

// Stores every hypothesis G_1..G_n and lets each vote, with the documented tie rules.
int32_t NaiveVoted(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel) {
  std::vector<int64_t> votes(m, 0), last(m, -1);
  std::vector<std::vector<Mistake>> hypotheses;  // hypotheses[t-1] = the mistakes in G_t
  std::vector<Mistake> current;
  std::size_t next = 0;
  for (int64_t t = 1; t <= model.steps; ++t) {
    while (next < model.mistakes.size() && model.mistakes[next].step == t) current.push_back(model.mistakes[next++]);
    hypotheses.push_back(current);
  }
  for (int64_t t = 1; t <= model.steps; ++t) {
    std::vector<double> scores(m, 0.0);
    for (const Mistake& k : hypotheses[t - 1])
      for (int32_t y = 0; y < m; ++y) scores[y] += kernel(k.best, y) - kernel(k.other, y);
    int32_t arg = 0;
    for (int32_t y = 1; y < m; ++y)
      if (scores[y] > scores[arg]) arg = y;
    votes[arg]++;
    last[arg] = t;
  }
  int32_t arg = 0;
  for (int32_t y = 1; y < m; ++y)
    if (votes[y] > votes[arg] || (votes[y] == votes[arg] && last[y] > last[arg])) arg = y;
  return arg;
}

TEST(voted_equals_naive_stored_hypotheses) {
  int differs_from_last = 0;
  for (uint32_t seed : {5u, 6u}) {
    Toy toy = RandomToy(seed, 40, 10, false);
    PerceptronOptions options;
    options.epochs = 3;
    options.seed = seed;
    auto kernel = [&](int64_t a, int64_t b) {
      const double l = Linear(toy.features, a, toy.features, b);
      return (1 + l) * (1 + l);  // a polynomial kernel, to go beyond linear
    };
    DualModel model = TrainDualPerceptron(toy.problem, kernel, options);
    Toy test = RandomToy(seed + 50, 40, 10, false);
    for (std::size_t s = 0; s < test.problem.num_sentences(); ++s) {
      const int64_t begin = test.problem.Begin(s);
      const int32_t m = static_cast<int32_t>(test.problem.End(s) - begin);
      auto k = [&](int64_t c, int32_t y) {
        const double l = Linear(toy.features, c, test.features, begin + y);
        return (1 + l) * (1 + l);
      };
      const int32_t voted = PredictDual(model, m, k, Voting::kVoted);
      CHECK(voted == NaiveVoted(model, m, k));
      differs_from_last += voted != PredictDual(model, m, k, Voting::kLast);
    }
  }
  CHECK(differs_from_last > 0);  // the vote is not just the final hypothesis
}

TEST(separable_data_reaches_zero_training_errors) {
  Toy toy = RandomToy(9, 50, 10, true);
  PerceptronOptions options;
  options.epochs = 30;
  auto kernel = [&](int64_t a, int64_t b) { return Linear(toy.features, a, toy.features, b); };
  DualModel model = TrainDualPerceptron(toy.problem, kernel, options);
  CHECK(!model.mistakes.empty());
  const int64_t last_epoch_start = model.steps - static_cast<int64_t>(toy.problem.num_sentences());
  CHECK(model.mistakes.back().step <= last_epoch_start);
  // Every training sentence now ranks its best candidate strictly first.
  for (std::size_t s = 0; s < toy.problem.num_sentences(); ++s) {
    const int64_t begin = toy.problem.Begin(s);
    const int32_t m = static_cast<int32_t>(toy.problem.End(s) - begin);
    auto k = [&](int64_t c, int32_t y) { return kernel(c, begin + y); };
    std::vector<double> scores = ScoreDual(model, m, k, Voting::kLast);
    for (int32_t y = 1; y < m; ++y) CHECK(scores[0] > scores[y]);
  }
}

TEST(training_order_is_seeded) {
  PerceptronOptions options;
  options.epochs = 2;
  options.seed = 3;
  std::vector<uint32_t> a = TrainingOrder(50, options), b = TrainingOrder(50, options);
  CHECK(a == b);
  CHECK(a.size() == 100);
  CHECK(!std::equal(a.begin(), a.begin() + 50, a.begin() + 50));  // each epoch reshuffled
  options.seed = 4;
  CHECK(TrainingOrder(50, options) != a);
  options.epochs = 0;
  CHECK_THROWS(TrainingOrder(5, options));
}

}  // namespace
}  // namespace structrank
