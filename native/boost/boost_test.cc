#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "boost/a0_search.h"
#include "boost/boost_model.h"
#include "boost/exp_loss_booster.h"
#include "boost/log_loss_selector.h"
#include "boost/loglinear_reranker.h"
#include "boost/pair_problem.h"
#include "boost/rerank_eval.h"
#include "boost/synthetic_problem.h"
#include "boost/tournament_tree.h"
#include "core/test_harness.h"

using namespace structrank;

static RerankData Small(uint64_t seed, int64_t sentences = 150, int32_t features = 400) {
  SyntheticOptions o;
  o.sentences = sentences;
  o.candidates_per_sentence = 6;
  o.features = features;
  o.shared_per_sentence = 25;
  o.private_per_candidate = 6;
  o.seed = seed;
  o.threads = 2;
  return GenerateSynthetic(o);
}

// ExpLoss(a_0, a) straight from the definition, for references.
static double ExpLossOf(const RerankData& d, PairWeighting wt, double a0, const std::vector<double>& a) {
  double z = 0;
  for (int64_t i = 0; i < d.sentences(); ++i) {
    int64_t b = BestCandidate(d, i);
    auto F = [&](int64_t c) {
      double f = a0 * d.logprob[c];
      for (int64_t q = d.features.row_ptr[c]; q < d.features.row_ptr[c + 1]; ++q) f += a[d.features.cols[q]];
      return f;
    };
    for (int64_t c = d.sentence_ptr[i]; c < d.sentence_ptr[i + 1]; ++c) {
      if (c == b) continue;
      double s = wt == PairWeighting::kUniform ? 1.0 : d.score[b] - d.score[c];
      if (s <= 0) continue;
      z += s * std::exp(-(F(b) - F(c)));
    }
  }
  return z;
}

TEST(synthetic_rows_are_sorted_and_seeded) {
  RerankData a = Small(3), b = Small(3);
  a.Validate(true);
  CHECK(a.features.cols == b.features.cols);
  CHECK(a.score == b.score);
  CHECK(a.sentences() == 150);
}

TEST(pairs_match_the_set_definitions) {
  RerankData d = Small(5, 40, 120);
  PairProblem pp = BuildPairs(d, PairWeighting::kUniform, 2);
  int64_t p = 0;
  for (int64_t i = 0; i < d.sentences(); ++i) {
    int64_t b = BestCandidate(d, i);
    std::set<int32_t> fb(d.features.cols.begin() + d.features.row_ptr[b],
                         d.features.cols.begin() + d.features.row_ptr[b + 1]);
    for (int64_t c = d.sentence_ptr[i]; c < d.sentence_ptr[i + 1]; ++c) {
      if (c == b) continue;
      std::set<int32_t> fc(d.features.cols.begin() + d.features.row_ptr[c],
                           d.features.cols.begin() + d.features.row_ptr[c + 1]);
      std::vector<int32_t> plus, minus;
      for (int32_t k : fb)
        if (!fc.count(k)) plus.push_back(k);
      for (int32_t k : fc)
        if (!fb.count(k)) minus.push_back(k);
      CHECK(std::vector<int32_t>(pp.pair_features.begin() + pp.pair_ptr[p],
                                 pp.pair_features.begin() + pp.pair_split[p]) == plus);
      CHECK(std::vector<int32_t>(pp.pair_features.begin() + pp.pair_split[p],
                                 pp.pair_features.begin() + pp.pair_ptr[p + 1]) == minus);
      CHECK(pp.logprob_diff[p] == d.logprob[b] - d.logprob[c]);
      for (int32_t k : plus)
        CHECK(std::binary_search(pp.plus_pairs.begin() + pp.plus_ptr[k],
                                 pp.plus_pairs.begin() + pp.plus_ptr[k + 1], (int32_t)p));
      for (int32_t k : minus)
        CHECK(std::binary_search(pp.minus_pairs.begin() + pp.minus_ptr[k],
                                 pp.minus_pairs.begin() + pp.minus_ptr[k + 1], (int32_t)p));
      ++p;
    }
  }
  CHECK(p == pp.pairs());
  CHECK(pp.plus_pairs.size() + pp.minus_pairs.size() == pp.pair_features.size());
}

TEST(a0_search_equals_brute_force) {
  for (uint64_t seed : {1, 2, 3}) {
    RerankData d = Small(seed, 60, 100);
    for (auto wt : {PairWeighting::kUniform, PairWeighting::kScoreDifference}) {
      PairProblem pp = BuildPairs(d, wt, 2);
      CHECK(SearchA0(pp, 2) == SearchA0BruteForce(pp, 2));
    }
  }
  // Competitors all worse under L: the loss falls all the way to the grid's end.
  RerankData d;
  d.num_features = 1;
  d.sentence_ptr = {0, 2};
  d.logprob = {-1, -5};
  d.score = {10, 0};
  d.features.AddRow(nullptr, nullptr, 0);
  d.features.AddRow(nullptr, nullptr, 0);
  PairProblem pp = BuildPairs(d, PairWeighting::kUniform, 1);
  CHECK(SearchA0(pp, 1) == 10.0);
  CHECK(SearchA0BruteForce(pp, 1) == 10.0);
}

TEST(sparse_equals_naive) {
  for (uint64_t seed : {11, 12, 13}) {
    for (auto wt : {PairWeighting::kUniform, PairWeighting::kScoreDifference}) {
      RerankData d = Small(seed);
      PairProblem pp = BuildPairs(d, wt, 2);
      double a0 = SearchA0(pp, 2);
      ExpLossBooster sparse(&pp, a0, 0.0025, false), naive(&pp, a0, 0.0025, true);
      int64_t ns = sparse.Run(300), nn = naive.Run(300);
      CHECK(ns == nn);
      const BoostModel& a = sparse.model();
      const BoostModel& b = naive.model();
      for (int64_t t = 0; t < ns; ++t) {
        CHECK(a.features[t] == b.features[t]);
        CHECK_NEAR(a.deltas[t], b.deltas[t], 1e-12);
        CHECK_NEAR(a.losses[t], b.losses[t], 1e-12);
        CHECK(a.costs[t] == b.costs[t]);
      }
    }
  }
}

TEST(sparse_equals_naive_when_a_feature_separates_every_pair) {
  // Feature 0 is on the best candidate of every sentence and on no other; feature 1 is on
  // every candidate. Each round on feature 0 divides the loss by about 20: the sparse rounds'
  // running sums of Z and W+/W- must follow it down (they stalled at their rounding error,
  // or turned negative and gave NaN deltas) as the naive rounds' fresh sums do.
  RerankData d;
  for (int s = 0; s < 40; ++s) {
    for (int c = 0; c < 3; ++c) {
      std::vector<int32_t> ids = c == 0 ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{1};
      d.features.AddRow(ids.data(), nullptr, static_cast<int64_t>(ids.size()));
      d.logprob.push_back(c == 0 ? -3.0 : -1.0 * c);
      d.score.push_back(c == 0 ? 0.0 : -100.0);
    }
    d.sentence_ptr.push_back(d.candidates());
  }
  d.num_features = 2;
  PairProblem pp = BuildPairs(d, PairWeighting::kScoreDifference, 1);
  ExpLossBooster sparse(&pp, 0.001, 0.0025, false), naive(&pp, 0.001, 0.0025, true);
  const int64_t rounds = sparse.Run(100);
  CHECK(rounds == 100);
  CHECK(naive.Run(100) == rounds);
  const BoostModel& a = sparse.model();
  const BoostModel& b = naive.model();
  for (int64_t t = 0; t < rounds; ++t) {
    CHECK(a.features[t] == 0 && b.features[t] == 0);
    CHECK(std::isfinite(a.deltas[t]) && a.deltas[t] > 0);
    CHECK_NEAR(a.deltas[t], b.deltas[t], 1e-9);
    CHECK_NEAR(a.losses[t], b.losses[t], 1e-6 * b.losses[t]);
  }
  CHECK(a.losses.back() < 1e-100 * a.initial_loss);
  CHECK_NEAR(a.losses.back(), ExpLossOf(d, PairWeighting::kScoreDifference, 0.001, a.Weights(rounds)),
             1e-6 * a.losses.back());
}

TEST(loss_never_increases_and_matches_definition) {
  RerankData d = Small(21);
  PairProblem pp = BuildPairs(d, PairWeighting::kScoreDifference, 2);
  double a0 = SearchA0(pp, 2);
  ExpLossBooster booster(&pp, a0, 0.001, false);
  booster.Run(1000);
  const BoostModel& m = booster.model();
  CHECK(m.rounds() > 100);
  double prev = m.initial_loss;
  CHECK_NEAR(prev, ExpLossOf(d, PairWeighting::kScoreDifference, a0, std::vector<double>(d.num_features, 0)),
             1e-12);
  for (int64_t t = 0; t < m.rounds(); ++t) {
    CHECK(m.losses[t] <= prev * (1 + 1e-12));
    prev = m.losses[t];
  }
  CHECK_NEAR(m.losses.back(), ExpLossOf(d, PairWeighting::kScoreDifference, a0, m.Weights(m.rounds())), 1e-9);
  CHECK(m.Work(m.rounds()) > 0);
  CHECK_NEAR(m.Savings(m.rounds()), m.rounds() / m.Work(m.rounds()), 1e-12);
}

TEST(closed_form_update_equals_numeric_minimization) {
  RerankData d = Small(31, 80, 200);
  PairProblem pp = BuildPairs(d, PairWeighting::kUniform, 2);
  double a0 = SearchA0(pp, 2);
  ExpLossBooster booster(&pp, a0, 0.0025, false);
  for (int round = 0; round < 3; ++round) {
    std::vector<double> a = booster.model().Weights(booster.model().rounds());
    const double Z = booster.loss();
    CHECK_NEAR(Z, ExpLossOf(d, PairWeighting::kUniform, a0, a), 1e-10);
    int checked = 0;
    for (int32_t k = 0; k < d.num_features && checked < 4; ++k) {
      const double wp = booster.plus(k), wm = booster.minus(k);
      if (wp < 1e-3 * Z || wm < 1e-3 * Z) continue;  // needs both sides for a finite minimum
      ++checked;
      auto loss_at = [&](double x) {
        std::vector<double> b = a;
        b[k] += x;
        return ExpLossOf(d, PairWeighting::kUniform, a0, b);
      };
      double lo = -20, hi = 20;
      const double r = (std::sqrt(5.0) - 1) / 2;
      for (int it = 0; it < 200; ++it) {
        double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
        if (loss_at(x1) < loss_at(x2))
          hi = x2;
        else
          lo = x1;
      }
      const double numeric = 0.5 * (lo + hi);
      CHECK_NEAR(0.5 * std::log(wp / wm), numeric, 1e-6);  // BestWt, eq. 15
      CHECK_NEAR(Z - std::pow(std::sqrt(wp) - std::sqrt(wm), 2), loss_at(numeric),
                 1e-10);  // BestLoss, eq. 16
    }
    CHECK(checked == 4);
    booster.Run(1);
    // The smoothed update has the exact one's sign and a smaller size.
    int32_t k = booster.model().features.back();
    (void)k;
    CHECK(booster.loss() < Z);
  }
}

TEST(tournament_tree_tracks_the_argmax) {
  std::vector<double> gains(1000);
  uint64_t s = 7;
  auto next = [&]() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (s >> 33) % 50;
  };
  for (auto& g : gains) g = static_cast<double>(next());
  TournamentTree tree(&gains);
  for (int step = 0; step < 2000; ++step) {
    int32_t f = static_cast<int32_t>(next() * 20 + next() % 20);
    gains[f] = static_cast<double>(next());
    tree.Update(f);
    int32_t best = 0;
    for (int32_t k = 1; k < 1000; ++k)
      if (gains[k] > gains[best]) best = k;
    CHECK(tree.Best() == best);
  }
}

TEST(boost_model_round_trip_and_rejects_bad_bytes) {
  RerankData d = Small(41);
  PairProblem pp = BuildPairs(d, PairWeighting::kScoreDifference, 2);
  ExpLossBooster booster(&pp, SearchA0(pp, 2), 0.0025, false);
  booster.Run(50);
  booster.model().chosen_rounds = 20;
  ByteWriter w;
  booster.model().Serialize(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  BoostModel back = BoostModel::Deserialize(r);
  CHECK(r.AtEnd());
  CHECK(back.features == booster.model().features);
  CHECK(back.deltas == booster.model().deltas);
  CHECK(back.chosen_rounds == 20);
  CHECK(back.a0 == booster.model().a0);
  ByteReader cut(w.bytes().data(), w.bytes().size() - 9);
  CHECK_THROWS(BoostModel::Deserialize(cut));
  auto bad = w.bytes();
  bad[4] = 0;
  bad[5] = 0;
  bad[6] = 0;
  bad[7] = 0;  // num_features = 0: ids out of range
  ByteReader br(bad.data(), bad.size());
  CHECK_THROWS(BoostModel::Deserialize(br));
}

TEST(prefix_curve_equals_fresh_evaluation) {
  RerankData train = Small(51), dev = Small(52, 60);
  PairProblem pp = BuildPairs(train, PairWeighting::kScoreDifference, 2);
  ExpLossBooster booster(&pp, SearchA0(pp, 2), 0.0025, false);
  booster.Run(200);
  const BoostModel& m = booster.model();
  std::vector<int64_t> checkpoints = {0, 1, 10, 50, 200};
  auto curve = BoostPrefixCurve(dev, m, checkpoints, 2);
  for (std::size_t c = 0; c < checkpoints.size(); ++c) {
    auto F = CandidateScores(dev, m.a0, m.Weights(checkpoints[c]), 2);
    CHECK_NEAR(curve[c], ChosenScore(dev, ChooseCandidates(dev, F)), 1e-9);
  }
}

TEST(log_loss_update_equals_numeric_minimization) {
  std::vector<FeatureSentenceMass> groups = {
      {0.3, true}, {0.8, false}, {0.1, true}, {0.5, true}, {0.99, false}};
  for (double l2 : {0.0, 0.1}) {
    double change = 0;
    double d = BestLogLossUpdate(groups, 0.2, l2, &change);
    auto f = [&](double x) {
      double v = l2 * ((0.2 + x) * (0.2 + x) - 0.04);
      for (auto& g : groups) v += std::log(1 - g.q + g.q * std::exp(x)) - (g.on_best ? x : 0);
      return v;
    };
    double lo = -20, hi = 20;
    const double r = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 200; ++it) {
      double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
      if (f(x1) < f(x2))
        hi = x2;
      else
        lo = x1;
    }
    CHECK_NEAR(d, 0.5 * (lo + hi), 1e-6);
    CHECK_NEAR(change, f(d), 1e-12);
  }
}

TEST(log_loss_selection_lowers_the_loss) {
  RerankData d = Small(61, 80, 200);
  LogLossSelector sel(&d, 0.01, 2);
  double before = sel.loss();
  sel.Run(30);
  const BoostModel& m = sel.model();
  CHECK(m.rounds() == 30);
  double prev = before;
  for (double l : m.losses) {
    CHECK(l <= prev * (1 + 1e-12));
    prev = l;
  }
  CHECK(m.losses.back() < before);
}

TEST(loglinear_gradient_matches_finite_differences_and_training_helps) {
  RerankData d = Small(71, 40, 80);
  std::vector<int64_t> best(d.sentences());
  for (int64_t i = 0; i < d.sentences(); ++i) best[i] = BestCandidate(d, i);
  std::vector<double> x(1 + d.num_features);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 0.01 * std::sin(3.0 * k);
  std::vector<double> g, g2;
  double f0 = LoglinearObjective(d, best, 0.1, x, g, 2);
  for (std::size_t k : {0ul, 1ul, 5ul, 33ul, 80ul}) {
    std::vector<double> xp = x, xm = x;
    xp[k] += 1e-6;
    xm[k] -= 1e-6;
    double num =
        (LoglinearObjective(d, best, 0.1, xp, g2, 1) - LoglinearObjective(d, best, 0.1, xm, g2, 1)) / 2e-6;
    CHECK_NEAR(g[k], num, 1e-5);
  }
  LoglinearResult r = TrainLoglinear(d, 0.1, 200, 2);
  CHECK(r.objective < f0);
  // A minimum: the gradient is (nearly) zero there.
  std::vector<double> at(1 + d.num_features);
  at[0] = r.a0;
  std::copy(r.weights.begin(), r.weights.end(), at.begin() + 1);
  LoglinearObjective(d, best, 0.1, at, g, 2);
  double gn = 0;
  for (double v : g) gn += v * v;
  CHECK(std::sqrt(gn) < 1e-2);
}

TEST(replayed_rounds_continue_as_one_run) {
  // A booster resumed from the first rounds of a run (a checkpoint) goes on exactly as the
  // run did: the same features, deltas and losses, bit for bit, sparse and naive.
  for (bool naive : {false, true}) {
    RerankData d = Small(31);
    PairProblem pp = BuildPairs(d, PairWeighting::kScoreDifference, 2);
    const double a0 = SearchA0(pp, 2);
    ExpLossBooster whole(&pp, a0, 0.0025, naive), first(&pp, a0, 0.0025, naive);
    const int64_t n = whole.Run(200);
    CHECK(n > 60);
    first.Run(60);
    ExpLossBooster resumed(&pp, a0, 0.0025, naive);
    resumed.Replay(first.model());
    CHECK(resumed.Run(200 - 60) == n - 60);
    const BoostModel& a = whole.model();
    const BoostModel& b = resumed.model();
    CHECK(a.features == b.features);
    CHECK(a.deltas == b.deltas);
    CHECK(a.losses == b.losses);
    CHECK(a.costs == b.costs);
    CHECK(whole.loss() == resumed.loss());
  }
}
