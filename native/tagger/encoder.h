// The training objective of a tagger model over a corpus, as the training algorithms see it
// (CRFsuite's encoder_t). Two encoders implement it:
//   ChainEncoder (chain_encoder.h): the linear-chain CRF, sum_s (log Z_s - score(gold_s)),
//     which also gives the per-sentence steps of SGD and the perceptron's features on a path;
//   MaxentEncoder (maxent_encoder.h): per-token softmax given the gold previous tags
//     (Ratnaparkhi 1996), -sum_i log P(gold_i | gold history, i).
// The training algorithms, one file each, drive them: train_lbfgs.cc (CRF, maxent),
// train_sgd.cc (CRF), train_perceptron.cc (chain); trainer.h dispatches between them.
// The interface is one call per evaluation over the whole corpus: the per-token loops stay
// inside the encoders, free of virtual calls.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "tagger/chain.h"
#include "tagger/model.h"

namespace structrank {

class TaggerEncoder {
 public:
  virtual ~TaggerEncoder() = default;
  // The objective at w, loss + c2 |w|^2 summed over the corpus, with its gradient in `grad`.
  // `cancel` is polled between blocks of sentences (throws Cancelled).
  virtual double ObjectiveAndGradient(const std::vector<double>& w, std::vector<double>& grad,
                                      const std::atomic<bool>* cancel) = 0;
};

// Per-thread buffers of an evaluation, kept by a caller that evaluates many times (L-BFGS)
// so that an evaluation allocates nothing.
struct ObjectiveScratch {
  std::vector<double> grad, pack, emissions, marginals, edge, start, pairs;
  std::vector<int32_t> states;
  double loss = 0;
  bool clean = false;  // pack: all zeros but the weights Gather writes (AddTo resets the sums)
};

inline int32_t SentenceLength(const TaggerCorpus& c, int64_t s) {
  return static_cast<int32_t>(c.sentence_start[s + 1] - c.sentence_start[s]);
}

// Adds `scale * m[i][label(f)]` to grad[f] for every node feature f of every token i of s.
void AddEmissionGradient(const TaggerModel& model, const TaggerCorpus& corpus, int64_t s, const double* m,
                         double scale, double* grad);

// Sums per-thread gradients into `grad` (already holding the prior's gradient), thread 0
// first; with `lat`, also the threads' edge and start expectations. Returns `loss` plus the
// threads' losses, in the same order. (The loss goes in and out by value: a local whose
// address escapes into another file keeps the compiler from vectorizing the caller's prior
// loop.)
double SumThreadGradients(std::vector<ObjectiveScratch>& buffers, const ChainLattice* lat,
                          std::vector<double>& grad, double loss);

}  // namespace structrank
