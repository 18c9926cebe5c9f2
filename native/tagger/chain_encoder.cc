#include "tagger/chain_encoder.h"

#include <algorithm>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// Edge features: adds `scale * (pair_marginals[i][pair(g)] - [pair(g) == gold pair at i])`
// to grad[F + g] for every edge feature g of every token of s.
void AddEdgeGradient(const TaggerModel& model, const TaggerCorpus& corpus, int64_t s, const double* pm,
                     const int32_t* gold, double scale, double* grad) {
  const int32_t L = model.num_labels(), P = model.num_pairs();
  const int64_t F = model.num_node_features();
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  for (int64_t t = begin; t < end; ++t) {
    const int32_t i = static_cast<int32_t>(t - begin);
    const int32_t gold_pair = (i == 0 ? L : gold[i - 1]) * L + gold[i];
    const double* m = pm + static_cast<std::size_t>(i) * P;
    for (int64_t k = corpus.edge_attributes.RowBegin(t); k < corpus.edge_attributes.RowEnd(t); ++k) {
      int32_t a = corpus.edge_attributes.cols[k];
      for (int64_t g = model.edge_offset[a]; g < model.edge_offset[a + 1]; ++g) {
        int32_t pair = model.edge_pair[g];
        grad[F + g] += scale * (m[pair] - (pair == gold_pair ? 1.0 : 0.0));
      }
    }
  }
}

}  // namespace

double CrfObjective(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                    const std::vector<double>& w, std::vector<double>& grad, double c2, int threads,
                    const std::atomic<bool>* cancel, bool start_weights, const FeatureIndex* index,
                    std::vector<ObjectiveScratch>* scratch) {
  const int32_t L = model.num_labels();
  const int nthreads = threads;
  FeatureIndex own;
  if (!index && FeatureIndex::Fits(model)) {
    own = FeatureIndex::For(model, corpus);
    index = &own;
  }
  if (index && index->span.empty()) index = nullptr;  // asked for the model's own tables
  if (index && !index->Indexes(corpus)) throw InputError("the feature index was built for another corpus");
  ChainScores scores;
  scores.Compute(lat, w.data(), 1.0, true);
  // The node-feature weights in the index's pack: thread 0 sums its gradient into the same
  // pack, the others into packs of their own (only their gradient halves used).
  // Thread 0 sums its model-order gradient straight into `grad`; the others into their own
  // vectors (with an index, only edge features have one).
  grad.assign(w.size(), 0.0);
  std::vector<ObjectiveScratch> own_scratch;
  std::vector<ObjectiveScratch>& buffers = scratch ? *scratch : own_scratch;
  buffers.resize(nthreads);
  std::vector<ChainDecoder> decoders;
  decoders.reserve(nthreads);
  for (int t = 0; t < nthreads; ++t) {
    ObjectiveScratch& b = buffers[t];
    b.loss = 0;
    if (t > 0 && (!index || model.has_edge_features())) b.grad.assign(w.size(), 0.0);
    if (index) {
      if (!b.clean || b.pack.size() != index->pack_size()) b.pack.assign(index->pack_size(), 0.0);
      b.clean = false;  // until AddTo has taken the gradient sums
      if (t == 0) index->Gather(model, w.data(), b.pack.data());
    }
    b.edge.assign(lat.num_edges(), 0.0);
    b.start.assign(lat.start_state.size(), 0.0);
    decoders.emplace_back(lat);
  }
  ParallelForFixed(
      static_cast<std::size_t>(corpus.sentences()), nthreads, 64,
      [&](std::size_t first, std::size_t last, int thread) {
        ObjectiveScratch& b = buffers[thread];
        double* g = thread == 0 ? grad.data() : b.grad.data();
        ChainDecoder& decoder = decoders[thread];
        std::vector<int32_t>& states = b.states;
        for (std::size_t s = first; s < last; ++s) {
          const int32_t n = SentenceLength(corpus, s);
          if (n == 0) continue;
          const int32_t* gold = &corpus.labels[corpus.sentence_start[s]];
          b.emissions.resize(static_cast<std::size_t>(n) * L);
          b.marginals.resize(static_cast<std::size_t>(n) * L);
          if (index) {
            index->Emissions(corpus, s, buffers[0].pack.data(), b.emissions.data());
          } else {
            model.Emissions(corpus, s, w.data(), b.emissions.data());
          }
          if (model.has_edge_features()) {
            b.pairs.resize(static_cast<std::size_t>(n) * model.num_pairs());
            model.EdgeScores(corpus, s, w.data(), b.pairs.data());
            decoder.SetPairScores(b.pairs.data());
          }
          double log_z = decoder.ForwardBackward(n, b.emissions.data(), scores, b.marginals.data(),
                                                 b.edge.data(), b.start.data());
          b.loss += log_z - decoder.PathScore(n, b.emissions.data(), scores, gold);
          if (model.has_edge_features()) {
            AddEdgeGradient(model, corpus, s, decoder.pair_marginals().data(), gold, 1.0, g);
          }
          for (int32_t i = 0; i < n; ++i) b.marginals[static_cast<std::size_t>(i) * L + gold[i]] -= 1.0;
          if (index) {
            index->AddGradient(corpus, s, b.marginals.data(), b.pack.data());
          } else {
            AddEmissionGradient(model, corpus, s, b.marginals.data(), 1.0, g);
          }
          states.resize(n);
          lat.States(gold, n, states.data());
          b.start[lat.StartIndex(states[0])] -= 1.0;
          for (int32_t i = 1; i < n; ++i) b.edge[lat.Edge(states[i - 1], states[i])] -= 1.0;
        }
      },
      cancel);
  double loss = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    loss += c2 * w[k] * w[k];
    grad[k] = 2 * c2 * w[k] + grad[k];  // the prior first, then thread 0, 1, ...: a fixed order
  }
  if (index) index->AddTo(model, buffers[0].pack.data(), grad.data());
  loss = SumThreadGradients(buffers, &lat, grad, loss);
  if (index) {
    for (int t = 1; t < nthreads; ++t) index->AddTo(model, buffers[t].pack.data(), grad.data());
    for (auto& b : buffers) b.clean = true;
  }
  if (!start_weights) {
    for (int64_t k : lat.start_weight) grad[k] = 0;
  }
  return loss;
}

ChainEncoder::ChainEncoder(const TaggerModel& model, const TaggerCorpus& corpus, double c2, int threads,
                           bool start_weights, bool with_index)
    : model_(model),
      corpus_(corpus),
      lat_(ChainLattice::For(model)),
      c2_(c2),
      threads_(threads),
      start_weights_(start_weights) {
  if (with_index && FeatureIndex::Fits(model)) index_ = FeatureIndex::For(model, corpus);
}

double ChainEncoder::ObjectiveAndGradient(const std::vector<double>& w, std::vector<double>& grad,
                                          const std::atomic<bool>* cancel) {
  return CrfObjective(model_, lat_, corpus_, w, grad, c2_, threads_, cancel, start_weights_, &index_,
                      &scratch_);
}

double ChainEncoder::SentenceStep(int64_t s, double scale, double gain, double* w, StepScratch& b) const {
  const int32_t L = model_.num_labels();
  const int32_t n = SentenceLength(corpus_, s);
  const int32_t* gold = &corpus_.labels[corpus_.sentence_start[s]];
  b.emissions.resize(static_cast<std::size_t>(n) * L);
  b.marginals.resize(static_cast<std::size_t>(n) * L);
  model_.Emissions(corpus_, s, w, b.emissions.data());
  for (double& e : b.emissions) e *= scale;
  b.scores.Compute(lat_, w, scale);
  if (model_.has_edge_features()) {
    b.pairs.resize(static_cast<std::size_t>(n) * model_.num_pairs());
    model_.EdgeScores(corpus_, s, w, b.pairs.data(), scale);
    b.decoder.SetPairScores(b.pairs.data());
  }
  std::fill(b.edge.begin(), b.edge.end(), 0.0);
  std::fill(b.start.begin(), b.start.end(), 0.0);
  double log_z = b.decoder.ForwardBackward(n, b.emissions.data(), b.scores, b.marginals.data(), b.edge.data(),
                                           b.start.data());
  const double loss = log_z - b.decoder.PathScore(n, b.emissions.data(), b.scores, gold);
  for (int32_t i = 0; i < n; ++i) b.marginals[static_cast<std::size_t>(i) * L + gold[i]] -= 1.0;
  AddEmissionGradient(model_, corpus_, s, b.marginals.data(), -gain, w);
  if (model_.has_edge_features()) {
    AddEdgeGradient(model_, corpus_, s, b.decoder.pair_marginals().data(), gold, -gain, w);
  }
  b.states.resize(n);
  lat_.States(gold, n, b.states.data());
  b.start[lat_.StartIndex(b.states[0])] -= 1.0;
  for (int32_t i = 1; i < n; ++i) b.edge[lat_.Edge(b.states[i - 1], b.states[i])] -= 1.0;
  for (std::size_t e = 0; e < b.edge.size(); ++e) {
    if (b.edge[e] == 0) continue;
    w[lat_.edge_w1[e]] -= gain * b.edge[e];
    if (lat_.edge_w2[e] >= 0) w[lat_.edge_w2[e]] -= gain * b.edge[e];
  }
  if (start_weights_) {
    for (std::size_t k = 0; k < b.start.size(); ++k) w[lat_.start_weight[k]] -= gain * b.start[k];
  }
  return loss;
}

}  // namespace structrank
