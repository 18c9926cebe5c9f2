// Ranking perceptron training (Collins & Duffy 2002a, figure 1): the primal form over sparse features
// and the dual form over any CandidateKernel. Both make the same decisions and return the
// same PerceptronRun; T epochs with seeded shuffling; the examples split into k chunks
// trained in parallel (Collins & Duffy 2002a, section 6.1), whose hypotheses are later voted together.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/csr.h"
#include "perceptron/candidate_kernel.h"
#include "perceptron/perceptron_run.h"
#include "perceptron/ranking_set.h"

namespace structrank {

struct PerceptronOptions {
  int epochs = 1;
  int chunks = 1;
  uint64_t seed = 1;
  bool shuffle = true;  // reshuffle each chunk's examples every epoch (seeded)
  int threads = 0;      // the caller's count, >= 1; chunks run in parallel, then candidates
  // Kernel values between training candidates are cached up to this many bytes in
  // total (dual form only); beyond it they are recomputed.
  int64_t cache_bytes = int64_t{512} << 20;
  // Dual form: train with the bank's compressed scorer when it has one (tree kernel: a
  // DAG of the support trees' shared subtrees, updated at each mistake).
  bool compressed = true;
  // A fixed prior on the base model: every hypothesis scores G(x) + base_weight * L(x), so
  // the kernel part must outweigh the base model's preference to change its choice.
  double base_weight = 0;
  // Called now and then (from a worker thread, serialized) with steps done, total steps
  // and mistakes so far.
  std::function<void(int64_t, int64_t, int64_t)> progress;
  const std::atomic<bool>* cancel = nullptr;
  // Continued training (a checkpoint): `resume` is the run of the first `resume_epochs`
  // epochs on the same set with the same options. Its shuffles and updates are replayed
  // (no scoring), so the remaining epochs make exactly the decisions of one long run.
  const PerceptronRun* resume = nullptr;
  int resume_epochs = 0;
};

struct TrainStats {
  int64_t kernel_calls = 0;  // kernel evaluations actually computed (dual)
  int64_t cache_hits = 0;
};

// A support list with coefficients, growing in the order candidates first err.
struct SupportList {
  std::vector<int32_t> candidates;
  std::vector<double> coef;
  std::unordered_map<int32_t, int32_t> index;

  int32_t Add(int32_t candidate) {
    auto it = index.find(candidate);
    if (it != index.end()) return it->second;
    const auto k = static_cast<int32_t>(candidates.size());
    index.emplace(candidate, k);
    candidates.push_back(candidate);
    coef.push_back(0.0);
    return k;
  }
};

// Scores one chunk's training candidates and learns from its mistakes: the pluggable part
// of training (primal weights, dual kernel sums, the compressed tree DAG). Score may be
// called concurrently for distinct candidates between updates.
class ChunkScorer {
 public:
  virtual ~ChunkScorer() = default;
  virtual double Score(int32_t candidate) = 0;
  // x_{i,1} = plus was beaten by minus: G += K(plus, .) - K(minus, .).
  virtual void Update(int32_t plus, int32_t minus) = 0;
  // Whether scoring a sentence's candidates is worth spreading over threads.
  virtual bool ParallelScoring() const { return true; }
  // Adds coef K'(candidate, .) to the hypothesis before training starts (parameter mixing
  // starts an epoch from given coefficients). Scorers that cannot throw InputError.
  virtual void Start(int32_t candidate, double coef);
  // Scores the candidates [begin, end) of one sentence at once into out[c - begin] and
  // returns true, or returns false to have them scored one by one. Scorers that share
  // work between a sentence's candidates override it (`threads` may be used inside).
  virtual bool ScoreSentence(int32_t /*begin*/, int32_t /*end*/, double* /*out*/, int /*threads*/) {
    return false;
  }
};
using ChunkScorerFactory = std::function<std::unique_ptr<ChunkScorer>()>;

// The training loop shared by every form: one scorer per chunk from `make_scorer`.
PerceptronRun TrainPerceptron(const RankingSet& set, const PerceptronOptions& options,
                              const ChunkScorerFactory& make_scorer);

// Dual form: G(x) = sum_s coef_s K(support_s, x); `kernel` takes two training
// candidate ids. The caller wraps it in CombinedKernel for beta * L(x) L(y).
PerceptronRun TrainDualPerceptron(const RankingSet& set, const CandidateKernel& kernel,
                                  const PerceptronOptions& options, TrainStats* stats = nullptr);

// Primal form: G(x) = W . Phi(x) (+ beta * L(x) * sum of L over the mistakes' terms).
// `features` has one canonical row per training candidate.
PerceptronRun TrainPrimalPerceptron(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                    double beta, const PerceptronOptions& options);

// The primal form's scorer, as a part of a summed kernel (linear_sum_bank.h).
ChunkScorerFactory PrimalTrainer(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                 double beta);

// Iterative parameter mixing (McDonald, Hall & Mann 2010): one epoch over the training
// examples of sentences [first, last), shuffled with options.seed, starting from the
// hypothesis G_0 = sum_c start[c] K'(c, .). Coefficients are dense over the set's candidates.
struct MixingEpochResult {
  std::vector<double> last;      // the hypothesis after the epoch
  std::vector<double> averaged;  // the mean of the hypotheses G_1..G_T after each example
  int64_t steps = 0;             // T: the examples visited
  int64_t mistakes = 0;
};

MixingEpochResult DualMixingEpoch(const RankingSet& set, const CandidateKernel& kernel,
                                  const PerceptronOptions& options, const std::vector<double>& start,
                                  int64_t first, int64_t last);
MixingEpochResult PrimalMixingEpoch(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                    double beta, const PerceptronOptions& options,
                                    const std::vector<double>& start, int64_t first, int64_t last);

}  // namespace structrank
