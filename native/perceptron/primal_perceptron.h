// The primal ranking perceptron over sparse explicit features (SPEC section 4, seed 000
// fig. 1a): W = 0; on sentence i, the best other candidate j (argmax W.Phi, lowest index on
// ties) is a mistake when W.Phi(x_ij) >= W.Phi(x_i1); then W += Phi(x_i1) - Phi(x_ij).
// Same visiting order and tie rules as the dual form, so with the linear kernel both make
// the same mistakes.
#pragma once
#include <atomic>
#include <vector>

#include "core/csr.h"
#include "perceptron/ranking_problem.h"

namespace structrank {

struct PrimalModel {
  std::vector<double> weights;        // final W
  std::vector<double> summed_weights; // sum_t W_t over the n steps (averaged = this / n)
  std::vector<Mistake> mistakes;
  int64_t steps = 0;
};

// `features`: one row per candidate (rows = problem.num_candidates()).
PrimalModel TrainPrimalPerceptron(const RankingProblem& problem, const CsrMatrix& features, int32_t num_features,
                                  const PerceptronOptions& options, const std::atomic<bool>* cancel = nullptr);

double Dot(const std::vector<double>& w, const CsrMatrix& features, int64_t row);

}  // namespace structrank
