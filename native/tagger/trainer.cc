#include "tagger/trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

int32_t SentenceLength(const TaggerCorpus& c, int64_t s) {
  return static_cast<int32_t>(c.sentence_start[s + 1] - c.sentence_start[s]);
}

// Adds `scale * m[i][label(f)]` to grad[f] for every feature of every token of s.
void AddEmissionGradient(const TaggerModel& model, const TaggerCorpus& corpus, int64_t s, const double* m,
                         double scale, double* grad) {
  const int32_t L = model.num_labels();
  const int64_t begin = corpus.sentence_start[s], end = corpus.sentence_start[s + 1];
  const int64_t* off = model.attr_offset.data();
  const int32_t* lab = model.feature_label.data();
  const int64_t* row_ptr = corpus.attributes.row_ptr.data();
  const int32_t* cols = corpus.attributes.cols.data();
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) SR_PREFETCH(grad + off[cols[k]], 1);
  for (int64_t t = begin; t < end; ++t) {
    const double* mi = m + (t - begin) * L;
    for (int64_t k = corpus.attributes.RowBegin(t); k < corpus.attributes.RowEnd(t); ++k) {
      int32_t a = corpus.attributes.cols[k];
      for (int64_t f = off[a]; f < off[a + 1]; ++f) grad[f] += scale * mi[lab[f]];
    }
  }
}

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

// Sums per-thread gradients into `grad` (already holding the prior's gradient).
void SumThreadGradients(std::vector<ObjectiveScratch>& buffers, const ChainLattice* lat,
                        std::vector<double>& grad, double& loss) {
  for (auto& b : buffers) {
    loss += b.loss;
    for (std::size_t k = 0; k < b.grad.size(); ++k) grad[k] += b.grad[k];  // empty: summed in place
    if (lat) {
      for (std::size_t e = 0; e < b.edge.size(); ++e) {
        grad[lat->edge_w1[e]] += b.edge[e];
        if (lat->edge_w2[e] >= 0) grad[lat->edge_w2[e]] += b.edge[e];
      }
      for (std::size_t q = 0; q < b.start.size(); ++q) grad[lat->start_weight[q]] += b.start[q];
    }
  }
}

}  // namespace

double CrfObjective(const TaggerModel& model, const ChainLattice& lat, const TaggerCorpus& corpus,
                    const std::vector<double>& w, std::vector<double>& grad, double c2, int threads,
                    const std::atomic<bool>* cancel, bool start_weights, const FeatureIndex* index,
                    std::vector<ObjectiveScratch>* scratch) {
  const int32_t L = model.num_labels();
  const int nthreads = ResolveThreads(threads);
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
  SumThreadGradients(buffers, &lat, grad, loss);
  if (index) {
    for (int t = 1; t < nthreads; ++t) index->AddTo(model, buffers[t].pack.data(), grad.data());
    for (auto& b : buffers) b.clean = true;
  }
  if (!start_weights) {
    for (int64_t k : lat.start_weight) grad[k] = 0;
  }
  return loss;
}

double MaxentObjective(const TaggerModel& model, const TaggerCorpus& corpus, const std::vector<double>& w,
                       std::vector<double>& grad, double c2, int threads, const std::atomic<bool>* cancel) {
  const int32_t L = model.num_labels();
  const int nthreads = ResolveThreads(threads);
  std::vector<ObjectiveScratch> buffers(nthreads);
  for (auto& b : buffers) b.grad.assign(w.size(), 0.0);
  ParallelForFixed(
      static_cast<std::size_t>(corpus.sentences()), nthreads, 64,
      [&](std::size_t first, std::size_t last, int thread) {
        ObjectiveScratch& b = buffers[thread];
        for (std::size_t s = first; s < last; ++s) {
          const int32_t n = SentenceLength(corpus, s);
          if (n == 0) continue;
          const int32_t* gold = &corpus.labels[corpus.sentence_start[s]];
          b.emissions.resize(static_cast<std::size_t>(n) * L);
          model.Emissions(corpus, s, w.data(), b.emissions.data());
          const bool edges = model.has_edge_features();
          const int32_t P = model.num_pairs();
          if (edges) {
            b.pairs.resize(static_cast<std::size_t>(n) * P);
            model.EdgeScores(corpus, s, w.data(), b.pairs.data());
          }
          // Turn each row of emissions into (softmax - gold indicator), in place.
          for (int32_t i = 0; i < n; ++i) {
            double* x = &b.emissions[static_cast<std::size_t>(i) * L];
            int32_t prev = i > 0 ? gold[i - 1] : L;
            int32_t prev2 = i > 1 ? gold[i - 2] : L;
            for (int32_t y = 0; y < L; ++y) {
              x[y] += w[model.Trans1(prev, y)];
              if (model.order == 2 && i > 0) x[y] += w[model.Trans2(prev2, prev, y)];
              if (edges) x[y] += b.pairs[static_cast<std::size_t>(i) * P + prev * L + y];
            }
            double m = *std::max_element(x, x + L), z = 0;
            for (int32_t y = 0; y < L; ++y) z += std::exp(x[y] - m);
            double log_z = m + std::log(z);
            b.loss += log_z - x[gold[i]];
            for (int32_t y = 0; y < L; ++y) {
              double p = std::exp(x[y] - log_z) - (y == gold[i] ? 1.0 : 0.0);
              x[y] = p;
              b.grad[model.Trans1(prev, y)] += p;
              if (model.order == 2 && i > 0) b.grad[model.Trans2(prev2, prev, y)] += p;
            }
            if (edges) {  // edge features whose pair starts at the gold previous tag
              const int64_t t = corpus.sentence_start[s] + i;
              const int64_t F = model.num_node_features();
              for (int64_t k = corpus.edge_attributes.RowBegin(t); k < corpus.edge_attributes.RowEnd(t);
                   ++k) {
                int32_t a = corpus.edge_attributes.cols[k];
                for (int64_t g = model.edge_offset[a]; g < model.edge_offset[a + 1]; ++g) {
                  int32_t pair = model.edge_pair[g];
                  if (pair / L == prev) b.grad[F + g] += x[pair % L];
                }
              }
            }
          }
          AddEmissionGradient(model, corpus, s, b.emissions.data(), 1.0, b.grad.data());
        }
      },
      cancel);
  double loss = 0;
  for (std::size_t k = 0; k < w.size(); ++k) {
    loss += c2 * w[k] * w[k];
    grad[k] = 2 * c2 * w[k];
  }
  SumThreadGradients(buffers, nullptr, grad, loss);
  return loss;
}

TaggerTrainer::TaggerTrainer(TaggerModel& model, const TaggerCorpus& corpus, TrainOptions options)
    : model_(model), corpus_(corpus), options_(options), lat_(ChainLattice::For(model)) {
  if (model.num_labels() == 0) throw InputError("no labels in the training data");
  for (int32_t y : corpus.labels) {
    if (y < 0) throw InputError("training data has a token without a label");
  }
  w_ = model.weights.ToVector();
  w_.resize(model.num_weights(), 0.0);
  order_.resize(corpus.sentences());
  std::iota(order_.begin(), order_.end(), 0);
  if (model.algorithm == TaggerAlgorithm::kPerceptron) u_.assign(w_.size(), 0.0);
  use_lbfgs_ = model.algorithm == TaggerAlgorithm::kMaxent ||
               (model.algorithm == TaggerAlgorithm::kCrf && options.optimizer == CrfOptimizer::kLbfgs);
  if (model.algorithm != TaggerAlgorithm::kCrf) options_.sgd_warmup = 0;
  if (use_lbfgs_ && model.algorithm == TaggerAlgorithm::kCrf && FeatureIndex::Fits(model)) {
    index_ = FeatureIndex::For(model, corpus);
  }
  if (!options_.start_weights && model.algorithm == TaggerAlgorithm::kMaxent) {
    throw InputError("training without start weights is for the CRF and the perceptron");
  }
  ZeroStartWeights();
}

void TaggerTrainer::ZeroStartWeights() {
  if (options_.start_weights) return;
  for (int64_t k : lat_.start_weight) {
    w_[k] = 0;
    if (!u_.empty()) u_[k] = 0;
  }
}

TaggerTrainer::~TaggerTrainer() = default;

void TaggerTrainer::Shuffle() {
  if (!options_.shuffle) return;
  std::mt19937_64 rng(options_.seed + static_cast<uint64_t>(steps_) * 7919);
  std::shuffle(order_.begin(), order_.end(), rng);
}

bool TaggerTrainer::Step(const std::atomic<bool>* cancel) {
  if (converged_) return false;
  cancel_ = cancel;
  if (use_lbfgs_ && steps_ < options_.sgd_warmup) {
    SgdEpoch(cancel);
  } else if (use_lbfgs_) {
    if (!lbfgs_) {
      for (double& v : w_) v *= scale_;  // hand over the SGD weights, if any
      scale_ = 1.0;
      LbfgsOptions lo;
      lo.memory = options_.lbfgs_memory;
      lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), w_, lo);
    }
    bool more = lbfgs_->Iterate();
    w_ = lbfgs_->x();
    loss_ = lbfgs_->value();
    converged_ = !more;
  } else if (model_.algorithm == TaggerAlgorithm::kPerceptron) {
    PerceptronEpoch(cancel);
  } else {
    SgdEpoch(cancel);
  }
  ++steps_;
  return !converged_;
}

Objective TaggerTrainer::LbfgsObjective() {
  return [this](const std::vector<double>& x, std::vector<double>& g) {
    if (model_.algorithm == TaggerAlgorithm::kCrf) {
      return CrfObjective(model_, lat_, corpus_, x, g, options_.c2, options_.threads, cancel_,
                          options_.start_weights, &index_, &scratch_);
    }
    return MaxentObjective(model_, corpus_, x, g, options_.c2, options_.threads, cancel_);
  };
}

namespace {
constexpr uint32_t kTrainerStateVersion = 1;
}  // namespace

void TaggerTrainer::SaveState(ByteWriter& out) const {
  out.Put<uint32_t>(kTrainerStateVersion);
  out.Put<int32_t>(steps_);
  out.Put<uint8_t>(converged_ ? 1 : 0);
  out.Put<double>(loss_);
  out.PutVector(w_);
  out.PutVector(u_);
  out.Put<double>(c_);
  out.Put<double>(scale_);
  out.Put<int64_t>(t_);
  out.PutVector(order_);
  out.Put<uint8_t>(lbfgs_ ? 1 : 0);
  if (lbfgs_) lbfgs_->SaveState(out);
}

void TaggerTrainer::LoadState(ByteReader& in) {
  if (in.Get<uint32_t>() != kTrainerStateVersion)
    throw ModelError("checkpoint: unknown tagger trainer state version");
  steps_ = in.Get<int32_t>();
  converged_ = in.Get<uint8_t>() != 0;
  loss_ = in.Get<double>();
  std::vector<double> w = in.GetVector<double>(), u = in.GetVector<double>();
  if (w.size() != w_.size() || u.size() != u_.size())
    throw ModelError("checkpoint: the weights do not fit this model (other training data or templates?)");
  w_ = std::move(w);
  u_ = std::move(u);
  c_ = in.Get<double>();
  scale_ = in.Get<double>();
  t_ = in.Get<int64_t>();
  std::vector<int64_t> order = in.GetVector<int64_t>();
  if (order.size() != order_.size())
    throw ModelError("checkpoint: the sentence count differs from the training data");
  for (int64_t s : order) {
    if (s < 0 || s >= static_cast<int64_t>(order_.size())) throw ModelError("checkpoint: bad sentence order");
  }
  order_ = std::move(order);
  lbfgs_.reset();
  if (in.Get<uint8_t>() != 0) {
    LbfgsOptions lo;
    lo.memory = options_.lbfgs_memory;
    lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), in, lo);
    if (lbfgs_->x().size() != w_.size()) throw ModelError("checkpoint: L-BFGS state does not fit this model");
  }
  if (!in.AtEnd()) throw ModelError("checkpoint: trailing bytes after the tagger trainer state");
}

void TaggerTrainer::PerceptronEpoch(const std::atomic<bool>* cancel) {
  Shuffle();
  const int32_t L = model_.num_labels();
  ChainDecoder decoder(lat_);
  ChainScores scores;
  std::vector<double> emissions, pairs;
  std::vector<int32_t> guess;
  std::vector<char> differs;
  // The index's loops sum a token's weights in another order than the model's: the same
  // scores as long as every weight is an integer (the updates are +-1), so they are used
  // only then (weights averaged by parameter mixing are not).
  const int64_t nodes = model_.num_node_features();
  const bool packed = options_.perceptron_slots && FeatureIndex::Fits(model_) &&
                      std::all_of(w_.begin(), w_.begin() + nodes,
                                  [](double x) { return x == std::trunc(x) && std::fabs(x) < 0x1p52; });
  if (packed) {
    if (pack_at_.empty()) {  // built on first use: a mixing shard's averaged start weights never need it
      index_ = FeatureIndex::For(model_, corpus_);
      pack_at_ = index_.WeightPositions(model_);
      // Slots without a feature (a dense attribute's other labels) are never updated: they stay 0.
      pack_.assign(index_.pack_size(), 0.0);
    }
    index_.Gather(model_, w_.data(), pack_.data());
  }
  const auto step = [&](int64_t f, double by) {
    if (packed && f < nodes) pack_[pack_at_[f]] += by;
  };
  int64_t mistakes = 0;
  for (std::size_t q = 0; q < order_.size(); ++q) {
    if (cancel && (q & 255) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    int64_t s = order_[q];
    const int32_t n = SentenceLength(corpus_, s);
    if (n == 0) continue;
    const int32_t* gold = &corpus_.labels[corpus_.sentence_start[s]];
    emissions.resize(static_cast<std::size_t>(n) * L);
    if (packed)
      index_.Emissions(corpus_, s, pack_.data(), emissions.data());
    else
      model_.Emissions(corpus_, s, w_.data(), emissions.data());
    scores.Compute(lat_, w_.data());  // transitions change after every update
    if (model_.has_edge_features()) {
      pairs.resize(static_cast<std::size_t>(n) * model_.num_pairs());
      model_.EdgeScores(corpus_, s, w_.data(), pairs.data());
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
      ForEachPathWeight(
          model_, lat_, corpus_, s, gold,
          [&](int64_t f) {
            w_[f] += 1;
            u_[f] += c;
            step(f, 1);
          },
          differs.data());
      ForEachPathWeight(
          model_, lat_, corpus_, s, guess.data(),
          [&](int64_t f) {
            w_[f] -= 1;
            u_[f] -= c;
            step(f, -1);
          },
          differs.data());
      ZeroStartWeights();
    }
    c_ += 1;
  }
  loss_ = static_cast<double>(mistakes);
}

void TaggerTrainer::SgdEpoch(const std::atomic<bool>* cancel) {
  Shuffle();
  const int32_t L = model_.num_labels();
  const double N = static_cast<double>(std::max<int64_t>(1, corpus_.sentences()));
  const double lambda = 2 * options_.c2 / N;
  ChainDecoder decoder(lat_);
  ChainScores scores;
  std::vector<double> emissions, marginals, pairs, edge(lat_.num_edges()), start(lat_.start_state.size());
  std::vector<int32_t> states;
  double loss = 0;
  for (std::size_t q = 0; q < order_.size(); ++q) {
    if (cancel && (q & 255) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    int64_t s = order_[q];
    const int32_t n = SentenceLength(corpus_, s);
    if (n == 0) continue;
    const int32_t* gold = &corpus_.labels[corpus_.sentence_start[s]];
    double eta = options_.eta0 / (1.0 + lambda * options_.eta0 * static_cast<double>(t_++));
    scale_ *= (1.0 - eta * lambda);
    if (scale_ < 1e-9) {  // fold the scale into the weights before it underflows
      for (double& v : w_) v *= scale_;
      scale_ = 1.0;
    }
    const double gain = eta / scale_;
    emissions.resize(static_cast<std::size_t>(n) * L);
    marginals.resize(static_cast<std::size_t>(n) * L);
    model_.Emissions(corpus_, s, w_.data(), emissions.data());
    for (double& e : emissions) e *= scale_;
    scores.Compute(lat_, w_.data(), scale_);
    if (model_.has_edge_features()) {
      pairs.resize(static_cast<std::size_t>(n) * model_.num_pairs());
      model_.EdgeScores(corpus_, s, w_.data(), pairs.data(), scale_);
      decoder.SetPairScores(pairs.data());
    }
    std::fill(edge.begin(), edge.end(), 0.0);
    std::fill(start.begin(), start.end(), 0.0);
    double log_z =
        decoder.ForwardBackward(n, emissions.data(), scores, marginals.data(), edge.data(), start.data());
    loss += log_z - decoder.PathScore(n, emissions.data(), scores, gold);
    for (int32_t i = 0; i < n; ++i) marginals[static_cast<std::size_t>(i) * L + gold[i]] -= 1.0;
    AddEmissionGradient(model_, corpus_, s, marginals.data(), -gain, w_.data());
    if (model_.has_edge_features()) {
      AddEdgeGradient(model_, corpus_, s, decoder.pair_marginals().data(), gold, -gain, w_.data());
    }
    states.resize(n);
    lat_.States(gold, n, states.data());
    start[lat_.StartIndex(states[0])] -= 1.0;
    for (int32_t i = 1; i < n; ++i) edge[lat_.Edge(states[i - 1], states[i])] -= 1.0;
    for (std::size_t e = 0; e < edge.size(); ++e) {
      if (edge[e] == 0) continue;
      w_[lat_.edge_w1[e]] -= gain * edge[e];
      if (lat_.edge_w2[e] >= 0) w_[lat_.edge_w2[e]] -= gain * edge[e];
    }
    if (options_.start_weights) {
      for (std::size_t k = 0; k < start.size(); ++k) w_[lat_.start_weight[k]] -= gain * start[k];
    }
  }
  double norm = 0;
  for (double v : w_) norm += v * v;
  loss_ = loss + options_.c2 * norm * scale_ * scale_;
}

void TaggerTrainer::ExportWeights() {
  std::vector<double> w(w_.size());
  if (model_.algorithm == TaggerAlgorithm::kPerceptron) {
    for (std::size_t k = 0; k < w_.size(); ++k) w[k] = w_[k] - u_[k] / c_;
  } else {
    for (std::size_t k = 0; k < w_.size(); ++k) w[k] = scale_ * w_[k];
  }
  model_.weights = std::move(w);
}

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
