#include <cmath>
#include <random>
#include <vector>

#include "core/byte_io.h"
#include "core/test_harness.h"
#include "kernels/tree_kernel.h"
#include "perceptron/compressed_training_check.h"
#include "perceptron/random_trees.h"
#include "perceptron/reranker_model.h"
#include "perceptron/structured_banks.h"
#include "perceptron/tree_dag.h"

using namespace structrank;

TEST(dag_scores_equal_the_uncompressed_dual_model) {
  const double lambda = 0.4;
  TreeCandidateBank support(RandomTrees(300, 1), lambda);
  TreeCandidateBank query(RandomTrees(50, 2), lambda);
  std::mt19937_64 rng(3);
  std::vector<double> coef(support.size());
  for (double& c : coef) c = static_cast<double>(static_cast<int>(rng() % 7) - 3) * 0.5;
  TreeDag dag = TreeDag::Build(support.bank(), coef);
  CHECK(dag.size() < dag.forest_nodes() / 2);  // many repeated subtrees were merged
  auto scorer = support.CompressedScorer(coef, query);
  for (int32_t q = 0; q < query.size(); ++q) {
    double plain = 0;
    for (int32_t s = 0; s < support.size(); ++s) {
      if (coef[s] != 0)
        plain += coef[s] * SubsetTreeKernel(support.bank().Tree(s), query.bank().Tree(q), lambda);
    }
    const double fast = scorer->Score(q);
    CHECK(std::fabs(fast - plain) <= 1e-9 * std::max(1.0, std::fabs(plain)));
  }
}

TEST(compressed_and_uncompressed_models_choose_alike_after_training) {
  const double lambda = 0.3;
  PreorderTrees trees = RandomTrees(240, 5);
  RankingSet set;
  std::mt19937_64 rng(9);
  for (int s = 0; s < 40; ++s) {
    for (int c = 0; c < 6; ++c) {
      set.score.push_back(static_cast<double>(rng() % 4));
      set.logprob.push_back(-static_cast<double>(rng() % 20));
    }
    set.sentence_ptr.push_back(static_cast<int64_t>(set.score.size()));
  }
  TreeCandidateBank train(trees, lambda);
  PerceptronOptions opt;
  opt.threads = 2;
  opt.epochs = 2;
  opt.chunks = 2;
  RerankerModel model = RerankerModel::Train(train, set, 0.2, false, opt);
  CHECK(model.run().TotalMistakes() > 0);
  TreeCandidateBank query(RandomTrees(60, 6), lambda);
  RankingSet qset;
  for (int s = 0; s < 10; ++s) {
    for (int c = 0; c < 6; ++c) qset.logprob.push_back(-static_cast<double>(rng() % 20));
    qset.sentence_ptr.push_back(static_cast<int64_t>(qset.logprob.size()));
  }
  for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged, PredictMode::kVoted}) {
    std::vector<double> a, b;
    auto ca = model.Choose(query, qset, mode, 2, nullptr, &a, true);
    auto cb = model.Choose(query, qset, mode, 1, nullptr, &b, false);
    CHECK(ca == cb);
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK(std::fabs(a[k] - b[k]) <= 1e-9 * std::max(1.0, std::fabs(b[k])));
  }

  // Save / load keeps every choice (voted included).
  ByteWriter w;
  model.Save(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  RerankerModel back = RerankerModel::Load(r);
  for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged, PredictMode::kVoted}) {
    std::vector<double> a, b;
    CHECK(model.Choose(query, qset, mode, 1, nullptr, &a) == back.Choose(query, qset, mode, 1, nullptr, &b));
    CHECK(a == b);
  }
  for (std::size_t cut : {w.bytes().size() / 3, w.bytes().size() - 2}) {
    ByteReader shortr(w.bytes().data(), cut);
    CHECK_THROWS(RerankerModel::Load(shortr));
  }
}

TEST(dag_training_makes_the_kernel_training_decisions) {
  // Sums in another order differ by rounding only; ScoreAbove treats that as a tie.
  const double lambda = 0.4;
  TreeCandidateBank train(RandomTrees(300, 11), lambda);
  RankingSet set;
  std::mt19937_64 rng(12);
  for (int s = 0; s < 50; ++s) {
    for (int c = 0; c < 6; ++c) {
      set.score.push_back(static_cast<double>(rng() % 4));
      set.logprob.push_back(-static_cast<double>(rng() % 8));
    }
    set.sentence_ptr.push_back(static_cast<int64_t>(set.score.size()));
  }
  for (double beta : {0.0, 0.25}) CheckCompressedTrainingAgrees(train, set, beta);
}

TEST(dag_kernel_columns_equal_kernel_calls) {
  const double lambda = 0.4;
  TreeCandidateBank support(RandomTrees(120, 21), lambda);
  TreeCandidateBank query(RandomTrees(30, 22), lambda);
  auto columns = support.CompressedColumns(query);
  std::vector<double> out(support.size());
  for (int32_t q = 0; q < query.size(); ++q) {
    columns->Column(q, out.data());
    for (int32_t s = 0; s < support.size(); ++s) {
      const double k = SubsetTreeKernel(support.bank().Tree(s), query.bank().Tree(q), lambda);
      CHECK(std::fabs(out[s] - k) <= 1e-9 * std::max(1.0, k));
    }
  }
}
