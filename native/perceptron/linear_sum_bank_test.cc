#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/byte_io.h"
#include "core/test_harness.h"
#include "kernels/tree_kernel.h"
#include "perceptron/compressed_training_check.h"
#include "perceptron/linear_sum_bank.h"
#include "perceptron/random_trees.h"
#include "perceptron/reranker_model.h"
#include "perceptron/structured_banks.h"

using namespace structrank;

namespace {

// n rows of a few features out of `features`, values 1 or 2 (unsorted, some repeated).
CsrMatrix RandomRows(int n, int features, uint64_t seed) {
  std::mt19937_64 rng(seed);
  CsrMatrix m;
  for (int r = 0; r < n; ++r) {
    const int k = 1 + static_cast<int>(rng() % 6);
    for (int j = 0; j < k; ++j) {
      m.cols.push_back(static_cast<int32_t>(rng() % features));
      m.values.push_back(static_cast<float>(1 + rng() % 2));
    }
    m.row_ptr.push_back(static_cast<int64_t>(m.cols.size()));
  }
  return m;
}

LinearSumBank SumBank(int n, uint64_t seed, double lambda, double weight) {
  return LinearSumBank(std::make_unique<TreeCandidateBank>(RandomTrees(n, seed), lambda),
                       std::make_unique<LinearBank>(RandomRows(n, 40, seed + 100)), weight);
}

RankingSet RandomSet(int sentences, int per, uint64_t seed, bool scores) {
  std::mt19937_64 rng(seed);
  RankingSet set;
  for (int s = 0; s < sentences; ++s) {
    for (int c = 0; c < per; ++c) {
      if (scores) set.score.push_back(static_cast<double>(rng() % 4));
      set.logprob.push_back(-static_cast<double>(rng() % 8));
    }
    set.sentence_ptr.push_back(static_cast<int64_t>(set.logprob.size()));
  }
  return set;
}

}  // namespace

TEST(summed_kernel_is_the_tree_kernel_plus_weighted_feature_dot) {
  const double lambda = 0.4, weight = 0.7;
  LinearSumBank left = SumBank(30, 1, lambda, weight);
  LinearSumBank right = SumBank(20, 2, lambda, weight);
  const auto& lt = static_cast<const TreeCandidateBank&>(left.inner());
  const auto& rt = static_cast<const TreeCandidateBank&>(right.inner());
  auto kernel = left.KernelWith(right);
  for (int32_t a = 0; a < left.size(); ++a) {
    for (int32_t b = 0; b < right.size(); ++b) {
      const double want = SubsetTreeKernel(lt.bank().Tree(a), rt.bank().Tree(b), lambda) +
                          weight * SparseDot(left.features().rows(), a, right.features().rows(), b);
      CHECK(std::fabs((*kernel)(a, b) - want) <= 1e-12 * std::max(1.0, want));
    }
  }
}

TEST(summed_training_and_prediction_match_plain_kernel_sums) {
  LinearSumBank train = SumBank(300, 11, 0.4, 0.5);
  RankingSet set = RandomSet(50, 6, 12, true);
  for (double beta : {0.0, 0.25}) {
    RerankerModel model = CheckCompressedTrainingAgrees(train, set, beta);
    LinearSumBank query = SumBank(60, 13, 0.4, 0.5);
    RankingSet qset = RandomSet(10, 6, 14, false);
    for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged, PredictMode::kVoted}) {
      std::vector<double> a, b;
      auto fast = model.Choose(query, qset, mode, 2, nullptr, &a, true);
      auto plain = model.Choose(query, qset, mode, 1, nullptr, &b, false);
      CHECK(fast == plain);
      for (std::size_t k = 0; k < a.size(); ++k)
        CHECK(std::fabs(a[k] - b[k]) <= 1e-9 * std::max(1.0, std::fabs(b[k])));
    }
  }
}

TEST(features_change_the_tree_kernel_models_choices) {
  // With a large weight the features decide; with weight 0 the model is the tree kernel's.
  RankingSet set = RandomSet(50, 6, 22, true);
  PerceptronOptions opt;
  opt.threads = 2;
  opt.epochs = 2;
  TreeCandidateBank trees(RandomTrees(300, 21), 0.4);
  RerankerModel tree_only = RerankerModel::Train(trees, set, 0, false, opt);
  RerankerModel zero = RerankerModel::Train(SumBank(300, 21, 0.4, 0.0), set, 0, false, opt);
  RerankerModel heavy = RerankerModel::Train(SumBank(300, 21, 0.4, 50.0), set, 0, false, opt);
  CHECK(SameDecisions(tree_only.run(), zero.run()));
  CHECK(!SameDecisions(tree_only.run(), heavy.run()));
}

TEST(summed_model_saves_compacts_and_loads) {
  LinearSumBank train = SumBank(200, 31, 0.3, 0.5);
  RankingSet set = RandomSet(40, 5, 32, true);
  PerceptronOptions opt;
  opt.threads = 2;
  opt.epochs = 2;
  RerankerModel model = RerankerModel::Train(train, set, 0.2, false, opt);
  LinearSumBank query = SumBank(50, 33, 0.3, 0.5);
  RankingSet qset = RandomSet(10, 5, 34, false);
  std::vector<double> before;
  model.Choose(query, qset, PredictMode::kAveraged, 1, nullptr, &before);
  const std::vector<int32_t> old_ids = model.CompactLinearFeatures();
  CHECK(!old_ids.empty() && old_ids.size() <= 40);
  // The query's feature ids renumbered as the support's were (unknown ones dropped).
  CsrMatrix q = query.features().rows();
  std::vector<int32_t> to_new(40, -1);
  for (std::size_t k = 0; k < old_ids.size(); ++k) to_new[old_ids[k]] = static_cast<int32_t>(k);
  CsrMatrix renumbered;
  for (int64_t r = 0; r < q.rows(); ++r) {
    for (int64_t k = q.RowBegin(r); k < q.RowEnd(r); ++k) {
      if (to_new[q.cols[k]] < 0) continue;
      renumbered.cols.push_back(to_new[q.cols[k]]);
      renumbered.values.push_back(q.values[k]);
    }
    renumbered.row_ptr.push_back(static_cast<int64_t>(renumbered.cols.size()));
  }
  LinearSumBank query2(std::make_unique<TreeCandidateBank>(RandomTrees(50, 33), 0.3),
                       std::make_unique<LinearBank>(std::move(renumbered)), 0.5);
  ByteWriter w;
  model.Save(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  RerankerModel back = RerankerModel::Load(r);
  CHECK(back.support().kind() == KernelKind::kLinearSum);
  for (PredictMode mode : {PredictMode::kAveraged, PredictMode::kVoted}) {
    std::vector<double> a, b;
    CHECK(model.Choose(query2, qset, mode, 1, nullptr, &a) ==
          back.Choose(query2, qset, mode, 1, nullptr, &b));
    CHECK(a == b);
  }
  std::vector<double> after;
  back.Choose(query2, qset, PredictMode::kAveraged, 1, nullptr, &after);
  for (std::size_t k = 0; k < after.size(); ++k)
    CHECK(std::fabs(after[k] - before[k]) <= 1e-9 * std::max(1.0, std::fabs(before[k])));
  ByteReader shortr(w.bytes().data(), w.bytes().size() - 3);
  CHECK_THROWS(RerankerModel::Load(shortr));
}

TEST(features_go_only_with_a_tree_or_tagging_kernel) {
  CHECK_THROWS(LinearSumBank(std::make_unique<LinearBank>(RandomRows(5, 4, 1)),
                             std::make_unique<LinearBank>(RandomRows(5, 4, 2)), 1.0));
  CHECK_THROWS(LinearSumBank(std::make_unique<TreeCandidateBank>(RandomTrees(5, 1), 0.4),
                             std::make_unique<LinearBank>(RandomRows(4, 4, 2)), 1.0));
  CHECK_THROWS(LinearSumBank(std::make_unique<TreeCandidateBank>(RandomTrees(5, 1), 0.4),
                             std::make_unique<LinearBank>(RandomRows(5, 4, 2)), -1.0));
}
