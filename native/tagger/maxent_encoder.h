// The maxent tagger's objective (Ratnaparkhi 1996): a softmax over the labels at each token
// given the gold previous tags, -sum_i log P(gold_i | gold history, i) + c2 |w|^2, and its
// gradient. Trained by L-BFGS (train_lbfgs.cc), decoded by beam search (sentence_tagger.h).
#pragma once
#include <atomic>
#include <vector>

#include "tagger/encoder.h"
#include "tagger/model.h"

namespace structrank {

double MaxentObjective(const TaggerModel& model, const TaggerCorpus& corpus, const std::vector<double>& w,
                       std::vector<double>& grad, double c2, int threads,
                       const std::atomic<bool>* cancel = nullptr);

class MaxentEncoder final : public TaggerEncoder {
 public:
  MaxentEncoder(const TaggerModel& model, const TaggerCorpus& corpus, double c2, int threads)
      : model_(model), corpus_(corpus), c2_(c2), threads_(threads) {}
  double ObjectiveAndGradient(const std::vector<double>& w, std::vector<double>& grad,
                              const std::atomic<bool>* cancel) override {
    return MaxentObjective(model_, corpus_, w, grad, c2_, threads_, cancel);
  }

 private:
  const TaggerModel& model_;
  const TaggerCorpus& corpus_;
  double c2_;
  int threads_;
};

}  // namespace structrank
