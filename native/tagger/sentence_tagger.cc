#include "tagger/sentence_tagger.h"

#include <algorithm>
#include <cmath>

#include "tagger/encoder.h"

namespace structrank {

SentenceTagger::SentenceTagger(const TaggerModel& model)
    : model_(model), lat_(ChainLattice::For(model)), decoder_(lat_) {
  scores_.Compute(lat_, model.weights.data(), 1.0, model.algorithm == TaggerAlgorithm::kCrf);
}

void SentenceTagger::Best(const TaggerCorpus& corpus, int64_t s, int32_t* labels) {
  const int32_t n = SentenceLength(corpus, s);
  if (n == 0) return;
  emissions_.resize(static_cast<std::size_t>(n) * model_.num_labels());
  model_.Emissions(corpus, s, model_.weights.data(), emissions_.data());
  SetPairScores(corpus, s, n);
  if (model_.algorithm == TaggerAlgorithm::kMaxent) {
    auto best = Beam(n, emissions_.data(), 1);
    std::copy(best[0].labels.begin(), best[0].labels.end(), labels);
  } else {
    decoder_.Viterbi(n, emissions_.data(), scores_, labels);
  }
}

std::vector<Candidate> SentenceTagger::Decode(const TaggerCorpus& corpus, int64_t s, int32_t k) {
  const int32_t n = SentenceLength(corpus, s);
  emissions_.resize(static_cast<std::size_t>(n) * model_.num_labels());
  if (n > 0) model_.Emissions(corpus, s, model_.weights.data(), emissions_.data());
  SetPairScores(corpus, s, n);
  if (model_.algorithm == TaggerAlgorithm::kMaxent) return Beam(n, emissions_.data(), k);
  std::vector<Candidate> out = decoder_.KBest(n, emissions_.data(), scores_, k);
  if (model_.algorithm == TaggerAlgorithm::kCrf) {
    double log_z = decoder_.ForwardBackward(n, emissions_.data(), scores_, nullptr, nullptr, nullptr);
    for (auto& c : out) c.score -= log_z;
  }
  return out;
}

void SentenceTagger::SetPairScores(const TaggerCorpus& corpus, int64_t s, int32_t n) {
  if (!model_.has_edge_features()) return;
  pair_scores_.resize(static_cast<std::size_t>(n) * model_.num_pairs());
  if (n > 0) model_.EdgeScores(corpus, s, model_.weights.data(), pair_scores_.data());
  decoder_.SetPairScores(pair_scores_.data());
}

std::vector<Candidate> SentenceTagger::Beam(int32_t n, const double* emissions, int32_t k) {
  const int32_t L = model_.num_labels();
  const int32_t B = std::max(model_.beam, k);
  const FlatArray<double>& w = model_.weights;
  struct Hyp {
    double score;
    int32_t label, back;
  };
  std::vector<std::vector<Hyp>> beams(n);
  std::vector<Hyp> cand;
  std::vector<double> x(L);
  if (n == 0) return {Candidate{}};
  for (int32_t i = 0; i < n; ++i) {
    cand.clear();
    const double* em = emissions + static_cast<std::size_t>(i) * L;
    int32_t hyps = i == 0 ? 1 : static_cast<int32_t>(beams[i - 1].size());
    for (int32_t h = 0; h < hyps; ++h) {
      int32_t prev = i == 0 ? L : beams[i - 1][h].label;
      int32_t prev2 = L;
      if (i > 1) prev2 = beams[i - 2][beams[i - 1][h].back].label;
      double base = i == 0 ? 0.0 : beams[i - 1][h].score;
      for (int32_t y = 0; y < L; ++y) {
        x[y] = em[y] + w[model_.Trans1(prev, y)];
        if (model_.order == 2 && i > 0) x[y] += w[model_.Trans2(prev2, prev, y)];
        if (model_.has_edge_features()) {
          x[y] += pair_scores_[static_cast<std::size_t>(i) * model_.num_pairs() + prev * L + y];
        }
      }
      double m = *std::max_element(x.begin(), x.end()), z = 0;
      for (int32_t y = 0; y < L; ++y) z += std::exp(x[y] - m);
      double log_z = m + std::log(z);
      for (int32_t y = 0; y < L; ++y) cand.push_back(Hyp{base + x[y] - log_z, y, h});
    }
    int32_t keep = std::min<int32_t>(B, static_cast<int32_t>(cand.size()));
    std::partial_sort(cand.begin(), cand.begin() + keep, cand.end(),
                      [](const Hyp& a, const Hyp& b) { return a.score > b.score; });
    beams[i].assign(cand.begin(), cand.begin() + keep);
  }
  std::vector<Candidate> out;
  int32_t keep = std::min<int32_t>(k, static_cast<int32_t>(beams[n - 1].size()));
  for (int32_t q = 0; q < keep; ++q) {
    Candidate c;
    c.score = beams[n - 1][q].score;
    c.labels.resize(n);
    int32_t h = q;
    for (int32_t i = n - 1; i >= 0; --i) {
      c.labels[i] = beams[i][h].label;
      h = beams[i][h].back;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace structrank
