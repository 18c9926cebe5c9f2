#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "core/exp.h"
#include "core/simd.h"
#include "core/test_harness.h"
#include "core/word_signature.h"
#include "tagger/chain.h"
#include "tagger/training_columns.h"
#include "tagger/features.h"
#include "tagger/model.h"
#include "tagger/column_tagging.h"
#include "tagger/feature_index.h"
#include "tagger/sentence_tagger.h"
#include "tagger/trainer.h"

using namespace structrank;

namespace {

// A model with L labels, `attrs` attributes each paired with every label, random weights,
// and a corpus of random sentences of the given lengths.
struct Fixture {
  TaggerModel model;
  TaggerCorpus corpus;
};

Fixture RandomFixture(int L, int order, std::vector<int> lengths, uint64_t seed, bool edges = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Fixture fx;
  fx.model.order = order;
  for (int y = 0; y < L; ++y) fx.model.labels.Intern(std::string(1, char('A' + y)));
  const int attrs = 6;
  for (int a = 0; a < attrs; ++a) fx.model.attributes.Insert(1000 + a);
  for (int a = 0; a < attrs; ++a) {
    for (int y = 0; y < L; ++y) fx.model.feature_label.push_back(y);
    fx.model.attr_offset.push_back(fx.model.feature_label.size());
  }
  // Edge features: each attribute pairs with a random half of the (previous, current) pairs.
  fx.model.edge_offset.push_back(0);
  for (int a = 0; a < attrs; ++a) {
    if (edges) {
      for (int pair = 0; pair < (L + 1) * L; ++pair) {
        if (rng() % 2) fx.model.edge_pair.push_back(pair);
      }
    }
    fx.model.edge_offset.push_back(fx.model.edge_pair.size());
  }
  if (!edges) fx.model.edge_offset.clear();  // no edge features: no offsets
  fx.model.weights.Edit([&](std::vector<double>& w) {
    w.resize(fx.model.num_weights());
    for (double& v : w) v = u(rng);
  });
  for (int n : lengths) {
    for (int i = 0; i < n; ++i) {
      std::vector<int32_t> row;
      for (int a = 0; a < attrs; ++a) {
        if (rng() % 2) row.push_back(a);
      }
      fx.corpus.attributes.AddRow(row.data(), nullptr, row.size());
      std::vector<int32_t> edge_row;
      for (int a = 0; a < attrs; ++a) {
        if (edges && rng() % 3 == 0) edge_row.push_back(a);
      }
      fx.corpus.edge_attributes.AddRow(edge_row.data(), nullptr, edge_row.size());
      fx.corpus.labels.push_back(static_cast<int32_t>(rng() % L));
    }
    fx.corpus.sentence_start.push_back(fx.corpus.sentence_start.back() + n);
  }
  return fx;
}

// Independent sequence score straight from the weight layout (sentence `sent` of `c`).
double BruteScore(const TaggerModel& m, const TaggerCorpus& c, int64_t sent, const std::vector<double>& em,
                  const std::vector<int32_t>& y) {
  const int L = m.num_labels();
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    int64_t t = c.sentence_start[sent] + i;
    int32_t pair = (i == 0 ? L : y[i - 1]) * L + y[i];
    for (int64_t k = c.edge_attributes.RowBegin(t); k < c.edge_attributes.RowEnd(t); ++k) {
      int32_t a = c.edge_attributes.cols[k];
      for (int64_t g = m.edge_offset[a]; g < m.edge_offset[a + 1]; ++g) {
        if (m.edge_pair[g] == pair) s += m.weights[m.num_node_features() + g];
      }
    }
    s += em[i * L + y[i]];
    s += m.weights[m.Trans1(i == 0 ? L : y[i - 1], y[i])];
    if (m.order == 2 && i > 0) s += m.weights[m.Trans2(i == 1 ? L : y[i - 2], y[i - 1], y[i])];
  }
  return s;
}

std::vector<std::vector<int32_t>> AllSequences(int L, int n) {
  std::vector<std::vector<int32_t>> out;
  std::vector<int32_t> y(n, 0);
  while (true) {
    out.push_back(y);
    int i = n - 1;
    while (i >= 0 && ++y[i] == L) y[i--] = 0;
    if (i < 0) break;
  }
  return out;
}

}  // namespace

TEST(forward_backward_matches_enumeration_first_and_second_order) {
  for (int order : {1, 2}) {
    Fixture fx = RandomFixture(3, order, {1, 2, 4, 5}, 7 + order);
    const TaggerModel& m = fx.model;
    const int L = m.num_labels();
    ChainLattice lat = ChainLattice::For(m);
    ChainScores sc;
    sc.Compute(lat, m.weights.data());
    ChainDecoder dec(lat);
    for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
      int n = fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s];
      std::vector<double> em(n * L), marg(n * L), edge(lat.num_edges(), 0.0),
          start(lat.start_state.size(), 0.0);
      m.Emissions(fx.corpus, s, m.weights.data(), em.data());
      std::vector<double> pairs(n * m.num_pairs());
      m.EdgeScores(fx.corpus, s, m.weights.data(), pairs.data());
      dec.SetPairScores(pairs.data());
      double log_z = dec.ForwardBackward(n, em.data(), sc, marg.data(), edge.data(), start.data());
      // Brute force: Z, label marginals, expected count of every transition weight.
      auto seqs = AllSequences(L, n);
      double z = 0;
      std::vector<double> bm(n * L, 0.0);
      std::map<int64_t, double> trans;
      const int P = m.num_pairs();
      std::vector<double> bp(n * P, 0.0);
      for (auto& y : seqs) z += std::exp(BruteScore(m, fx.corpus, s, em, y));
      for (auto& y : seqs) {
        double p = std::exp(BruteScore(m, fx.corpus, s, em, y)) / z;
        for (int i = 0; i < n; ++i) {
          bm[i * L + y[i]] += p;
          bp[i * P + (i == 0 ? L : y[i - 1]) * L + y[i]] += p;
          trans[m.Trans1(i == 0 ? L : y[i - 1], y[i])] += p;
          if (order == 2 && i > 0) trans[m.Trans2(i == 1 ? L : y[i - 2], y[i - 1], y[i])] += p;
        }
      }
      CHECK_NEAR(log_z, std::log(z), 1e-10);
      for (int k = 0; k < n * L; ++k) CHECK_NEAR(marg[k], bm[k], 1e-10);
      for (int k = 0; k < n * P; ++k) CHECK_NEAR(dec.pair_marginals()[k], bp[k], 1e-10);
      std::map<int64_t, double> got;
      for (int e = 0; e < lat.num_edges(); ++e) {
        if (edge[e] == 0) continue;
        got[lat.edge_w1[e]] += edge[e];
        if (lat.edge_w2[e] >= 0) got[lat.edge_w2[e]] += edge[e];
      }
      for (std::size_t q = 0; q < start.size(); ++q) got[lat.start_weight[q]] += start[q];
      for (auto& [k, v] : trans) CHECK_NEAR(got[k], v, 1e-10);
      for (auto& [k, v] : got) CHECK_NEAR(v, trans[k], 1e-10);
    }
  }
}

TEST(viterbi_and_kbest_match_enumeration) {
  for (int order : {1, 2}) {
    Fixture fx = RandomFixture(3, order, {1, 3, 5}, 21 + order);
    const TaggerModel& m = fx.model;
    const int L = m.num_labels();
    ChainLattice lat = ChainLattice::For(m);
    ChainScores sc;
    sc.Compute(lat, m.weights.data());
    ChainDecoder dec(lat);
    for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
      int n = fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s];
      std::vector<double> em(n * L);
      m.Emissions(fx.corpus, s, m.weights.data(), em.data());
      std::vector<double> pairs(n * m.num_pairs());
      m.EdgeScores(fx.corpus, s, m.weights.data(), pairs.data());
      dec.SetPairScores(pairs.data());
      std::vector<std::pair<double, std::vector<int32_t>>> all;
      for (auto& y : AllSequences(L, n)) all.push_back({BruteScore(m, fx.corpus, s, em, y), y});
      std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.first > b.first; });
      std::vector<int32_t> best(n);
      double v = dec.Viterbi(n, em.data(), sc, best.data());
      CHECK_NEAR(v, all[0].first, 1e-12);
      CHECK(best == all[0].second);
      int k = 7;
      auto kb = dec.KBest(n, em.data(), sc, k);
      CHECK(static_cast<int>(kb.size()) == std::min<int>(k, all.size()));
      for (std::size_t q = 0; q < kb.size(); ++q) {
        CHECK_NEAR(kb[q].score, all[q].first, 1e-12);
        CHECK_NEAR(BruteScore(m, fx.corpus, s, em, kb[q].labels), kb[q].score, 1e-12);
        if (q > 0) CHECK(kb[q].labels != kb[q - 1].labels);
      }
      // CRF decoding reports log-probabilities that sum to <= 0 and match enumeration.
      fx.model.algorithm = TaggerAlgorithm::kCrf;
      SentenceTagger tagger(fx.model);
      auto cands = tagger.Decode(fx.corpus, s, 3);
      double z = 0;
      for (auto& a : all) z += std::exp(a.first);
      CHECK_NEAR(cands[0].score, all[0].first - std::log(z), 1e-10);
    }
  }
}

TEST(crf_and_maxent_gradients_equal_finite_differences) {
  for (int order : {1, 2}) {
    for (int algo : {1, 2}) {
      Fixture fx = RandomFixture(3, order, {2, 3, 4, 1}, 99 + order);
      TaggerModel& m = fx.model;
      ChainLattice lat = ChainLattice::For(m);
      std::vector<double> w = m.weights.ToVector(), g(w.size()), g2(w.size());
      auto f = [&](const std::vector<double>& x, std::vector<double>& grad) {
        return algo == 1 ? CrfObjective(m, lat, fx.corpus, x, grad, 0.3, 2)
                         : MaxentObjective(m, fx.corpus, x, grad, 0.3, 2);
      };
      f(w, g);
      const double h = 1e-6;
      for (std::size_t k = 0; k < w.size(); ++k) {
        std::vector<double> wp = w, wm = w;
        wp[k] += h;
        wm[k] -= h;
        double numeric = (f(wp, g2) - f(wm, g2)) / (2 * h);
        CHECK_NEAR(g[k], numeric, 1e-5);
      }
    }
  }
}

// The encoders the training algorithms drive (encoder.h) give the objective functions' bits:
// the CRF chain with its own feature index and kept buffers, evaluated twice; maxent.
TEST(encoders_give_the_objective_functions_bits) {
  for (int order : {1, 2}) {
    for (int threads : {1, 3}) {
      Fixture fx = RandomFixture(4, order, {2, 5, 1, 7, 3}, 17 + order);
      const TaggerModel& m = fx.model;
      ChainLattice lat = ChainLattice::For(m);
      std::vector<double> w = m.weights.ToVector(), want(w.size()), got(w.size());
      ChainEncoder chain(m, fx.corpus, 0.4, threads, order == 1, true);
      TaggerEncoder& crf = chain;
      for (int round = 0; round < 2; ++round) {
        const double f0 = CrfObjective(m, lat, fx.corpus, w, want, 0.4, threads, nullptr, order == 1);
        const double f1 = crf.ObjectiveAndGradient(w, got, nullptr);
        CHECK(f0 == f1);
        CHECK(want == got);
        for (double& x : w) x *= 0.5;
      }
      MaxentEncoder maxent_encoder(m, fx.corpus, 0.2, threads);
      TaggerEncoder& maxent = maxent_encoder;
      const double f0 = MaxentObjective(m, fx.corpus, w, want, 0.2, threads);
      const double f1 = maxent.ObjectiveAndGradient(w, got, nullptr);
      CHECK(f0 == f1);
      CHECK(want == got);
    }
  }
}

// RandomFixture with attribute a paired with a random subset of 1 + (a * 5) % L labels, so
// that some attributes are sparse and some dense in every FeatureIndex layout.
Fixture MixedDensityFixture(int L, int attrs, std::vector<int> lengths, uint64_t seed) {
  Fixture fx = RandomFixture(L, 1, lengths, seed, false);
  std::mt19937_64 rng(seed * 31 + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  TaggerModel& m = fx.model;
  for (int a = 6; a < attrs; ++a) m.attributes.Insert(1000 + a);
  m.attr_offset.Edit([](std::vector<int64_t>& o) { o.assign(1, 0); });
  m.feature_label.Edit([](std::vector<int32_t>& f) { f.clear(); });
  for (int a = 0; a < attrs; ++a) {
    std::vector<int32_t> ys(L);
    std::iota(ys.begin(), ys.end(), 0);
    std::shuffle(ys.begin(), ys.end(), rng);  // the model's order need not be by label
    ys.resize(1 + (a * 5) % L);
    m.feature_label.Edit([&](std::vector<int32_t>& f) { f.insert(f.end(), ys.begin(), ys.end()); });
    m.attr_offset.Edit(
        [&](std::vector<int64_t>& o) { o.push_back(static_cast<int64_t>(m.feature_label.size())); });
  }
  m.weights.Edit([&](std::vector<double>& w) {
    w.resize(m.num_weights());
    for (double& v : w) v = u(rng);
  });
  TaggerCorpus c;
  for (int n : lengths) {
    for (int i = 0; i < n; ++i) {
      std::vector<int32_t> row;
      for (int a = 0; a < attrs; ++a) {
        if (rng() % 3 == 0) row.push_back(a);
      }
      c.attributes.AddRow(row.data(), nullptr, row.size());
      c.edge_attributes.AddRow(nullptr, nullptr, 0);
      c.labels.push_back(static_cast<int32_t>(rng() % L));
    }
    c.sentence_start.push_back(c.sentence_start.back() + n);
  }
  fx.corpus = std::move(c);
  return fx;
}

// `c` with each token's attributes listed dense ones first (in `index`), as the index's
// loops visit them.
TaggerCorpus DenseFirst(const TaggerCorpus& c, const FeatureIndex& index) {
  TaggerCorpus out = c;
  for (int64_t t = 0; t < c.attributes.rows(); ++t) {
    std::stable_partition(out.attributes.cols.begin() + c.attributes.RowBegin(t),
                          out.attributes.cols.begin() + c.attributes.RowEnd(t),
                          [&](int32_t a) { return index.Dense(a); });
  }
  return out;
}

// The slot layouts (every attribute dense, only full ones, the default; by attribute id and
// most frequent first) give the CRF objective and gradient of the model's own loops to the
// last bit on 1 thread, where the model's loops see each token's dense attributes first as
// the index's loops do; within 1e-12 in the corpus's own order and on 3 threads. Label
// counts for dense rows of 1 to 4 vector registers (W = 8 .. 32), one of exactly 8, and
// one beyond them (the plain loops).
TEST(crf_objective_is_the_same_in_every_slot_layout) {
  for (int L : {3, 8, 9, 23, 30, 40}) {
    Fixture fx = MixedDensityFixture(L, 40, {1, 7, 12, 30, 4, 19, 25}, 5 + L);
    const TaggerModel& m = fx.model;
    ChainLattice lat = ChainLattice::For(m);
    const std::vector<double> w = m.weights.ToVector();
    std::vector<double> plain(w.size()), want(w.size()), got(w.size());
    const FeatureIndex none;
    const double f_plain = CrfObjective(m, lat, fx.corpus, w, plain, 0.7, 1, nullptr, true, &none);
    int dense_seen = 0, sparse_seen = 0, reordered = 0;
    for (int32_t dense_min : {1, 4, FeatureIndex::kDenseMin, L, -1}) {
      // -1: the default, attributes most frequent first
      const FeatureIndex index =
          dense_min < 0 ? FeatureIndex::For(m, fx.corpus) : FeatureIndex::For(m, fx.corpus, dense_min, false);
      CHECK(index.Indexes(fx.corpus));
      for (int32_t a = 0; a < static_cast<int32_t>(index.span.size()); ++a)
        (index.Dense(a) ? dense_seen : sparse_seen)++;
      // Gather writes the weights; AddTo takes the gradient sums and leaves 0 behind.
      std::vector<double> back(w.size(), 0.0), pack(index.pack_size(), 0.0);
      index.Gather(m, w.data(), pack.data());
      for (int64_t f = 0; f < m.num_node_features(); ++f) {
        const int32_t a =
            static_cast<int32_t>(std::upper_bound(m.attr_offset.begin(), m.attr_offset.end(), f) -
                                 m.attr_offset.begin()) -
            1;
        const std::size_t j = index.Dense(a) ? m.feature_label[f] : f - m.attr_offset[a];
        const std::size_t at = 2 * std::size_t{index.span[a].first} + j;  // weights at 2 first .. + n
        CHECK(pack[at] == w[f]);
        pack[at + index.span[a].n] = 0.5;  // its gradient sum
      }
      index.AddTo(m, pack.data(), back.data());
      for (int64_t f = 0; f < m.num_node_features(); ++f) CHECK(back[f] == 0.5);
      index.AddTo(m, pack.data(), back.data());
      for (int64_t f = 0; f < m.num_node_features(); ++f) CHECK(back[f] == 0.5);
      const TaggerCorpus ordered = DenseFirst(fx.corpus, index);
      reordered += ordered.attributes.cols != fx.corpus.attributes.cols;
      const double f0 = CrfObjective(m, lat, ordered, w, want, 0.7, 1, nullptr, true, &none);
      for (int threads : {1, 3}) {
        const double f1 = CrfObjective(m, lat, fx.corpus, w, got, 0.7, threads, nullptr, true, &index);
        CHECK(f1 == f0 || threads > 1);  // threads sum their losses in another order
        CHECK_NEAR(f1, f0, 1e-12 * std::abs(f0));
        CHECK_NEAR(f1, f_plain, 1e-12 * std::abs(f_plain));
        for (std::size_t k = 0; k < w.size(); ++k) {
          CHECK(threads > 1 || got[k] == want[k]);
          CHECK_NEAR(got[k], want[k], 1e-12);
          CHECK_NEAR(got[k], plain[k], 1e-12);
        }
      }
    }
    CHECK(dense_seen > 0 && sparse_seen > 0 && reordered > 0);
  }
}

// Buffers kept from one evaluation to the next (ChainEncoder, for L-BFGS) give the bits of
// fresh ones, at other weights in between and after an evaluation that was cancelled.
TEST(crf_objective_with_kept_buffers_equals_fresh_ones) {
  std::vector<int> lengths(150);  // 3 chunks of 64 sentences: 3 threads each with a share
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = 1 + static_cast<int>(i % 9);
  Fixture fx = MixedDensityFixture(9, 40, lengths, 23);
  const TaggerModel& m = fx.model;
  ChainLattice lat = ChainLattice::For(m);
  const FeatureIndex index = FeatureIndex::For(m, fx.corpus);
  std::vector<double> w = m.weights.ToVector(), w2 = w;
  for (double& v : w2) v *= -0.5;
  for (int threads : {1, 3}) {
    std::vector<ObjectiveScratch> kept;
    std::vector<double> want(w.size()), got(w.size());
    for (const auto* x : {&w, &w2, &w}) {
      const double f0 = CrfObjective(m, lat, fx.corpus, *x, want, 0.7, threads, nullptr, true, &index);
      const double f1 = CrfObjective(m, lat, fx.corpus, *x, got, 0.7, threads, nullptr, true, &index, &kept);
      // On 3 threads the sentences a thread gets, so the order of the sums, vary from run to run.
      CHECK(threads > 1 || (f1 == f0 && got == want));
      CHECK_NEAR(f1, f0, 1e-12 * std::abs(f0));
      for (std::size_t k = 0; k < w.size(); ++k) CHECK_NEAR(got[k], want[k], 1e-12);
    }
    std::atomic<bool> cancel{true};
    CHECK_THROWS(CrfObjective(m, lat, fx.corpus, w2, got, 0.7, threads, &cancel, true, &index, &kept));
    for (auto& b : kept) std::fill(b.pack.begin(), b.pack.end(), 3.0);  // what a cancelled run may leave
    const double f0 = CrfObjective(m, lat, fx.corpus, w, want, 0.7, threads, nullptr, true, &index);
    const double f1 = CrfObjective(m, lat, fx.corpus, w, got, 0.7, threads, nullptr, true, &index, &kept);
    CHECK(threads > 1 || (f1 == f0 && got == want));
    CHECK_NEAR(f1, f0, 1e-12 * std::abs(f0));
    for (std::size_t k = 0; k < w.size(); ++k) CHECK_NEAR(got[k], want[k], 1e-12);
  }
}

// An index answers only for the corpus it was built for.
TEST(crf_objective_refuses_an_index_of_another_corpus) {
  Fixture fx = MixedDensityFixture(5, 12, {3, 4}, 17);
  Fixture other = MixedDensityFixture(5, 12, {3, 5}, 17);
  const FeatureIndex index = FeatureIndex::For(fx.model, other.corpus);
  ChainLattice lat = ChainLattice::For(fx.model);
  std::vector<double> w = fx.model.weights.ToVector(), g(w.size());
  CHECK(!index.Indexes(fx.corpus));
  CHECK_THROWS(CrfObjective(fx.model, lat, fx.corpus, w, g, 0.7, 1, nullptr, true, &index));
}

TEST(perceptron_update_on_the_man_bit_the_dog) {
  // The example of Collins (2005), lecture notes: gold the/DT man/NN bit/VBD the/DT dog/NN, guess has bit/NN.
  // Features: word/tag pairs and tag bigrams. Update: +<NN,VBD> +<VBD,DT> +<VBD->bit>,
  // -<NN,NN> -<NN,DT> -<NN->bit>; nothing else changes.
  TaggerModel m;
  m.algorithm = TaggerAlgorithm::kPerceptron;
  int32_t counts[] = {1};
  (void)counts;
  int32_t ints[] = {1, 1, static_cast<int32_t>(AtomKind::kField), 0, 0, 0};
  m.config = FeatureConfig::FromInts(ints, 6, 1);
  TaggerCorpus corpus =
      m.BuildCorpus("the\nman\nbit\nthe\ndog\n\nbit\n", "DT\nNN\nVBD\nDT\nNN\n\nNN\n", true);
  m.BuildFeatures(corpus);
  ChainLattice lat = ChainLattice::For(m);
  std::vector<double> w(m.num_weights(), 0.0);
  int32_t DT = m.labels.Find("DT"), NN = m.labels.Find("NN"), VBD = m.labels.Find("VBD");
  std::vector<int32_t> gold = {DT, NN, VBD, DT, NN}, guess = {DT, NN, NN, DT, NN};
  ForEachPathWeight(m, lat, corpus, 0, gold.data(), [&](int64_t f) { w[f] += 1; });
  ForEachPathWeight(m, lat, corpus, 0, guess.data(), [&](int64_t f) { w[f] -= 1; });
  auto feature = [&](const char* word, int32_t y) {
    FeatureExtractor ex(m.config);
    SentenceFields s;
    s.length = 1;
    s.fields = {word};
    int32_t a = -1;
    ex.Extract(s, [&](int32_t, uint64_t key, bool) { a = m.attributes.Find(key); });
    for (int64_t f = m.attr_offset[a]; f < m.attr_offset[a + 1]; ++f) {
      if (m.feature_label[f] == y) return f;
    }
    return int64_t{-1};
  };
  std::map<int64_t, double> expected = {{m.Trans1(NN, VBD), 1},   {m.Trans1(VBD, DT), 1},
                                        {feature("bit", VBD), 1}, {m.Trans1(NN, NN), -1},
                                        {m.Trans1(NN, DT), -1},   {feature("bit", NN), -1}};
  for (std::size_t k = 0; k < w.size(); ++k) {
    double want = expected.count(k) ? expected[k] : 0.0;
    CHECK(w[k] == want);
  }
}

TEST(feature_atoms_lowercase_shape_affixes) {
  CHECK(LowerUtf8("McCAIN-É") == "mccain-é");
  CHECK(WordShape("McCain-2", ShapeRuns::kEach) == "XxXxxx-d");
  CHECK(WordShape("McCain-22", ShapeRuns::kAllRuns) == "XxXx-d");
  // prefix2 and suffix2 of a UTF-8 word count code points.
  int32_t ints[] = {2, 1, static_cast<int32_t>(AtomKind::kPrefix), 0, 0,
                    2, 1, static_cast<int32_t>(AtomKind::kSuffix), 0, 0,
                    2};
  FeatureConfig c = FeatureConfig::FromInts(ints, 11, 1);
  FeatureExtractor ex(c);
  auto keys = [&](const char* word) {
    SentenceFields s;
    s.length = 1;
    s.fields = {word};
    std::vector<uint64_t> out;
    ex.Extract(s, [&](int32_t, uint64_t key, bool) { out.push_back(key); });
    return out;
  };
  auto a = keys("éxito"), b = keys("éxodo"), d = keys("a");
  CHECK(a.size() == 2 && b.size() == 2);
  CHECK(a[0] == b[0]);  // prefix "éx"
  CHECK(a[1] != b[1]);  // suffixes "to" vs "do"
  CHECK(d.empty());     // too short for either
  int32_t bad[] = {1, 1, 99, 0, 0, 0};
  CHECK_THROWS(FeatureConfig::FromInts(bad, 6, 1));
}

// Word atoms in any script: Portuguese, Greek, Cyrillic, CJK (caseless letters are L).
TEST(feature_atoms_are_unicode_aware) {
  CHECK(LowerUtf8("AÇÃO") == "ação");
  CHECK(WordShape("São-Paulo2", ShapeRuns::kAllRuns) == "Xx-Xxd");
  CHECK(LowerUtf8("ΑΘΗΝΑ") == "αθηνα");
  CHECK(WordShape("Αθήνα", ShapeRuns::kEach) == "Xxxxx");
  CHECK(LowerUtf8("МОСКВА") == "москва");
  CHECK(WordShape("Москва-3", ShapeRuns::kAllRuns) == "Xx-d");
  CHECK(LowerUtf8("東京") == "東京");
  CHECK(WordShape("東京2020", ShapeRuns::kAllRuns) == "Ld");
  // initcap and allcap see Greek and Cyrillic capitals.
  int32_t ints[] = {2, 1, static_cast<int32_t>(AtomKind::kInitCap), 0, 0,
                    0, 1, static_cast<int32_t>(AtomKind::kAllCap),  0, 0,
                    0};
  FeatureConfig c = FeatureConfig::FromInts(ints, 11, 1);
  FeatureExtractor ex(c);
  auto count = [&](const char* word) {
    SentenceFields s;
    s.length = 1;
    s.fields = {word};
    int n = 0;
    ex.Extract(s, [&](int32_t, uint64_t, bool) { ++n; });
    return n;
  };
  CHECK(count("Ωμέγα") == 1);   // initcap only
  CHECK(count("ΣΠΑΡΤΗ") == 2);  // initcap and allcap
  CHECK(count("Жуков") == 1);
  CHECK(count("東京") == 0);  // caseless: neither
}

// The first-order Viterbi loop as it was written before it ran across labels (row by row,
// each label's predecessors in order): the vectorized step must give the same labels and
// score, ties included (first best predecessor wins).
double RowByRowViterbi(const ChainLattice& lat, const ChainScores& sc, int32_t n, const double* em,
                       int32_t* labels) {
  const int32_t L = lat.L;
  std::vector<double> a(static_cast<std::size_t>(n) * L);
  std::vector<int32_t> back(static_cast<std::size_t>(n) * L);
  for (std::size_t k = 0; k < lat.start_state.size(); ++k) {
    const int32_t st = lat.start_state[k];
    a[st] = sc.start[k] + em[lat.state_label[st]];
  }
  for (int32_t i = 1; i < n; ++i) {
    for (int32_t st = 0; st < L; ++st) {
      const double* t = sc.edge.data() + static_cast<std::size_t>(st) * L;
      double best = a[(i - 1) * L] + t[0];
      int32_t arg = 0;
      for (int32_t p = 1; p < L; ++p) {
        const double v = a[(i - 1) * L + p] + t[p];
        if (v > best) {
          best = v;
          arg = p;
        }
      }
      a[i * L + st] = best + em[i * L + st];
      back[i * L + st] = arg;
    }
  }
  const double* last = &a[static_cast<std::size_t>(n - 1) * L];
  int32_t st = static_cast<int32_t>(std::max_element(last, last + L) - last);
  const double best = last[st];
  for (int32_t i = n - 1; i >= 0; --i) {
    labels[i] = st;
    if (i > 0) st = back[i * L + st];
  }
  return best;
}

// Label counts on both sides of each padded width (8, 16, 24, 32) and past them (the
// unpadded step).
TEST(first_order_viterbi_equals_the_row_by_row_loop) {
  for (int L : {1, 2, 5, 8, 9, 16, 17, 22, 23, 24, 25, 32, 33, 40}) {
    for (bool ties : {false, true}) {
      Fixture fx = RandomFixture(L, 1, {1, 2, 9, 30}, 40 + L, false);
      // Small integer weights: many equal path scores, so tie-breaking is exercised.
      if (ties)
        fx.model.weights.Edit([](std::vector<double>& w) {
          for (double& v : w) v = std::round(v * 2);
        });
      const TaggerModel& m = fx.model;
      ChainLattice lat = ChainLattice::For(m);
      ChainScores sc;
      sc.Compute(lat, m.weights.data());
      ChainDecoder dec(lat);
      for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
        const int32_t n = static_cast<int32_t>(fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s]);
        std::vector<double> em(static_cast<std::size_t>(n) * L);
        m.Emissions(fx.corpus, s, m.weights.data(), em.data());
        std::vector<int32_t> got(n), want(n);
        const double v = dec.Viterbi(n, em.data(), sc, got.data());
        CHECK(v == RowByRowViterbi(lat, sc, n, em.data(), want.data()));
        CHECK(got == want);
      }
    }
  }
}

// The dense first-order forward-backward (rows of 8, 16, 24, 32 doubles kept in registers,
// and wider rows) against the generic loop, run by giving it pair scores that are all 0:
// log Z and the node marginals are the same to the last bit, the edge expectations are
// summed in another order.
TEST(first_order_forward_backward_equals_the_generic_loop) {
  for (int L : {1, 5, 9, 16, 23, 31, 40}) {
    Fixture fx = RandomFixture(L, 1, {1, 2, 9, 30}, 60 + L, false);
    const TaggerModel& m = fx.model;
    ChainLattice lat = ChainLattice::For(m);
    for (bool precomputed : {false, true}) {
      ChainScores sc;
      sc.Compute(lat, m.weights.data(), 1.0, precomputed);
      ChainDecoder dense(lat), generic(lat);
      for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
        const int32_t n = static_cast<int32_t>(fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s]);
        const std::size_t nL = static_cast<std::size_t>(n) * L;
        std::vector<double> em(nL), zeros(static_cast<std::size_t>(n) * m.num_pairs(), 0.0);
        m.Emissions(fx.corpus, s, m.weights.data(), em.data());
        std::vector<double> marg(nL), marg2(nL), edge(lat.num_edges(), 0.0), edge2(edge), start(L, 0.0),
            start2(start);
        const double z = dense.ForwardBackward(n, em.data(), sc, marg.data(), edge.data(), start.data());
        generic.SetPairScores(zeros.data());
        const double z2 =
            generic.ForwardBackward(n, em.data(), sc, marg2.data(), edge2.data(), start2.data());
        CHECK(z == z2);
        CHECK(marg == marg2);
        CHECK(start == start2);
        for (std::size_t e = 0; e < edge.size(); ++e) CHECK_NEAR(edge[e], edge2[e], 1e-12);
      }
    }
  }
}

// Every vector variant (core/simd.h) against the portable one, on label counts on both sides
// of each padded width and past them: the CRF objective and gradient, forward-backward's log Z
// and marginals, Viterbi's score and path, and e^x, all to the last bit. A variant this CPU
// cannot run is skipped, and says so.
TEST(every_simd_variant_gives_the_portable_bits) {
  const SimdLevel kept = SimdActive();
  struct Result {
    std::vector<double> objective, gradient, chain, exp;
    std::vector<int32_t> paths;
  };
  auto run = [](SimdLevel level) {
    CHECK(SimdForce(level));
    CHECK(SimdActive() == level);
    Result r;
    for (int L : {3, 8, 9, 16, 23, 30, 33, 40}) {
      Fixture fx = MixedDensityFixture(L, 40, {1, 7, 12, 30, 4, 19, 25}, 90 + L);
      const TaggerModel& m = fx.model;
      ChainLattice lat = ChainLattice::For(m);
      const std::vector<double> w = m.weights.ToVector();
      std::vector<double> grad(w.size());
      const FeatureIndex index = FeatureIndex::For(m, fx.corpus);
      r.objective.push_back(CrfObjective(m, lat, fx.corpus, w, grad, 0.7, 1, nullptr, true, &index));
      r.gradient.insert(r.gradient.end(), grad.begin(), grad.end());
      ChainScores sc;
      sc.Compute(lat, m.weights.data(), 1.0, true);
      ChainDecoder dec(lat);
      for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
        const int32_t n = static_cast<int32_t>(fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s]);
        const std::size_t nL = static_cast<std::size_t>(n) * L;
        std::vector<double> em(nL), marg(nL), edge(lat.num_edges(), 0.0), start(L, 0.0);
        m.Emissions(fx.corpus, s, m.weights.data(), em.data());
        r.chain.push_back(dec.ForwardBackward(n, em.data(), sc, marg.data(), edge.data(), start.data()));
        r.chain.insert(r.chain.end(), marg.begin(), marg.end());
        r.chain.insert(r.chain.end(), edge.begin(), edge.end());
        r.chain.insert(r.chain.end(), start.begin(), start.end());
        std::vector<int32_t> path(n);
        r.chain.push_back(dec.Viterbi(n, em.data(), sc, path.data()));
        r.paths.insert(r.paths.end(), path.begin(), path.end());
      }
    }
    for (int i = 0; i < 203; ++i) r.exp.push_back(-720.0 + 7.19 * i);  // a tail past whole vectors
    ExpArray(r.exp.data(), r.exp.size());
    return r;
  };
  const Result want = run(SimdLevel::kPortable);
  int compared = 0;
  for (SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (!SimdSupported(level)) {
      std::cout << "  every_simd_variant_gives_the_portable_bits: " << SimdName(level)
                << " skipped: this CPU (or this build) cannot run it\n";
      CHECK(!SimdForce(level));
      continue;
    }
    const Result got = run(level);
    CHECK(got.objective == want.objective);
    CHECK(got.gradient == want.gradient);
    CHECK(got.chain == want.chain);
    CHECK(got.paths == want.paths);
    CHECK(got.exp == want.exp);
    ++compared;
  }
  CHECK(compared > 0 || !SimdSupported(SimdLevel::kAvx2));
  CHECK(SimdForce(kept));
}

template <typename T>
bool SameArray(const FlatArray<T>& a, const FlatArray<T>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool SameModel(const TaggerModel& a, const TaggerModel& b) {
  return a.algorithm == b.algorithm && a.order == b.order && a.beam == b.beam &&
         a.labels.names() == b.labels.names() && a.attributes.keys() == b.attributes.keys() &&
         SameArray(a.attr_offset, b.attr_offset) && SameArray(a.feature_label, b.feature_label) &&
         SameArray(a.edge_offset, b.edge_offset) && SameArray(a.edge_pair, b.edge_pair) &&
         SameArray(a.weights, b.weights);
}

// `bytes` copied to `shift` bytes past a 64-byte boundary, kept alive by the returned pointer.
std::shared_ptr<const void> PlacedCopy(const std::vector<uint8_t>& bytes, std::size_t shift,
                                       const uint8_t** at) {
  auto block = std::make_shared<std::vector<uint64_t>>((bytes.size() + shift) / 8 + 9);
  auto* base = reinterpret_cast<uint8_t*>(block->data());
  base += (64 - reinterpret_cast<std::uintptr_t>(base) % 64) % 64;
  std::memcpy(base + shift, bytes.data(), bytes.size());
  *at = base + shift;
  return block;
}

TEST(model_round_trip_and_corruption) {
  for (bool edges : {true, false}) {
    Fixture fx = RandomFixture(3, 2, {3}, 5, edges);
    fx.model.config.num_columns = 1;
    ByteWriter w;
    fx.model.Serialize(w);
    auto bytes = w.bytes();
    ByteReader r(bytes.data(), bytes.size());
    TaggerModel back = TaggerModel::Deserialize(r);
    CHECK(SameModel(back, fx.model));
    CHECK(!back.weights.is_view());
    CHECK(back.order == 2);
    CHECK(back.attributes.Find(1003) == 3);
    CHECK(back.attributes.Find(999) == -1);
    ByteWriter again;
    back.Serialize(again);
    CHECK(again.bytes() == bytes);
    // In place from aligned bytes the model keeps alive; copied from misaligned ones.
    for (std::size_t shift : {0, 4}) {
      const uint8_t* at = nullptr;
      std::shared_ptr<const void> keep = PlacedCopy(bytes, shift, &at);
      ByteReader placed(at, bytes.size());
      TaggerModel m = TaggerModel::Deserialize(placed, keep);
      CHECK(SameModel(m, fx.model));
      CHECK(m.weights.is_view() == (shift == 0 && byte_order::kHostIsLittleEndian));
      CHECK(m.attributes.slots().is_view() ==
            byte_order::kHostIsLittleEndian);  // 12-byte records: 4-byte aligned is enough
      CHECK(m.attributes.Find(1005) == 5);
      // A change to a loaded model copies the viewed array, never the bytes it views.
      m.weights.Edit([](std::vector<double>& v) { v[0] += 1; });
      CHECK(!m.weights.is_view() && m.weights[0] == fx.model.weights[0] + 1);
      CHECK(m.attributes.Insert(4242) == 6 && m.attributes.Find(4242) == 6 && m.attributes.Find(1002) == 2);
      CHECK(std::memcmp(at, bytes.data(), bytes.size()) == 0);
    }
    ByteReader cut(bytes.data(), bytes.size() - 9);
    CHECK_THROWS(TaggerModel::Deserialize(cut));
  }
}

// A small model built without random numbers, so its payload bytes are known: the same on
// every host (scripts/big-endian-check.sh runs this on s390x), and read back on each; in
// version 3 (12-byte slots) and in version 2 (16-byte slots, the bytes older builds wrote).
TEST(model_payload_bytes_are_the_same_on_every_host) {
  TaggerModel m;
  m.order = 1;
  m.config.num_columns = 1;
  for (const char* y : {"B", "I", "O"}) m.labels.Intern(y);
  for (uint64_t a = 0; a < 4; ++a) m.attributes.Insert(0x9E3779B97F4A7C15ull * (a + 1));
  std::vector<int64_t> offset{0};
  std::vector<int32_t> label;
  for (int32_t a = 0; a < 4; ++a) {
    for (int32_t y = 0; y <= a % 3; ++y) label.push_back(y);
    offset.push_back(static_cast<int64_t>(label.size()));
  }
  m.attr_offset = offset;
  m.feature_label = label;
  std::vector<double> w(m.num_weights());
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = 0.25 * static_cast<double>(k) - 1.5;
  m.weights = w;
  auto fnv = [](const std::vector<uint8_t>& bytes) {
    uint64_t h = 14695981039346656037ull;  // FNV-1a over the payload
    for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
    return h;
  };
  ByteWriter out, old;
  m.Serialize(out);
  m.Serialize(old, 2);
  CHECK(out.bytes().size() == 12640);  // 1024 hash slots of 12 bytes are most of it
  CHECK(fnv(out.bytes()) == 8661986481337270937ull);
  CHECK(old.bytes().size() == 16736);  // of 16 bytes
  CHECK(fnv(old.bytes()) == 10248670460898507694ull);
  for (ByteWriter* w : {&out, &old}) {
    ByteReader r(w->bytes().data(), w->bytes().size());
    TaggerModel back = TaggerModel::Deserialize(r);
    CHECK(SameModel(back, m));
    CHECK(back.attributes.Find(0x9E3779B97F4A7C15ull * 3) == 2);
    ByteWriter again;
    back.Serialize(again);
    CHECK(again.bytes() == out.bytes());  // read in either version, written in version 3
  }
  std::vector<uint8_t> bad = old.bytes();  // a version-2 slot's padding must be zero
  const uint8_t empty_slot[16] = {0,    0,    0,    0,    0, 0, 0, 0,
                                  0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};  // key 0, id -1, padding
  for (std::size_t k = 0; k + 16 <= bad.size(); k += 8) {
    if (std::memcmp(&bad[k], empty_slot, 16) == 0) {
      bad[k + 12] = 1;
      break;
    }
  }
  CHECK(bad != old.bytes());
  ByteReader r(bad.data(), bad.size());
  CHECK_THROWS(TaggerModel::Deserialize(r));
}

TEST(attribute_slot_tables_are_checked) {
  AttributeTable t;
  for (uint64_t k = 1; k <= 5; ++k) t.Insert(k * 1024 + 7);  // all at home slot 7, probing on
  std::vector<AttributeTable::Slot> slots(t.slots().begin(), t.slots().end());
  AttributeTable ok;
  ok.UseSlots(FlatArray<AttributeTable::Slot>(slots), 5);
  CHECK(ok.Find(3 * 1024 + 7) == 2 && ok.Find(6 * 1024 + 7) == -1);
  CHECK(ok.keys() == t.keys());
  auto bad = [&](auto change, int32_t count) {
    std::vector<AttributeTable::Slot> s = slots;
    change(s);
    AttributeTable x;
    bool threw = false;
    try {
      x.UseSlots(FlatArray<AttributeTable::Slot>(s), count);
    } catch (const InputError&) {
      threw = true;
    }
    return threw;
  };
  CHECK(!bad([](auto&) {}, 5));
  CHECK(bad([](auto&) {}, 4));                  // an id missing
  CHECK(bad([](auto& s) { s[8].id = 0; }, 5));  // an id twice
  CHECK(bad(
      [](auto& s) {  // a key cut off from its home slot by an empty one
        s[13] = s[11];
        s[11] = AttributeTable::Slot{0, -1};
      },
      5));
  CHECK(bad([](auto& s) { s.resize(1000); }, 5));  // not a power of two
  CHECK(bad([](auto& s) { s.resize(4); }, 4));     // no empty slot
}

TEST(trainers_fit_a_tiny_corpus) {
  const char* text = "the\ndog\nbarks\n\na\ncat\nsleeps\n\nthe\ncat\nbarks\n\na\ndog\nsleeps\n";
  const char* tags = "D\nN\nV\n\nD\nN\nV\n\nD\nN\nV\n\nD\nN\nV\n";
  for (int algo : {0, 1, 2}) {
    for (int optimizer : {0, 1, 2}) {  // 2: L-BFGS after 2 SGD epochs
      for (int order : {1, 2}) {
        TaggerModel m;
        m.algorithm = static_cast<TaggerAlgorithm>(algo);
        m.order = order;
        // word[0], and word[0] x (previous tag, tag) as an edge template.
        int32_t ints[] = {2,
                          1,
                          static_cast<int32_t>(AtomKind::kField),
                          0,
                          0,
                          0,
                          2,
                          static_cast<int32_t>(AtomKind::kField),
                          0,
                          0,
                          0,
                          static_cast<int32_t>(AtomKind::kPrevTag),
                          0,
                          -1,
                          0};
        m.config = FeatureConfig::FromInts(ints, 15, 1);
        CHECK(m.config.templates[1].edge && m.config.templates[1].atoms.size() == 1);
        TaggerCorpus corpus = m.BuildCorpus(text, tags, true);
        m.BuildFeatures(corpus);
        CHECK(m.has_edge_features());
        TrainOptions opt;
        opt.threads = 2;
        opt.c2 = 0.01;
        opt.optimizer = optimizer == 1 ? CrfOptimizer::kSgd : CrfOptimizer::kLbfgs;
        opt.sgd_warmup = optimizer == 2 ? 2 : 0;
        TaggerTrainer trainer(m, corpus, opt);
        for (int e = 0; e < 30 && trainer.Step(nullptr); ++e) {}
        trainer.ExportWeights();
        TaggerCorpus test = m.BuildCorpus("a\ndog\nbarks\n", "", false);
        SentenceTagger tagger(m);
        std::vector<int32_t> out(3);
        tagger.Best(test, 0, out.data());
        CHECK(m.labels.Name(out[0]) == "D" && m.labels.Name(out[1]) == "N" && m.labels.Name(out[2]) == "V");
      }
    }
  }
}

TEST(tag_set_atom_ambiguity_classes_and_jackknifing) {
  // tags2(word): the labels seen with the lowercased word, for words seen at least twice.
  int32_t ints[] = {1, 1, static_cast<int32_t>(AtomKind::kTagSet), 0, 0, 2};
  FeatureConfig c = FeatureConfig::FromInts(ints, 6, 1);
  CHECK(c.UsesTagSets());
  std::string text = "That\nis\nit\n\nso\nthat\nit\n\nthis\nis\n";
  std::string tags = "PRON\nAUX\nPRON\n\nADV\nSCONJ\nPRON\n\nPRON\nAUX\n";
  std::vector<SentenceFields> sents = SplitSentences(text, 1), gold = SplitSentences(tags, 1);
  c.tagsets = c.BuildTagSets(sents, gold);
  CHECK(c.tagsets.at("0\tthat").tags == "PRON|SCONJ" && c.tagsets.at("0\tthat").count == 2);
  CHECK(c.tagsets.at("0\tis").tags == "AUX" && c.tagsets.at("0\tso").count == 1);
  // Jackknifing: leaving out fold 0 of 3 (sentence 0) drops its counts and labels.
  FeatureConfig::TagSets fold = c.BuildTagSets(sents, gold, 3, 0);
  CHECK(fold.at("0\tthat").tags == "SCONJ" && fold.at("0\tis").count == 1 && fold.count("0\tit") == 1);
  FeatureExtractor ex(c);
  auto key = [&](const char* word) {
    SentenceFields s;
    s.length = 1;
    s.fields = {word};
    std::vector<uint64_t> out;
    ex.Extract(s, [&](int32_t, uint64_t k, bool) { out.push_back(k); });
    CHECK(out.size() == 1);
    return out[0];
  };
  CHECK(key("THAT") == key("that"));  // lowercased
  CHECK(key("that") != key("is"));    // PRON|SCONJ vs AUX
  CHECK(key("it") != key("is"));      // PRON vs AUX
  CHECK(key("so") == key("unseen"));  // seen once < 2: the shared rare value
  ex.UseTagSets(&fold);
  CHECK(key("is") == key("unseen"));  // count 1 in the other folds: rare
  // A model keeps its tag dictionary through serialization.
  Fixture fx = RandomFixture(3, 2, {3}, 5);
  fx.model.config.num_columns = 1;
  fx.model.config.tagsets = c.tagsets;
  ByteWriter w;
  fx.model.Serialize(w);
  auto bytes = w.bytes();
  ByteReader r(bytes.data(), bytes.size());
  TaggerModel back = TaggerModel::Deserialize(r);
  CHECK(back.config.tagsets.size() == c.tagsets.size() &&
        back.config.tagsets.at("0\tthat").tags == "PRON|SCONJ");
}

// CRFsuite's objective (no start-of-sentence weights): the start weights stay exactly 0 under
// every trainer, L-BFGS reaches the optimum of the remaining weights (gradient ~ 0 there),
// and the default objective does learn start weights (so the check can fail).
TEST(training_without_start_weights_keeps_them_zero) {
  const char* text = "the\ndog\nbarks\n\na\ncat\nsleeps\n\ncats\nsleep\n\nthe\ncat\nbarks\n\ndogs\nbark\n";
  const char* tags = "D\nN\nV\n\nD\nN\nV\n\nN\nV\n\nD\nN\nV\n\nN\nV\n";
  for (int algo : {0, 1}) {
    for (int optimizer : {0, 1}) {
      for (bool start_weights : {true, false}) {
        TaggerModel m;
        m.algorithm = static_cast<TaggerAlgorithm>(algo);
        int32_t ints[] = {1, 1, static_cast<int32_t>(AtomKind::kField), 0, 0, 0};
        m.config = FeatureConfig::FromInts(ints, 6, 1);
        TaggerCorpus corpus = m.BuildCorpus(text, tags, true);
        m.BuildFeatures(corpus);
        TrainOptions opt;
        opt.threads = 2;
        opt.c2 = 0.05;
        opt.optimizer = optimizer == 1 ? CrfOptimizer::kSgd : CrfOptimizer::kLbfgs;
        opt.start_weights = start_weights;
        TaggerTrainer trainer(m, corpus, opt);
        for (int e = 0; e < 200 && trainer.Step(nullptr); ++e) {}
        trainer.ExportWeights();
        ChainLattice lat = ChainLattice::For(m);
        double start_norm = 0;
        for (int64_t k : lat.start_weight) start_norm += std::fabs(m.weights[k]);
        if (start_weights) {
          CHECK(start_norm > 1e-3);
        } else {
          CHECK(start_norm == 0.0);
        }
        if (algo == 1 && optimizer == 0 && !start_weights) {
          std::vector<double> g(m.weights.size());
          CrfObjective(m, lat, corpus, m.weights.ToVector(), g, opt.c2, 1, nullptr, false);
          for (double v : g) CHECK_NEAR(v, 0.0, 1e-3);
        }
      }
    }
  }
}

// The perceptron update restricted to the tokens whose labels differ equals the full
// Phi(gold) - Phi(guess) update exactly, with edge features, for order 1 and 2.
TEST(perceptron_update_on_differing_tokens_equals_full_update) {
  for (int order : {1, 2}) {
    Fixture fx = RandomFixture(3, order, {1, 2, 5, 7}, 7 + order);
    ChainLattice lat = ChainLattice::For(fx.model);
    std::mt19937_64 rng(order);
    for (int64_t s = 0; s < fx.corpus.sentences(); ++s) {
      const int32_t n = static_cast<int32_t>(fx.corpus.sentence_start[s + 1] - fx.corpus.sentence_start[s]);
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<int32_t> gold(n), guess(n);
        std::vector<char> differs(n);
        for (int32_t i = 0; i < n; ++i) {
          gold[i] = static_cast<int32_t>(rng() % 3);
          guess[i] = rng() % 3 == 0 ? static_cast<int32_t>(rng() % 3) : gold[i];
          differs[i] = gold[i] != guess[i];
        }
        std::vector<double> full(fx.model.num_weights(), 0.0), part(full.size(), 0.0);
        ForEachPathWeight(fx.model, lat, fx.corpus, s, gold.data(), [&](int64_t f) { full[f] += 1; });
        ForEachPathWeight(fx.model, lat, fx.corpus, s, guess.data(), [&](int64_t f) { full[f] -= 1; });
        ForEachPathWeight(
            fx.model, lat, fx.corpus, s, gold.data(), [&](int64_t f) { part[f] += 1; }, differs.data());
        ForEachPathWeight(
            fx.model, lat, fx.corpus, s, guess.data(), [&](int64_t f) { part[f] -= 1; }, differs.data());
        for (std::size_t k = 0; k < full.size(); ++k) CHECK(full[k] == part[k]);
      }
    }
  }
}

// The perceptron scores tokens through the FeatureIndex slots (dense and sparse attributes,
// in another summation order) and keeps them in step with its updates: the weights after
// every epoch, raw and averaged, equal those of the model's own tables bit for bit.
TEST(perceptron_on_index_slots_trains_the_same_weights) {
  for (int order : {1, 2}) {
    const int L = 8;
    std::mt19937_64 rng(40 + order);
    TaggerModel base;
    base.algorithm = TaggerAlgorithm::kPerceptron;
    base.order = order;
    for (int y = 0; y < L; ++y) base.labels.Intern(std::string(1, char('A' + y)));
    const int attrs = 12;
    for (int a = 0; a < attrs; ++a) base.attributes.Insert(2000 + a);
    for (int a = 0; a < attrs; ++a) {
      // Attribute a has 1 + a % L labels: sparse below FeatureIndex::kDenseMin, dense above.
      for (int y = 0; y <= a % L; ++y) base.feature_label.push_back((y + a) % L);
      base.attr_offset.push_back(base.feature_label.size());
    }
    base.edge_offset.push_back(0);
    for (int a = 0; a < attrs; ++a) {
      for (int pair = 0; pair < (L + 1) * L; ++pair) {
        if (rng() % 4 == 0) base.edge_pair.push_back(pair);
      }
      base.edge_offset.push_back(base.edge_pair.size());
    }
    base.weights.Edit([&](std::vector<double>& w) { w.assign(base.num_weights(), 0.0); });
    TaggerCorpus corpus;
    for (int s = 0; s < 40; ++s) {
      const int n = 1 + static_cast<int>(rng() % 9);
      for (int i = 0; i < n; ++i) {
        std::vector<int32_t> row, edge_row;
        for (int a = 0; a < attrs; ++a) {
          if (rng() % 3 == 0) row.push_back(a);
          if (rng() % 5 == 0) edge_row.push_back(a);
        }
        corpus.attributes.AddRow(row.data(), nullptr, row.size());
        corpus.edge_attributes.AddRow(edge_row.data(), nullptr, edge_row.size());
        corpus.labels.push_back(static_cast<int32_t>(rng() % L));
      }
      corpus.sentence_start.push_back(corpus.sentence_start.back() + n);
    }
    TaggerModel slotted = base, plain = base;
    TrainOptions with_slots, without;
    with_slots.threads = without.threads = 2;
    without.perceptron_slots = false;
    TaggerTrainer a(slotted, corpus, with_slots), b(plain, corpus, without);
    for (int epoch = 0; epoch < 4; ++epoch) {
      a.Step(nullptr);
      b.Step(nullptr);
      CHECK(a.loss() == b.loss());
      CHECK(a.raw_weights() == b.raw_weights());
    }
    CHECK(a.loss() > 0);  // it still makes mistakes, so updates happened in the last epoch
    a.ExportWeights();
    b.ExportWeights();
    CHECK(slotted.weights.ToVector() == plain.weights.ToVector());
  }
}

TEST(column_tagging_splits_like_javascript_and_carries_sentences) {
  // JavaScript's \s: ASCII whitespace, U+00A0, U+1680, U+2000-200A, 2028, 2029, 202F, 205F, 3000, FEFF.
  for (const char* space :
       {" ", "\t", "\v", "\f", "\r", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x8A",
        "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"}) {
    std::string s(space);
    CHECK(JsSpaceLength(s.data(), s.data() + s.size()) == static_cast<int>(s.size()));
  }
  for (const char* other : {"a", "\xC2\x85", "\xE2\x80\x8B", "\xE2\x80\x8C", "\xC3\xA9",
                            "\xE2\x80\xB0"}) {  // NEL, ZWSP, ZWNJ, é, ‰
    std::string s(other);
    CHECK(JsSpaceLength(s.data(), s.data() + s.size()) == 0);
  }
  // A tiny model: word -> D, N or V.
  TaggerModel m;
  m.algorithm = TaggerAlgorithm::kPerceptron;
  int32_t ints[] = {1, 1, static_cast<int32_t>(AtomKind::kField), 0, 0, 0};
  m.config = FeatureConfig::FromInts(ints, 6, 1);
  TaggerCorpus corpus = m.BuildCorpus("the\ndog\nbarks\n\na\ncat\nsleeps\n", "D\nN\nV\n\nD\nN\nV\n", true);
  m.BuildFeatures(corpus);
  TrainOptions opt;
  opt.threads = 2;
  TaggerTrainer trainer(m, corpus, opt);
  for (int e = 0; e < 5 && trainer.Step(nullptr); ++e) {}
  trainer.ExportWeights();
  ColumnLayout layout;
  layout.input_columns = 1;
  layout.all_columns = 2;
  layout.full_index = {0};
  // Lines: a document marker, a sentence with extra spacing and CRLF, a whitespace-only
  // line, and an unfinished sentence left for the next block.
  std::string block = "-DOCSTART- -X-\n  the\xC2\xA0 \r\ndog\nbarks\n \n a \ncat\n";
  ColumnTagResult r = TagColumns(m, block, false, -1, layout, 1);
  CHECK(r.error_line == 0);
  CHECK(r.output == "-DOCSTART- -X- O\n  the\xC2\xA0  D\ndog N\nbarks V\n \n");
  CHECK(r.lines == 5 && r.width == 1);
  CHECK(block.substr(r.consumed) == " a \ncat\n");
  ColumnTagResult rest = TagColumns(m, block.substr(r.consumed), true, r.width, layout, 1);
  CHECK(rest.output == " a  D\ncat N\n" && rest.consumed == block.size() - r.consumed);
  // All columns (word, gold): the input column is found by full_index; a wrong width is reported.
  ColumnTagResult full = TagColumns(m, "the D\ndog N\n\n", false, -1, layout, 1);
  CHECK(full.output == "the D D\ndog N N\n\n" && full.width == 2);
  ColumnTagResult bad = TagColumns(m, "the D\ndog\n\n", false, -1, layout, 1);
  CHECK(bad.error_kind == 2 && bad.error_line == 2 && bad.error_found == 1);
  layout.tab = true;
  ColumnTagResult tabs = TagColumns(m, "the dog\n", true, -1, layout, 1);
  CHECK(tabs.output.rfind("the dog\t", 0) == 0 && tabs.output.find('\t', 8) == std::string::npos &&
        tabs.width == 1);
  // One scratch reused over blocks of different sizes (300 sentences take the threaded lookup)
  // gives each block the output it gets alone.
  layout.tab = false;
  std::string many;
  for (int s = 0; s < 300; ++s) many += s % 2 ? "a\ncat\nsleeps\n\n" : "the\ndog\nbarks\n\n";
  ColumnTagScratch scratch;
  for (const std::string& b : {many, std::string("dog\n\n"), many, std::string("a\ncat\n\n")}) {
    for (int threads : {1, 2}) {
      ColumnTagResult reused = TagColumns(m, b, true, -1, layout, threads, nullptr, &scratch);
      ColumnTagResult alone = TagColumns(m, b, true, -1, layout, threads);
      CHECK(reused.output == alone.output && reused.consumed == alone.consumed);
    }
  }
}

TEST(training_columns_split_lines_as_the_js_reader_does) {
  // CRLF, a no-break space and tabs between fields, -DOCSTART-, whitespace-only lines, a
  // last line without '\n'; the label is the middle column, the input columns 0 and 2.
  const std::string file =
      "-DOCSTART- -X- O\r\n\r\nHe B-NP PRP\r\nreckons\xC2\xA0"
      "B-VP\tVBZ \r\n \t\nÇa B-NP PRP\nva B-VP VBZ";
  TrainingColumns r = ReadTrainingColumns(file, 3, false, {0, 2}, 1);
  CHECK(r.error_line == 0);
  CHECK(r.text == "He\tPRP\nreckons\tVBZ\n\nÇa\tPRP\nva\tVBZ\n\n");
  CHECK(r.labels == "B-NP\nB-VP\n\nB-NP\nB-VP\n\n");
  CHECK(r.sentences == 2 && r.tokens == 4 && r.lines == 7);
  CHECK((r.label_counts == std::vector<std::pair<std::string, int64_t>>{{"B-NP", 2}, {"B-VP", 2}}));
  // The first line with another number of fields stops the reading, with its line number.
  TrainingColumns bad = ReadTrainingColumns("a B DT\n\nb C\n", 3, false, {0, 2}, 1);
  CHECK(bad.error_line == 3 && bad.error_found == 2);
  // Tabs only: spaces stay inside fields.
  TrainingColumns tabs = ReadTrainingColumns("New York\tB-NP\tNNP\n", 3, true, {0, 2}, 1);
  CHECK(tabs.text == "New York\tNNP\n\n");
}
