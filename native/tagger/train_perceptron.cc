#include "tagger/train_perceptron.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace structrank {

PerceptronTraining::PerceptronTraining(const ChainEncoder& encoder, std::size_t num_weights, bool slots)
    : encoder_(encoder), slots_(slots), u_(num_weights, 0.0) {}

void PerceptronTraining::ZeroStartWeights(std::vector<double>& w) {
  if (encoder_.start_weights()) return;
  for (int64_t k : encoder_.lattice().start_weight) {
    w[k] = 0;
    u_[k] = 0;
  }
}

int64_t PerceptronTraining::Epoch(const std::vector<int64_t>& order, std::vector<double>& w,
                                  const std::atomic<bool>* cancel) {
  const TaggerModel& model = encoder_.model();
  const TaggerCorpus& corpus = encoder_.corpus();
  const ChainLattice& lat = encoder_.lattice();
  const int32_t L = model.num_labels();
  ChainDecoder decoder(lat);
  ChainScores scores;
  std::vector<double> emissions, pairs;
  std::vector<int32_t> guess;
  std::vector<char> differs;
  // The index's loops sum a token's weights in another order than the model's: the same
  // scores as long as every weight is an integer (the updates are +-1), so they are used
  // only then (weights averaged by parameter mixing are not).
  const int64_t nodes = model.num_node_features();
  const bool packed = slots_ && FeatureIndex::Fits(model) &&
                      std::all_of(w.begin(), w.begin() + nodes,
                                  [](double x) { return x == std::trunc(x) && std::fabs(x) < 0x1p52; });
  if (packed) {
    if (pack_at_.empty()) {  // built on first use: a mixing shard's averaged start weights never need it
      index_ = FeatureIndex::For(model, corpus);
      pack_at_ = index_.WeightPositions(model);
      // Slots without a feature (a dense attribute's other labels) are never updated: they stay 0.
      pack_.assign(index_.pack_size(), 0.0);
    }
    index_.Gather(model, w.data(), pack_.data());
  }
  const auto step = [&](int64_t f, double by) {
    if (packed && f < nodes) pack_[pack_at_[f]] += by;
  };
  int64_t mistakes = 0;
  for (std::size_t q = 0; q < order.size(); ++q) {
    if (cancel && (q & 255) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    int64_t s = order[q];
    const int32_t n = SentenceLength(corpus, s);
    if (n == 0) continue;
    const int32_t* gold = &corpus.labels[corpus.sentence_start[s]];
    emissions.resize(static_cast<std::size_t>(n) * L);
    if (packed)
      index_.Emissions(corpus, s, pack_.data(), emissions.data());
    else
      model.Emissions(corpus, s, w.data(), emissions.data());
    scores.Compute(lat, w.data());  // transitions change after every update
    if (model.has_edge_features()) {
      pairs.resize(static_cast<std::size_t>(n) * model.num_pairs());
      model.EdgeScores(corpus, s, w.data(), pairs.data());
      decoder.SetPairScores(pairs.data());
    }
    guess.resize(n);
    decoder.Viterbi(n, emissions.data(), scores, guess.data());
    if (!std::equal(guess.begin(), guess.end(), gold)) {
      ++mistakes;
      const double c = c_;
      // Only tokens whose label differs: elsewhere +1 and -1 cancel exactly (integers).
      differs.resize(n);
      for (int32_t i = 0; i < n; ++i) differs[i] = guess[i] != gold[i];
      encoder_.ForEachPathWeight(
          s, gold,
          [&](int64_t f) {
            w[f] += 1;
            u_[f] += c;
            step(f, 1);
          },
          differs.data());
      encoder_.ForEachPathWeight(
          s, guess.data(),
          [&](int64_t f) {
            w[f] -= 1;
            u_[f] -= c;
            step(f, -1);
          },
          differs.data());
      ZeroStartWeights(w);
    }
    c_ += 1;
  }
  return mistakes;
}

void PerceptronTraining::Average(const std::vector<double>& w, std::vector<double>& out) const {
  for (std::size_t k = 0; k < w.size(); ++k) out[k] = w[k] - u_[k] / c_;
}

}  // namespace structrank
