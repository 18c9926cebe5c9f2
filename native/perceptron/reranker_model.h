// A trained perceptron reranker: the training record (PerceptronRun), the bank of its
// support candidates with their log-probabilities, and beta for the combined kernel
// K'(x, y) = beta L(x) L(y) + K(x, y). Saves to and loads from bytes.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/byte_io.h"
#include "perceptron/candidate_bank.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_run.h"
#include "perceptron/perceptron_train.h"
#include "perceptron/ranking_set.h"

namespace structrank {

class RerankerModel {
 public:
  RerankerModel(PerceptronRun run, std::unique_ptr<CandidateBank> support,
                std::vector<double> support_logprob, double beta, double base_weight = 0);

  // Trains on `train` (one bank entry per candidate of `set`). `primal` uses the primal
  // form (linear banks only); it makes the same decisions as the dual form.
  static RerankerModel Train(const CandidateBank& train, const RankingSet& set, double beta, bool primal,
                             const PerceptronOptions& options, TrainStats* stats = nullptr);

  // Parameter mixing: one epoch from `start` (see DualMixingEpoch), in the primal form or
  // with plain kernel sums (the compressed scorers cannot start from given coefficients).
  static MixingEpochResult MixingEpoch(const CandidateBank& train, const RankingSet& set, double beta,
                                       bool primal, const PerceptronOptions& options,
                                       const std::vector<double>& start, int64_t first, int64_t last);

  // A model of explicit real coefficients (parameter mixing's), dense over the training
  // candidates: the last and the averaged hypothesis. It has no voted prediction.
  static RerankerModel FromCoefficients(const CandidateBank& train, const RankingSet& set, double beta,
                                        double base_weight, const std::vector<double>& last,
                                        const std::vector<double>& averaged);

  // The coefficients over the support of the last or averaged hypothesis.
  std::vector<double> Coefficients(PredictMode mode) const;
  // A mixed model: its record has no chunks (a trained run has at least one).
  bool mixed() const { return run_.chunks.empty(); }

  // The chosen candidate (index within its sentence) of every query sentence, and each
  // candidate's score (its vote share for kVoted). `compressed` lets last/averaged
  // scoring use the bank's compressed scorer when it has one.
  std::vector<int32_t> Choose(const CandidateBank& query, const RankingSet& query_set, PredictMode mode,
                              int threads, const std::atomic<bool>* cancel,
                              std::vector<double>* scores = nullptr, bool compressed = true) const;

  const PerceptronRun& run() const { return run_; }
  const CandidateBank& support() const { return *support_; }
  const std::vector<double>& support_logprob() const { return support_logprob_; }
  double beta() const { return beta_; }
  double base_weight() const { return base_weight_; }  // PerceptronOptions::base_weight

  // Models with explicit features (linear, linear-sum): renumbers the support rows' feature ids densely
  // (0..F-1) and returns the old id of each new one, so a saved model carries only the features it uses.
  std::vector<int32_t> CompactLinearFeatures();

  void Save(ByteWriter& out) const;
  static RerankerModel Load(ByteReader& in);

 private:
  PerceptronRun run_;
  std::unique_ptr<CandidateBank> support_;
  std::vector<double> support_logprob_;
  double beta_;
  double base_weight_;
  // Explicit coefficients over the support (a mixed model); empty for a trained run.
  std::vector<double> mixed_last_;
  std::vector<double> mixed_averaged_;
};

// Reads a bank of the given kind saved by CandidateBank::Save; `current_format` false reads
// the payloads before PRM3 (tag banks without the normalize flag).
std::unique_ptr<CandidateBank> LoadCandidateBank(KernelKind kind, ByteReader& in, bool current_format = true);

}  // namespace structrank
