// Training the CRF-CFG: conditional log-likelihood with an L2 prior, by SGD over batches
// drawn with replacement (as Finkel, Kleeman & Manning 2008 train), batch gradients computed across threads.
// Each training sentence is prefiltered once: a PCFG Viterbi inside-outside pass keeps the
// chart entries that can be part of a complete parse (and, with a finite beam, only those
// whose max-marginal is within `beam` of the best parse); the gold tree's entries are always
// kept. The surviving entries and the sentence's tokens are cached across passes.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "chart/chart_model.h"
#include "core/byte_io.h"
#include "optim/lbfgs.h"

namespace structrank {

struct CrfTrainOptions {
  int batch = 20;
  double eta0 = 0.1;
  double tau = 0;             // 0: the gain halves after 5 passes
  double sigma2 = 1.0;        // prior variance
  double beam = INFINITY;     // PCFG max-marginal beam for prefiltering (inf = boolean pass only)
  bool prior_at_pcfg = true;  // center the Gaussian prior at the PCFG starting point, not at 0
  int threads = 0;
  uint64_t seed = 1;
  // Cap on the per-sentence feature-id cache (SentenceFeatureIds kept across passes);
  // sentences past the cap resolve their ids by hash lookups on every pass. 0 = no cache.
  double feature_cache_mb = 1024;
  // Coarse-to-fine prefilter: keep the chart entries whose PCFG posterior is >= prune (and
  // the gold tree's); 0 = the max-marginal `beam` prefilter above.
  double prune = 0;
  // AdaGrad (per-weight step eta0 / sqrt(sum of squared gradients)) instead of the decaying
  // SGD gain.
  bool adagrad = false;
  // Iterate averaging: keep the running mean of the weights after each batch since the
  // last ResetAverage(); SwapAverage() exchanges it with the current weights (to evaluate
  // or save the averaged model). It damps the step-to-step noise of SGD/AdaGrad.
  bool average = false;
};

// Objective (negative conditional log-likelihood, no prior) of one sentence, with its
// gradient added to `grad` when non-null. Uses `ch`'s masks if set.
double CrfSentenceObjective(const ChartModel& m, const std::vector<Token>& tokens, const GoldItems& gold,
                            Chart& ch, double* grad, const SentenceFeatureIds* cached = nullptr,
                            SentenceFeatureIds* record = nullptr);

// Builds the sparse feature dictionary from the gold trees and starts the weights at the
// PCFG (rule weights = log-probabilities, weight 1 on the PCFG lexicon score).
// verb_features: add the verb-lexicalized rule features (needs Grammar::is_verb).
// surface_bits > 0: the hashed surface span features (CrfWeights::surface_bits).
void InitCrf(ChartModel& m, const Corpus& corpus, const std::vector<GoldItems>& gold,
             bool verb_features = false, int surface_bits = 0);

class CrfTrainer {
 public:
  CrfTrainer(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold, CrfTrainOptions options);
  // Runs `steps` SGD batches; returns the mean objective per sentence over them.
  double Steps(int steps, const std::atomic<bool>* cancel);
  // Runs `iterations` L-BFGS iterations (native/optim, history m = 10, backtracking Armijo
  // line search) on the full-batch objective; returns the objective per sentence (prior
  // included). Stops early once L-BFGS reports convergence.
  double LbfgsSteps(int iterations, const std::atomic<bool>* cancel);
  // Distributed training (crf_shard.cc): the objective without the prior of sentences
  // [first, last) at weights `theta` (set as the model's), the gradient into `grad`.
  double ShardObjective(const std::vector<double>& theta, int32_t first, int32_t last,
                        std::vector<double>& grad, const std::atomic<bool>* cancel);
  int64_t steps_done() const { return k_; }
  // Training checkpoints: the weights, the step count, the batch sampler's RNG, the AdaGrad
  // sums and the L-BFGS state; loaded into a fresh trainer of the same model, corpus and
  // options, the next steps are those of one uninterrupted run. (The prefilter and feature
  // caches are rebuilt as sentences come up: they change speed, not results.)
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in);
  // Iterate averaging (options.average): restart the mean; exchange the model's weights
  // with the mean of the iterates since the restart (a second call swaps them back).
  void ResetAverage();
  void SwapAverage();
  int32_t num_sentences() const { return corpus_.size(); }
  // Fraction of chart entries kept by prefiltering, over the sentences prefiltered so far.
  double kept_fraction() const {
    return total_entries_ ? static_cast<double>(kept_entries_) / total_entries_ : 1.0;
  }
  // Bytes held by the feature-id cache, and how many sentences it covers.
  int64_t feature_cache_bytes() const { return cache_bytes_; }
  int64_t feature_cache_sentences() const { return cache_sentences_; }
  // Sentence objectives computed so far over all calls (prefilter included): safe to read
  // from another thread while Steps or LbfgsSteps runs, for progress inside a pass.
  int64_t sentences_evaluated() const { return sentences_evaluated_.load(std::memory_order_relaxed); }

 private:
  struct Cached {
    bool ready = false;
    std::vector<Token> tokens;
    std::vector<int32_t> keep_pre, keep_post;  // allowed entries, cell * S + symbol
    bool ids_ready = false;
    SentenceFeatureIds ids;
  };
  void Prefilter(int32_t s, Chart& ch);
  // Adds the gold tree's entries to a prefiltered sentence's lists and marks it ready.
  void AddGoldAndFinish(int32_t s, Chart& ch);
  // Objective of sentence s with its gradient added to grad (masks from the cache); when
  // the sentence's feature ids are not cached yet and `record` is set, they go there.
  double SentenceTerm(int32_t s, Chart& ch, double* grad, SentenceFeatureIds* record);
  // Moves recorded ids into the cache while under the memory cap (single-threaded).
  void Install(int32_t s, SentenceFeatureIds& ids);
  // Full-batch objective with prior; gradient into `grad`.
  double FullObjective(std::vector<double>& grad, const std::atomic<bool>* cancel);
  // FullObjective as L-BFGS calls it: at the point it asks for (theta set from it), with the
  // cancel flag of the current LbfgsSteps call.
  Objective LbfgsObjective();
  static LbfgsOptions LbfgsSettings();
  // The AdaGrad step over all weights from the batch's gradients (zeroing them), the
  // iterates added to `sum` when averaging.
  void AdagradUpdate(double prior, double* sum);

  ChartModel& m_;
  Corpus corpus_;
  std::vector<GoldItems> gold_;
  CrfTrainOptions opt_;
  std::vector<Cached> cache_;
  std::mt19937_64 rng_;
  int64_t k_ = 0;
  int threads_;
  std::vector<Chart> charts_;
  std::vector<std::vector<double>> grads_;
  std::vector<double> prior_mean_;
  std::vector<double> adagrad_;      // sums of squared gradients
  bool grads_clean_ = false;         // every entry of grads_ is zero (Steps' update leaves them so)
  std::vector<double> average_sum_;  // sum of the iterates since ResetAverage (or the mean, while swapped in)
  int64_t average_count_ = 0;
  bool average_swapped_ = false;
  std::unique_ptr<Lbfgs> lbfgs_;
  const std::atomic<bool>* lbfgs_cancel_ = nullptr;
  std::atomic<int64_t> kept_entries_{0}, total_entries_{0};
  std::atomic<int64_t> cache_bytes_{0}, cache_sentences_{0};
  std::atomic<int64_t> sentences_evaluated_{0};
};

}  // namespace structrank
