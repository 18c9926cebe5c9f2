// The averaged structured perceptron (Collins 2002): per sentence, Viterbi under the current
// weights, then W += Phi(gold) - Phi(guess); the weights used for tagging are the average
// over every sentence visited (CRFsuite's train_averaged_perceptron.c), kept as
// w - u / c with u the sum of c-weighted updates (Daume's trick).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "tagger/chain_encoder.h"
#include "tagger/feature_index.h"

namespace structrank {

class PerceptronTraining {
 public:
  // `slots`: score tokens with the FeatureIndex layout while the weights are integers
  // (false: the model's own tables; the same weights either way, see Epoch).
  PerceptronTraining(const ChainEncoder& encoder, std::size_t num_weights, bool slots);
  // One pass over the sentences in `order`; returns the number of mistaken sentences.
  int64_t Epoch(const std::vector<int64_t>& order, std::vector<double>& w, const std::atomic<bool>* cancel);
  // The averaged weights w - u / c.
  void Average(const std::vector<double>& w, std::vector<double>& out) const;

  // Checkpoint state: the update sums u and the update counter c.
  std::vector<double>& sums() { return u_; }
  const std::vector<double>& sums() const { return u_; }
  double& count() { return c_; }
  double count() const { return c_; }

 private:
  void ZeroStartWeights(std::vector<double>& w);

  const ChainEncoder& encoder_;
  bool slots_;
  std::vector<double> u_;  // the averaging accumulator
  double c_ = 1;           // update counter
  // The node weights in index_'s layout, kept equal to w during an epoch, and each node
  // feature's position in it (built by the first epoch that uses them).
  FeatureIndex index_;
  std::vector<double> pack_;
  std::vector<uint32_t> pack_at_;
};

}  // namespace structrank
