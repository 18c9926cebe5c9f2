// The linear-chain CRF's objective (Lafferty et al. 2001), the encoder of the CRF and
// perceptron taggers: sum_s (log Z_s - score(gold_s)) + c2 |w|^2 over the corpus and its
// gradient (L-BFGS); the same for one sentence, applied as an SGD step (train_sgd.cc); and
// the weights that fire on a label path (the perceptron's update, train_perceptron.cc).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "tagger/chain.h"
#include "tagger/encoder.h"
#include "tagger/feature_index.h"
#include "tagger/model.h"

namespace structrank {

// CRF objective sum_s (log Z_s - score(gold_s)) + c2 |w|^2 and its gradient. Without
// start_weights the gradient of the start-transition weights is 0, so they keep their value.
// `index`: the slot layout of the emission and gradient loops, built for `corpus`
// (feature_index.h); null: one is built here when the model fits (ChainEncoder builds its
// own once); an empty one: the model's own tables, which give the same objective and
// gradient to the last bit on a corpus whose tokens list their dense attributes first.
// `scratch`: per-thread buffers kept by a caller that evaluates it many times (L-BFGS), so
// that an evaluation allocates nothing (the index's packs alone are 8 MB on conll2000, fresh
// pages to fault in and zero each time); null: buffers of the call's own.
double CrfObjective(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                    const std::vector<double>& w, std::vector<double>& grad, double c2, int threads,
                    const std::atomic<bool>* cancel = nullptr, bool start_weights = true,
                    const FeatureIndex* index = nullptr, std::vector<ObjectiveScratch>* scratch = nullptr);

// Calls add(f) for every weight that fires on (sentence, labels): emission features that
// exist in the model and the transitions on the path. Used by the perceptron update.
// With `at` (one flag per token), emission features are visited only at flagged tokens and
// edge features only where the flagged token or its predecessor is: the perceptron update
// Phi(gold) - Phi(guess) cancels everywhere else, so it needs only the tokens that differ.
template <typename Add>
void ForEachPathWeight(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                       int64_t s, const int32_t* labels, Add&& add, const char* at = nullptr);

class ChainEncoder final : public TaggerEncoder {
 public:
  // `with_index`: evaluate the objective with a FeatureIndex for the corpus when the model
  // fits one (L-BFGS); otherwise with the model's own tables.
  ChainEncoder(const TaggerModel& model, const TaggerCorpus& corpus, double c2, int threads,
               bool start_weights, bool with_index);

  // CrfObjective over the corpus, with buffers kept from one evaluation to the next.
  double ObjectiveAndGradient(const std::vector<double>& w, std::vector<double>& grad,
                              const std::atomic<bool>* cancel) override;

  // Buffers of SentenceStep, kept for a pass over the corpus.
  struct StepScratch {
    explicit StepScratch(const ChainLattice& lat)
        : decoder(lat), edge(lat.num_edges()), start(lat.start_state.size()) {}
    ChainDecoder decoder;
    ChainScores scores;
    std::vector<double> emissions, marginals, pairs, edge, start;
    std::vector<int32_t> states;
  };
  // One SGD step on sentence s (non-empty) at the weights scale * w: w -= gain * the
  // gradient of log Z_s - score(gold_s) (the start weights only with start_weights).
  // Returns log Z_s - score(gold_s) before the step.
  double SentenceStep(int64_t s, double scale, double gain, double* w, StepScratch& b) const;

  template <typename Add>
  void ForEachPathWeight(int64_t s, const int32_t* labels, Add&& add, const char* at = nullptr) const {
    structrank::ForEachPathWeight(model_, lat_, corpus_, s, labels, add, at);
  }

  const TaggerModel& model() const { return model_; }
  const TaggerCorpus& corpus() const { return corpus_; }
  const ChainLattice& lattice() const { return lat_; }
  bool start_weights() const { return start_weights_; }

 private:
  const TaggerModel& model_;
  const TaggerCorpus& corpus_;
  ChainLattice lat_;
  double c2_;
  int threads_;
  bool start_weights_;
  FeatureIndex index_;                     // empty: the model's own tables
  std::vector<ObjectiveScratch> scratch_;  // CrfObjective's buffers
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
