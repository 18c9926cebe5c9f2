// Training a TaggerModel: the options, and the trainer that dispatches each step to the
// model's training algorithm over its encoder (encoder.h):
//   perceptron: train_perceptron.cc over the chain (chain_encoder.h);
//   CRF: train_lbfgs.cc (after any train_sgd.cc warm-up epochs) or train_sgd.cc, over the
//        chain's objective -log P(gold) + c2 |w|^2;
//   maxent: train_lbfgs.cc over maxent_encoder.h's objective.
// It owns what the algorithms share: the weights, the sentence order, the step counter, and
// the checkpoint state.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/byte_io.h"
#include "tagger/chain_encoder.h"
#include "tagger/maxent_encoder.h"
#include "tagger/model.h"
#include "tagger/train_lbfgs.h"
#include "tagger/train_perceptron.h"
#include "tagger/train_sgd.h"

namespace structrank {

enum class CrfOptimizer : int32_t { kLbfgs = 0, kSgd = 1 };

struct TrainOptions {
  CrfOptimizer optimizer = CrfOptimizer::kLbfgs;
  double c2 = 1.0;    // L2 weight: objective adds c2 * |w|^2
  double eta0 = 0.1;  // SGD initial gain
  int threads = 0;    // the caller's count, >= 1 (core/thread_pool.h)
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
  // the same weights either way, see PerceptronTraining::Epoch).
  bool perceptron_slots = true;
};

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
  void Shuffle();

  TaggerModel& model_;
  TrainOptions options_;
  // The encoder of the model's objective: the chain (CRF, perceptron) or maxent.
  std::unique_ptr<ChainEncoder> chain_;
  std::unique_ptr<MaxentEncoder> maxent_;
  // The algorithms: L-BFGS (CRF, maxent), SGD (CRF: alone or as L-BFGS's warm-up), perceptron.
  std::unique_ptr<LbfgsTraining> lbfgs_;
  std::unique_ptr<PerceptronTraining> perceptron_;
  SgdState sgd_;  // the scale applies to w_ under SGD; 1 otherwise
  std::vector<double> w_;
  std::vector<int64_t> order_;
  double loss_ = 0;
  int steps_ = 0;
  bool converged_ = false;
};

}  // namespace structrank
