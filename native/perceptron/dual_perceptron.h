// The dual (kernel) ranking perceptron of Collins & Duffy (SPEC section 4):
//   G(x) = sum over mistakes k of K(best_k, x) - K(other_k, x)
// trained by visiting sentences (T epochs, seeded order); on sentence i the best other
// candidate j (argmax G, lowest index on ties) is a mistake when G(x_ij) >= G(x_i1).
// The model is its list of mistakes and the number of steps n, which is all the voted and
// averaged predictions need: G_t (after step t) = the mistakes with step <= t.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "perceptron/ranking_problem.h"

namespace structrank {

struct DualModel {
  std::vector<Mistake> mistakes;  // in step order
  int64_t steps = 0;              // n = epochs x sentences
};

// `kernel(a, b)` between training candidates; values are cached (bounded by
// `cache_capacity` entries) since the same pairs recur across sentences and epochs.
DualModel TrainDualPerceptron(const RankingProblem& problem, const std::function<double(int64_t, int64_t)>& kernel,
                              const PerceptronOptions& options, std::size_t cache_capacity = 1 << 22,
                              const std::atomic<bool>* cancel = nullptr);

enum class Voting { kLast, kAveraged, kVoted };

// Chooses among `m` test candidates. `kernel(c, y)` = K(training candidate c, test candidate y).
// kLast: argmax of the final G. kAveraged: argmax of the mean of G_1..G_n. kVoted: the
// candidate chosen most often by G_1..G_n (each hypothesis picks its argmax, lowest index on
// ties; a tie in votes goes to the candidate chosen by the later G). Each support candidate
// is compared with each test candidate once.
int32_t PredictDual(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel,
                    Voting voting);

// Scores of the m test candidates under the final G (kLast) or the mean of G_1..G_n
// (kAveraged, scaled by n: sum_t G_t).
std::vector<double> ScoreDual(const DualModel& model, int32_t m, const std::function<double(int64_t, int32_t)>& kernel,
                              Voting voting);

}  // namespace structrank
