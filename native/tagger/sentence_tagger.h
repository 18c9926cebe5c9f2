// Decoding one sentence with a trained TaggerModel: Viterbi and k-best over the chain
// (perceptron, CRF), beam search (maxent).
#pragma once
#include <cstdint>
#include <vector>

#include "tagger/chain.h"
#include "tagger/model.h"

namespace structrank {

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

}  // namespace structrank
