// The CRF-CFG's training objective over a corpus, as the training algorithms see it
// (CRFsuite's encoder_t): conditional log-likelihood with an L2 prior, or with `margin` its
// softmax-margin variant (CrfTrainOptions). The algorithms, one file each, drive it:
// crf_train_stochastic.cc (SGD or AdaGrad on batches drawn with replacement, as Finkel,
// Kleeman & Manning 2008 train, with iterate averaging) and crf_train_lbfgs.cc (full-batch
// L-BFGS); crf_train.h dispatches between them.
// Each training sentence is prefiltered once: a PCFG Viterbi inside-outside pass keeps the
// chart entries that can be part of a complete parse (and, with a finite beam, only those
// whose max-marginal is within `beam` of the best parse); the gold tree's entries are always
// kept. The surviving entries and the sentence's tokens are cached across passes.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "chart/chart_model.h"

namespace structrank {

struct CrfTrainOptions {
  int batch = 20;
  double eta0 = 0.1;
  double tau = 0;             // 0: the gain halves after 5 passes
  double sigma2 = 1.0;        // prior variance
  double beam = INFINITY;     // PCFG max-marginal beam for prefiltering (inf = boolean pass only)
  bool prior_at_pcfg = true;  // center the Gaussian prior at the PCFG starting point, not at 0
  int threads = 0;            // the caller's count, >= 1 (core/thread_pool.h)
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
  // Softmax-margin: the cost of each wrong (span, base category) added to a tree's score in
  // the normalizer (CrfSentence::AddSpanCost); 0 = conditional log-likelihood.
  double margin = 0;
};

// Objective (negative conditional log-likelihood, no prior) of one sentence, with its
// gradient added to `grad` when non-null. Uses `ch`'s masks if set. `margin` > 0: the
// softmax-margin objective, log sum_t exp(score(t) + margin * wrong(t)) - score(gold).
double CrfSentenceObjective(const ChartModel& m, const std::vector<Token>& tokens, const GoldItems& gold,
                            Chart& ch, double* grad, const SentenceFeatureIds* cached = nullptr,
                            SentenceFeatureIds* record = nullptr, double margin = 0);

// Builds the sparse feature dictionary from the gold trees and starts the weights at the
// PCFG (rule weights = log-probabilities, weight 1 on the PCFG lexicon score).
// verb_features: add the verb-lexicalized rule features (needs Grammar::is_verb).
// surface_bits > 0: the hashed surface span features (CrfWeights::surface_bits); tag_sets:
// they also see each word's tag set (CrfWeights::tag_sets); surface_rows: the table's layout
// (CrfWeights::surface_rows; false only to test the layout of older models); surface_clusters:
// they also see each word's cluster when the lexicon has clusters (CrfWeights::surface_clusters).
void InitCrf(ChartModel& m, const Corpus& corpus, const std::vector<GoldItems>& gold,
             bool verb_features = false, int surface_bits = 0, bool tag_sets = false,
             bool surface_rows = true, bool surface_clusters = true);

// The corpus objective at the model's weights (model.crf.theta), its sentences' prefilter
// masks and feature ids cached across evaluations, the gradients summed per thread.
class CrfObjective {
 public:
  CrfObjective(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold, const CrfTrainOptions& options);
  ChartModel& model() { return m_; }
  const ChartModel& model() const { return m_; }
  int32_t num_sentences() const { return corpus_.size(); }
  // Full-batch objective with prior; gradient into `grad`.
  double Full(std::vector<double>& grad, const std::atomic<bool>* cancel);
  // Distributed training (crf_shard.cc): the objective without the prior of sentences
  // [first, last) at weights `theta` (set as the model's), the gradient into `grad`.
  double Shard(const std::vector<double>& theta, int32_t first, int32_t last, std::vector<double>& grad,
               const std::atomic<bool>* cancel);
  // One stochastic batch (a sentence may come twice): each sentence's objective into
  // objective[b], the gradients summed into thread_gradients() (zero before unless
  // MarkGradientsClean() says they are); `records` (batch.size() entries) receives the
  // feature ids to cache, installed after the batch.
  void Batch(const std::vector<int32_t>& batch, std::vector<double>& objective,
             std::vector<SentenceFeatureIds>& records, const std::atomic<bool>* cancel);
  // Per-thread gradients of the last Batch; a step that zeroes every entry calls
  // MarkGradientsClean() so that the next batch skips the fill.
  std::vector<std::vector<double>>& thread_gradients() { return grads_; }
  void MarkGradientsClean() { grads_clean_ = true; }
  // The prior's mean (empty: 0).
  const std::vector<double>& prior_mean() const { return prior_mean_; }
  double kept_fraction() const {
    return total_entries_ ? static_cast<double>(kept_entries_) / total_entries_ : 1.0;
  }
  int64_t feature_cache_bytes() const { return cache_bytes_; }
  int64_t feature_cache_sentences() const { return cache_sentences_; }
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

  ChartModel& m_;
  Corpus corpus_;
  std::vector<GoldItems> gold_;
  CrfTrainOptions opt_;
  std::vector<Cached> cache_;
  int threads_;
  std::vector<Chart> charts_;
  std::vector<std::vector<double>> grads_;
  std::vector<double> prior_mean_;
  bool grads_clean_ = false;  // every entry of grads_ is zero (the stochastic update leaves them so)
  std::atomic<int64_t> kept_entries_{0}, total_entries_{0};
  std::atomic<int64_t> cache_bytes_{0}, cache_sentences_{0};
  std::atomic<int64_t> sentences_evaluated_{0};
};

}  // namespace structrank
