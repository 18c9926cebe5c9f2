// Training and decoding for the three taggers over one TaggerModel:
//   averaged structured perceptron (Collins 2002): Viterbi, then W += Phi(gold) - Phi(guess);
//   CRF: -log P(gold) + c2 |w|^2, by L-BFGS (gradient over sentences on all cores) or by SGD
//        with a decaying gain eta_t = eta0 / (1 + lambda eta0 t);
//   maxent (Ratnaparkhi 1996): per-token softmax given the gold previous tags, by L-BFGS;
//        decoded by beam search.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "optim/lbfgs.h"
#include "tagger/chain.h"
#include "tagger/feature_index.h"
#include "tagger/model.h"

namespace structrank {

enum class CrfOptimizer : int32_t { kLbfgs = 0, kSgd = 1 };

struct TrainOptions {
  CrfOptimizer optimizer = CrfOptimizer::kLbfgs;
  double c2 = 1.0;    // L2 weight: objective adds c2 * |w|^2
  double eta0 = 0.1;  // SGD initial gain
  int threads = 0;    // 0 = all cores
  uint64_t seed = 1;  // sentence order shuffling (perceptron, SGD)
  bool shuffle = true;
  int lbfgs_memory = 6;
  // L-BFGS runs (CRF): first this many SGD epochs on the same objective, then L-BFGS from
  // there. SGD finds the neighbourhood of the optimum fast; L-BFGS then converges.
  int sgd_warmup = 0;
  // false: the (sentence start, label) transition weights stay 0, the objective CRFsuite's
  // crf1d optimizes (it has no start-of-sentence weights). CRF and perceptron.
  bool start_weights = true;
  // Perceptron: score tokens with the FeatureIndex layout (false: the model's own tables;
  // the same weights either way, see PerceptronEpoch).
  bool perceptron_slots = true;
};

// CRF objective sum_s (log Z_s - score(gold_s)) + c2 |w|^2 and its gradient. Without
// start_weights the gradient of the start-transition weights is 0, so they keep their value.
// `index`: the slot layout of the emission and gradient loops, built for `corpus`
// (feature_index.h); null: one is built here when the model fits (TaggerTrainer builds its
// own once); an empty one: the model's own tables, which give the same objective and
// gradient to the last bit on a corpus whose tokens list their dense attributes first.
// `scratch`: per-thread buffers kept by a caller that evaluates it many times (L-BFGS), so
// that an evaluation allocates nothing (the index's packs alone are 8 MB on conll2000, fresh
// pages to fault in and zero each time); null: buffers of the call's own.
struct ObjectiveScratch;
double CrfObjective(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                    const std::vector<double>& w, std::vector<double>& grad, double c2, int threads,
                    const std::atomic<bool>* cancel = nullptr, bool start_weights = true,
                    const FeatureIndex* index = nullptr, std::vector<ObjectiveScratch>* scratch = nullptr);
struct ObjectiveScratch {
  std::vector<double> grad, pack, emissions, marginals, edge, start, pairs;
  std::vector<int32_t> states;
  double loss = 0;
  bool clean = false;  // pack: all zeros but the weights Gather writes (AddTo resets the sums)
};

// Maxent objective: -sum_tokens log P(gold_i | gold history, i) + c2 |w|^2.
double MaxentObjective(const TaggerModel& model, const TaggerCorpus& corpus, const std::vector<double>& w,
                       std::vector<double>& grad, double c2, int threads,
                       const std::atomic<bool>* cancel = nullptr);

// Calls add(f) for every weight that fires on (sentence, labels): emission features that
// exist in the model and the transitions on the path. Used by the perceptron update.
// With `at` (one flag per token), emission features are visited only at flagged tokens and
// edge features only where the flagged token or its predecessor is: the perceptron update
// Phi(gold) - Phi(guess) cancels everywhere else, so it needs only the tokens that differ.
template <typename Add>
void ForEachPathWeight(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                       int64_t s, const int32_t* labels, Add&& add, const char* at = nullptr);

class TaggerTrainer {
 public:
  TaggerTrainer(TaggerModel& model, const TaggerCorpus& corpus, TrainOptions options);
  ~TaggerTrainer();
  // One unit of training: a pass over the data (perceptron, SGD) or one L-BFGS iteration.
  // Returns false when the optimizer has converged.
  bool Step(const std::atomic<bool>* cancel);
  // Writes the weights to use for tagging (averaged for the perceptron) into the model.
  void ExportWeights();
  // Training checkpoints: everything the next Step() depends on (weights, averaging sums and
  // counter, SGD scale and step, the shuffled order, L-BFGS history, step counter), so that
  // training N steps, saving, loading into a fresh trainer over the same corpus and options,
  // and training M more gives the same weights as N + M steps in one go.
  void SaveState(ByteWriter& out) const;
  void LoadState(ByteReader& in);
  double loss() const { return loss_; }  // objective (CRF, maxent) or mistaken sentences (perceptron)
  int steps() const { return steps_; }
  // The current (not averaged) weights: what a shard hands back for parameter mixing.
  const std::vector<double>& raw_weights() const { return w_; }

 private:
  void PerceptronEpoch(const std::atomic<bool>* cancel);
  void SgdEpoch(const std::atomic<bool>* cancel);
  void Shuffle();
  void ZeroStartWeights();
  Objective LbfgsObjective();

  TaggerModel& model_;
  const TaggerCorpus& corpus_;
  TrainOptions options_;
  ChainLattice lat_;
  std::vector<double> w_, u_;  // perceptron: current weights and the averaging accumulator
  double c_ = 1;               // perceptron update counter
  double scale_ = 1;           // SGD: weights = scale_ * w_
  int64_t t_ = 0;              // SGD step
  std::vector<int64_t> order_;
  bool use_lbfgs_ = false;
  std::unique_ptr<Lbfgs> lbfgs_;
  FeatureIndex index_;  // CRF L-BFGS and perceptron: the slot layout of the loops (empty: none)
  // Perceptron: the node weights in index_'s layout, kept equal to w_ during an epoch, and
  // each node feature's position in it (built by the first epoch that uses them).
  std::vector<double> pack_;
  std::vector<uint32_t> pack_at_;
  std::vector<ObjectiveScratch> scratch_;      // CRF L-BFGS: CrfObjective's buffers
  const std::atomic<bool>* cancel_ = nullptr;  // for the L-BFGS objective
  double loss_ = 0;
  int steps_ = 0;
  bool converged_ = false;
};

// Decodes one sentence: the k best label sequences with their scores (perceptron) or
// log-probabilities (CRF: exact; maxent: from the beam).
class SentenceTagger {
 public:
  explicit SentenceTagger(const TaggerModel& model);
  std::vector<Candidate> Decode(const TaggerCorpus& corpus, int64_t s, int32_t k);
  // Best sequence only, written into labels (fast path).
  void Best(const TaggerCorpus& corpus, int64_t s, int32_t* labels);

 private:
  std::vector<Candidate> Beam(int32_t n, const double* emissions, int32_t k);
  void SetPairScores(const TaggerCorpus& corpus, int64_t s, int32_t n);
  const TaggerModel& model_;
  ChainLattice lat_;
  ChainScores scores_;
  ChainDecoder decoder_;
  std::vector<double> emissions_, pair_scores_;
};

// ---- template definition ----
template <typename Add>
void ForEachPathWeight(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                       int64_t s, const int32_t* labels, Add&& add, const char* at) {
  const int64_t begin = corpus.sentence_start[s];
  const int32_t n = static_cast<int32_t>(corpus.sentence_start[s + 1] - begin);
  for (int32_t i = 0; i < n; ++i) {
    if (at && !at[i]) continue;
    int32_t y = labels[i];
    for (int64_t k = corpus.attributes.RowBegin(begin + i); k < corpus.attributes.RowEnd(begin + i); ++k) {
      int32_t a = corpus.attributes.cols[k];
      for (int64_t f = model.attr_offset[a]; f < model.attr_offset[a + 1]; ++f) {
        if (model.feature_label[f] == y) {
          add(f);
          break;
        }
      }
    }
  }
  if (model.has_edge_features()) {
    const int32_t L = model.num_labels();
    const int64_t F = model.num_node_features();
    for (int32_t i = 0; i < n; ++i) {
      if (at && !at[i] && (i == 0 || !at[i - 1])) continue;
      const int32_t pair = (i == 0 ? L : labels[i - 1]) * L + labels[i];
      for (int64_t k = corpus.edge_attributes.RowBegin(begin + i);
           k < corpus.edge_attributes.RowEnd(begin + i); ++k) {
        int32_t a = corpus.edge_attributes.cols[k];
        for (int64_t g = model.edge_offset[a]; g < model.edge_offset[a + 1]; ++g) {
          if (model.edge_pair[g] == pair) {
            add(F + g);
            break;
          }
        }
      }
    }
  }
  if (n == 0) return;
  std::vector<int32_t> states(n);
  lat.States(labels, n, states.data());
  add(lat.start_weight[lat.StartIndex(states[0])]);
  for (int32_t i = 1; i < n; ++i) {
    int32_t e = lat.Edge(states[i - 1], states[i]);
    add(lat.edge_w1[e]);
    if (lat.edge_w2[e] >= 0) add(lat.edge_w2[e]);
  }
}

}  // namespace structrank
