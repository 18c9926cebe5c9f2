#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "core/byte_io.h"
#include "core/errors.h"
#include "core/test_harness.h"
#include "perceptron/candidate_kernel.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_run.h"
#include "perceptron/perceptron_train.h"
#include "perceptron/ranking_set.h"

using namespace structrank;

namespace {

// Random ranking data with small integer features (so primal and dual sums are exact).
struct Toy {
  RankingSet set;
  CsrMatrix features;
  int32_t num_features = 0;
};

Toy MakeToy(int sentences, int max_candidates, int num_features, uint64_t seed, bool separable) {
  std::mt19937_64 rng(seed);
  Toy t;
  t.num_features = num_features;
  std::vector<double> hidden(num_features);
  for (double& w : hidden) w = static_cast<double>(rng() % 7) - 3.0;
  for (int s = 0; s < sentences; ++s) {
    const int m = 2 + static_cast<int>(rng() % (max_candidates - 1));
    for (int c = 0; c < m; ++c) {
      std::map<int32_t, float> row;
      const int nnz = 1 + static_cast<int>(rng() % 6);
      for (int k = 0; k < nnz; ++k)
        row[static_cast<int32_t>(rng() % num_features)] += 1.0f + static_cast<float>(rng() % 2);
      std::vector<int32_t> ids;
      std::vector<float> vals;
      double score = 0;
      for (auto& [id, v] : row) {
        ids.push_back(id);
        vals.push_back(v);
        score += hidden[id] * v;
      }
      if (!separable) score = static_cast<double>(rng() % 5);
      t.features.AddRow(ids.data(), vals.data(), static_cast<int64_t>(ids.size()));
      t.set.score.push_back(score);
      t.set.logprob.push_back(-static_cast<double>(rng() % 10));
    }
    t.set.sentence_ptr.push_back(static_cast<int64_t>(t.set.score.size()));
  }
  return t;
}

}  // namespace

TEST(examples_pick_best_by_score_then_logprob_and_skip_uninformative) {
  RankingSet set;
  set.sentence_ptr = {0, 3, 5, 6};
  set.score = {10, 12, 12, 7, 7, 3};
  set.logprob = {-1, -5, -2, -1, -2, -1};
  auto ex = BuildExamples(set);
  CHECK(ex.size() == 1);  // sentence 1 has one Score for all, sentence 2 one candidate
  CHECK(ex[0].sentence == 0);
  CHECK(ex[0].best == 2);  // Score 12 twice: the higher log-probability wins
}

TEST(dual_with_linear_kernel_makes_the_primal_decisions) {
  Toy t = MakeToy(60, 6, 25, 7, false);
  for (int chunks : {1, 3}) {
    for (double beta : {0.0, 0.5}) {
      PerceptronOptions opt;
      opt.epochs = 3;
      opt.chunks = chunks;
      opt.seed = 11;
      opt.threads = 2;
      PerceptronRun primal = TrainPrimalPerceptron(t.set, t.features, t.num_features, beta, opt);
      LinearKernel linear(&t.features, &t.features);
      CombinedKernel combined(&linear, beta, t.set.logprob.data(), t.set.logprob.data());
      PerceptronRun dual = TrainDualPerceptron(t.set, combined, opt);
      CHECK(primal.TotalMistakes() > 0);
      CHECK(SameDecisions(primal, dual));

      // The same choices on held-out sentences, primal (folded weights) vs dual scoring.
      Toy q = MakeToy(30, 6, 25, 99, false);
      CsrMatrix support_rows = SelectRows(t.features, dual.support);
      std::vector<double> support_lp;
      for (int32_t id : dual.support) support_lp.push_back(t.set.logprob[id]);
      LinearKernel cross(&support_rows, &q.features);
      CombinedKernel cross_combined(&cross, beta, support_lp.data(), q.set.logprob.data());
      for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged}) {
        std::vector<double> coef = dual.Coefficients(mode);
        DualCandidateScorer ds(coef, &cross_combined);
        LinearCandidateScorer ls(coef, support_rows, support_lp, beta, &q.features, q.set.logprob.data());
        std::vector<double> s1, s2;
        auto c1 = ChooseBest(q.set, ds, 2, nullptr, &s1);
        auto c2 = ChooseBest(q.set, ls, 1, nullptr, &s2);
        CHECK(c1 == c2);
        for (std::size_t k = 0; k < s1.size(); ++k) CHECK_NEAR(s1[k], s2[k], 1e-9);
      }
    }
  }
}

TEST(voted_prediction_equals_a_naive_vote_over_stored_hypotheses) {
  // With a base weight, every hypothesis (in training and in the vote) adds base_weight * L(x).
  for (double base_weight : {0.0, 0.7}) {
    Toy t = MakeToy(50, 5, 20, 3, false);
    PerceptronOptions opt;
    opt.threads = 2;
    opt.base_weight = base_weight;
    opt.epochs = 2;
    opt.chunks = 2;
    opt.seed = 5;
    LinearKernel train_kernel(&t.features, &t.features);
    PerceptronRun run = TrainDualPerceptron(t.set, train_kernel, opt);
    CHECK(run.TotalMistakes() > 3);

    Toy q = MakeToy(40, 7, 20, 17, false);
    CsrMatrix support_rows = SelectRows(t.features, run.support);
    LinearKernel cross(&support_rows, &q.features);
    std::vector<double> votes;
    KernelColumns columns(&cross, UsedSupport(run));
    auto fast = ChooseVoted(run, q.set, columns, 2, nullptr, &votes, base_weight);

    // Naive: materialize every hypothesis G_t as a full coefficient vector and evaluate it.
    std::vector<std::vector<double>> hypotheses;
    for (const auto& chunk : run.chunks) {
      std::vector<double> coef(run.support.size(), 0.0);
      std::size_t next = 0;
      for (int64_t step = 1; step <= chunk.steps; ++step) {
        while (next < chunk.mistakes.size() && chunk.mistakes[next].step == step) {
          coef[chunk.mistakes[next].plus] += 1;
          coef[chunk.mistakes[next].minus] -= 1;
          ++next;
        }
        hypotheses.push_back(coef);
      }
    }
    CHECK(static_cast<int64_t>(hypotheses.size()) == run.TotalSteps());
    for (int64_t s = 0; s < q.set.sentences(); ++s) {
      const int64_t b = q.set.sentence_ptr[s], e = q.set.sentence_ptr[s + 1];
      std::vector<int64_t> count(e - b, 0), last(e - b, -1);
      for (std::size_t h = 0; h < hypotheses.size(); ++h) {
        int64_t best = 0;
        double best_g = 0;
        for (int64_t c = 0; c < e - b; ++c) {
          double g = base_weight * q.set.logprob[b + c];
          for (std::size_t k = 0; k < run.support.size(); ++k) {
            g += hypotheses[h][k] * SparseDot(support_rows, k, q.features, b + c);
          }
          if (c == 0 || ScoreAbove(g, best_g)) {
            best = c;
            best_g = g;
          }
        }
        count[best]++;
        last[best] = static_cast<int64_t>(h);
      }
      int64_t winner = 0;
      for (int64_t c = 1; c < e - b; ++c) {
        if (count[c] > count[winner] || (count[c] == count[winner] && last[c] > last[winner])) winner = c;
      }
      CHECK(fast[s] == winner);
      for (int64_t c = 0; c < e - b; ++c) {
        CHECK_NEAR(votes[b + c], static_cast<double>(count[c]) / run.TotalSteps(), 1e-12);
      }
    }
  }
}

TEST(separable_data_reaches_zero_training_errors) {
  Toy t = MakeToy(80, 6, 12, 21, true);
  PerceptronOptions opt;
  opt.threads = 2;
  opt.epochs = 60;
  opt.seed = 2;
  LinearKernel kernel(&t.features, &t.features);
  PerceptronRun run = TrainDualPerceptron(t.set, kernel, opt);
  const auto& mistakes = run.chunks[0].mistakes;
  CHECK(!mistakes.empty());
  // Converged: the last epoch made no mistake.
  const int64_t per_epoch = run.chunks[0].steps / opt.epochs;
  CHECK(mistakes.back().step <= run.chunks[0].steps - per_epoch);
  CsrMatrix support_rows = SelectRows(t.features, run.support);
  LinearKernel cross(&support_rows, &t.features);
  DualCandidateScorer scorer(run.LastCoefficients(), &cross);
  auto chosen = ChooseBest(t.set, scorer, 1, nullptr);
  auto examples = BuildExamples(t.set);
  for (const auto& ex : examples) {
    const int64_t b = t.set.sentence_ptr[ex.sentence];
    CHECK(t.set.score[b + chosen[ex.sentence]] == t.set.score[ex.best]);
  }
}

TEST(training_is_deterministic_across_threads_and_cache_sizes) {
  Toy t = MakeToy(70, 6, 30, 4, false);
  LinearKernel kernel(&t.features, &t.features);
  PerceptronOptions opt;
  opt.epochs = 3;
  opt.chunks = 2;
  opt.threads = 1;
  TrainStats cached_stats, uncached_stats;
  PerceptronRun a = TrainDualPerceptron(t.set, kernel, opt, &cached_stats);
  opt.threads = 2;
  opt.cache_bytes = 0;
  PerceptronRun b = TrainDualPerceptron(t.set, kernel, opt, &uncached_stats);
  CHECK(SameDecisions(a, b));
  CHECK(cached_stats.cache_hits > 0);
  CHECK(uncached_stats.cache_hits == 0);
  CHECK(cached_stats.kernel_calls < uncached_stats.kernel_calls);
  opt.seed = 77;
  PerceptronRun c = TrainDualPerceptron(t.set, kernel, opt);
  CHECK(!SameDecisions(a, c));  // the seed changes the shuffled order
}

TEST(averaged_coefficients_are_the_mean_hypothesis) {
  PerceptronRun run;
  run.support = {0, 1, 2};
  PerceptronChunk chunk;
  chunk.steps = 4;
  chunk.mistakes = {{1, 0, 1}, {3, 2, 1}};
  run.chunks.push_back(chunk);
  auto avg = run.AveragedCoefficients();
  // G_1 = G_2 = (1,-1,0); G_3 = G_4 = (1,-2,1): mean (1, -1.5, 0.5)
  CHECK_NEAR(avg[0], 1.0, 1e-15);
  CHECK_NEAR(avg[1], -1.5, 1e-15);
  CHECK_NEAR(avg[2], 0.5, 1e-15);
  auto last = run.LastCoefficients();
  CHECK(last[1] == -2 && last[2] == 1);
}

TEST(run_round_trips_and_rejects_bad_bytes) {
  Toy t = MakeToy(30, 5, 10, 8, false);
  LinearKernel kernel(&t.features, &t.features);
  PerceptronOptions opt;
  opt.threads = 2;
  opt.epochs = 2;
  opt.chunks = 2;
  PerceptronRun run = TrainDualPerceptron(t.set, kernel, opt);
  ByteWriter w;
  run.Save(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  PerceptronRun back = PerceptronRun::Load(r);
  CHECK(r.AtEnd());
  CHECK(SameDecisions(run, back));
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, w.bytes().size() / 2, w.bytes().size() - 1}) {
    ByteReader shortr(w.bytes().data(), cut);
    CHECK_THROWS(PerceptronRun::Load(shortr));
  }
  std::vector<uint8_t> bad = w.bytes();
  bad.back() = 0x7f;  // a support index far out of range
  ByteReader badr(bad.data(), bad.size());
  CHECK_THROWS(PerceptronRun::Load(badr));
}

TEST(canonical_rows_sort_and_merge_duplicates) {
  CsrMatrix m;
  int32_t ids[] = {5, 2, 5};
  m.AddRow(ids, nullptr, 3);
  int32_t ids2[] = {1};
  m.AddRow(ids2, nullptr, 1);
  CanonicalizeRows(m);
  CHECK(m.cols == std::vector<int32_t>({2, 5, 1}));
  CHECK(m.Value(1) == 2.0f && m.Value(2) == 1.0f);
  CHECK_NEAR(SparseDot(m, 0, m, 0), 5.0, 1e-15);
}

TEST(a_large_base_weight_keeps_the_base_models_choice) {
  Toy t = MakeToy(40, 5, 20, 23, false);
  for (int64_t s = 0; s < t.set.sentences(); ++s) {  // distinct L(x), highest first
    for (int64_t c = t.set.sentence_ptr[s]; c < t.set.sentence_ptr[s + 1]; ++c) {
      t.set.logprob[c] = -static_cast<double>(c - t.set.sentence_ptr[s]);
    }
  }
  PerceptronOptions opt;
  opt.threads = 2;
  opt.base_weight = 1e6;
  LinearKernel kernel(&t.features, &t.features);
  PerceptronRun run = TrainDualPerceptron(t.set, kernel, opt);
  // Training then always picks the highest L(x), so every sentence whose highest-L
  // candidate scores below x_{i,1} is a mistake.
  int64_t expected = 0;
  for (const RankingExample& ex : BuildExamples(t.set)) {
    const int64_t b = t.set.sentence_ptr[ex.sentence], e = t.set.sentence_ptr[ex.sentence + 1];
    int64_t top = b;
    for (int64_t c = b + 1; c < e; ++c) {
      if (t.set.logprob[c] > t.set.logprob[top]) top = c;
    }
    if (t.set.score[top] < t.set.score[ex.best]) ++expected;
  }
  CHECK(run.TotalMistakes() == expected);
  CHECK(expected > 0);
}
