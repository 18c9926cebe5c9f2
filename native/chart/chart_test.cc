#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "chart/chart_model.h"
#include "chart/crf_train.h"
#include "chart/coarse_pass.h"
#include "chart/ensemble.h"
#include "chart/mbr.h"
#include "core/errors.h"
#include "core/test_harness.h"
#include "chart/tiny_treebank_test.h"

using namespace structrank;

namespace {

// Today's payload as an older version wrote it: the version set, version 9's latent-PCFG flag
// (the byte after the version) taken out, and the last `extras` bytes (later versions' flags)
// dropped.
std::vector<uint8_t> AsOlderVersion(std::vector<uint8_t> bytes, uint8_t version, size_t extras) {
  bytes.resize(bytes.size() - extras);
  bytes.erase(bytes.begin() + 4);
  bytes[0] = version;
  return bytes;
}

struct Enumerated {
  double score;
  std::vector<int32_t> nodes;
};

// All trees of the grammar over tokens (brute force over the same derivation space).
template <typename Scorer>
std::vector<Enumerated> Enumerate(const Grammar& g, const LexScores& lex, const Scorer& sc, int i, int j,
                                  int layer, int32_t x) {
  std::vector<Enumerated> out;
  if (layer == 1) {
    for (auto& e : Enumerate(g, lex, sc, i, j, 0, x)) out.push_back(e);
    for (int32_t u = 0; u < static_cast<int32_t>(g.unary.size()); ++u) {
      if (g.unary[u].parent != x) continue;
      for (auto& e : Enumerate(g, lex, sc, i, j, 0, g.unary[u].child)) {
        Enumerated t{e.score + sc.Unary(u, i, j), {x, 1}};
        t.nodes.insert(t.nodes.end(), e.nodes.begin(), e.nodes.end());
        out.push_back(t);
      }
    }
    return out;
  }
  if (j - i == 1) {
    for (const auto& ts : lex[i])
      if (ts.first == x) out.push_back({ts.second, {x, 0}});
    return out;
  }
  for (int32_t r = 0; r < static_cast<int32_t>(g.binary.size()); ++r) {
    if (g.binary[r].parent != x) continue;
    for (int k = i + 1; k < j; ++k) {
      auto left = Enumerate(g, lex, sc, i, k, 1, g.binary[r].left);
      auto right = Enumerate(g, lex, sc, k, j, 1, g.binary[r].right);
      for (auto& a : left)
        for (auto& b : right) {
          Enumerated t{a.score + b.score + sc.Binary(r, i, k, j), {x, 2}};
          t.nodes.insert(t.nodes.end(), a.nodes.begin(), a.nodes.end());
          t.nodes.insert(t.nodes.end(), b.nodes.begin(), b.nodes.end());
          out.push_back(t);
        }
    }
  }
  return out;
}

template <typename Scorer>
std::vector<Enumerated> EnumerateAll(const Grammar& g, const LexScores& lex, const Scorer& sc) {
  std::vector<Enumerated> all;
  const int n = static_cast<int>(lex.size());
  for (int32_t rr = 0; rr < static_cast<int32_t>(g.root.size()); ++rr)
    for (auto& e : Enumerate(g, lex, sc, 0, n, 1, g.root[rr]))
      all.push_back({e.score + sc.Root(rr), e.nodes});
  std::stable_sort(all.begin(), all.end(),
                   [](const Enumerated& a, const Enumerated& b) { return a.score > b.score; });
  return all;
}

std::vector<Token> Sentence(const ChartModel& m, std::vector<std::string> words) {
  Corpus c;
  c.tokens = words;
  c.offsets = {0, static_cast<int32_t>(words.size())};
  return m.Tokens(c, 0);
}

template <typename Scorer>
void CheckAgainstEnumeration(const ChartModel& m, const LexScores& lex, const Scorer& sc) {
  const Grammar& g = m.grammar;
  auto all = EnumerateAll(g, lex, sc);
  if (all.empty()) throw testing::Failure{"no tree for sentence of length " + std::to_string(lex.size())};
  Chart ch;
  ch.Begin(static_cast<int>(lex.size()), g.num_symbols);
  double inside = Inside<LogSemiring>(g, lex, sc, ch);
  ch.Clear();
  double logsum = kNegInf;
  for (auto& e : all) logsum = LogAdd(logsum, e.score);
  CHECK_NEAR(inside, logsum, 1e-9);
  ch.Begin(static_cast<int>(lex.size()), g.num_symbols);
  double best = Inside<MaxSemiring>(g, lex, sc, ch);
  CHECK_NEAR(best, all[0].score, 1e-9);
  KBest<Scorer> kb(g, lex, sc, ch);
  auto top = kb.Run(static_cast<int>(all.size()) + 5);
  ch.Clear();
  CHECK(top.size() == all.size());
  std::vector<std::vector<int32_t>> got, want;
  for (size_t r = 0; r < all.size(); ++r) {
    CHECK_NEAR(top[r].score, all[r].score, 1e-9);
    got.push_back(top[r].nodes), want.push_back(all[r].nodes);
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got == want);  // same set of trees (ties may come in any order)
}

// One sentence's gradient of the objective (with `margin`, as CrfTrainOptions), each entry
// checked against the central finite difference of the objective itself.
std::vector<double> GradientCheckedByFiniteDifferences(ChartModel& m, const std::vector<Token>& tokens,
                                                       const GoldItems& gold, Chart& ch, double margin = 0) {
  std::vector<double> grad(m.crf.theta.size(), 0.0);
  CrfSentenceObjective(m, tokens, gold, ch, grad.data(), nullptr, nullptr, margin);
  for (size_t f = 0; f < m.crf.theta.size(); ++f) {
    const double h = 1e-5, keep = m.crf.theta[f];
    m.crf.theta[f] = keep + h;
    const double up = CrfSentenceObjective(m, tokens, gold, ch, nullptr, nullptr, nullptr, margin);
    m.crf.theta[f] = keep - h;
    const double down = CrfSentenceObjective(m, tokens, gold, ch, nullptr, nullptr, nullptr, margin);
    m.crf.theta[f] = keep;
    CHECK_NEAR(grad[f], (up - down) / (2 * h), 1e-5);
  }
  return grad;
}

// The CRF of a tiny treebank (surface features hashed into 2^12 slots), started from its
// PCFG's weights.
std::unique_ptr<ChartModel> CrfOf(const Tiny& t) {
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 12);
  return m;
}

// The tiny treebank's CRF, its PCFG starting weights moved by Gaussian noise (seeded), so
// that coarse and CRF scores disagree.
std::unique_ptr<ChartModel> TinyCrfWithRandomWeights(uint64_t seed) {
  auto m = CrfOf(MakeTiny());
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : m->crf.theta) w += normal(rng);
  return m;
}

}  // namespace

TEST(chart_pcfg_inside_viterbi_kbest_equal_enumeration) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  PcfgScorer sc{m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data()};
  for (auto words : std::vector<std::vector<std::string>>{{"dog", "saw", "saw"},
                                                          {"the", "dog", "saw", "a", "cat"},
                                                          {"dogs", "saw", "the", "cat"},
                                                          {"run"},
                                                          {"zorps", "saw", "cats"}}) {
    auto tokens = Sentence(*m, words);
    CheckAgainstEnumeration(*m, m->PcfgLex(tokens), sc);
  }
}

TEST(chart_coarse_pass_equals_the_generic_viterbi_passes) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  PcfgScorer sc{m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data()};
  const CoarseRules rules(m->grammar, m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data());
  const int S = m->grammar.num_symbols;
  Chart generic, coarse;
  int below = 0;  // entries under some floor: the floored runs tell kept from dropped
  for (auto words : std::vector<std::vector<std::string>>{{"dog", "saw", "saw"},
                                                          {"the", "dog", "saw", "a", "cat"},
                                                          {"dogs", "saw", "the", "cat"},
                                                          {"run"},
                                                          {"zorps", "saw", "cats"}}) {
    const auto tokens = Sentence(*m, words);
    const LexScores lex = m->PcfgLex(tokens);
    const int n = static_cast<int>(words.size());
    generic.Begin(n, S, true);
    const double best = Inside<MaxSemiring>(m->grammar, lex, sc, generic);
    CHECK(best != kNegInf);
    NullVisitor none;
    Outside<MaxSemiring>(m->grammar, lex, sc, best, generic, none);
    for (int step = 0; step <= 50; ++step) {
      const double floor = step == 0 ? kNegInf : best - 0.1 * step;
      coarse.Begin(n, S, true);
      CHECK(CoarseInside(m->grammar, rules, lex, coarse) == best);
      CoarseOutside(m->grammar, rules, floor, coarse);
      // Inside: every entry bit for bit, the same finite entries listed per cell.
      CHECK(generic.pre == coarse.pre && generic.post == coarse.post);
      for (int c = 0; c < Chart::NumCells(n); ++c) {
        auto listed = [](const std::vector<int32_t>& all, int b, int e) {
          std::vector<int32_t> v(all.begin() + b, all.begin() + e);
          std::sort(v.begin(), v.end());
          return v;
        };
        CHECK(listed(generic.active_pre, generic.pre_begin[c], generic.pre_end[c]) ==
              listed(coarse.active_pre, coarse.pre_begin[c], coarse.pre_end[c]));
        CHECK(listed(generic.active_post, generic.post_begin[c], generic.post_end[c]) ==
              listed(coarse.active_post, coarse.post_begin[c], coarse.post_end[c]));
      }
      // Outside: bit for bit for every entry whose best tree reaches the floor (with no
      // floor, every entry); none of the others pushed over it.
      for (size_t e = 0; e < generic.pre.size(); ++e) {
        for (auto [in, out, mine] : {std::tuple{generic.pre[e], generic.out_pre[e], coarse.out_pre[e]},
                                     std::tuple{generic.post[e], generic.out_post[e], coarse.out_post[e]}}) {
          if (in == kNegInf) continue;
          if (in + out >= floor) {
            CHECK(mine == out);
          } else {
            CHECK(in + mine < floor);
            ++below;
          }
        }
      }
      coarse.Clear();
    }
    generic.Clear();
  }
  CHECK(below > 0);
}

// CoarseInside with a beam against Inside<MaxSemiring> with the same beam over one sentence:
// the same best score and post entries, and each cell's pre entries those of the generic
// pass within the beam of the cell's best (words' cells keep all their tags). Returns the
// pre entries the beam dropped.
int CheckCoarseBeam(const Grammar& g, const PcfgScorer& sc, const CoarseRules& rules, const LexScores& lex,
                    double beam, Chart& generic, Chart& coarse) {
  const int n = static_cast<int>(lex.size()), S = g.num_symbols;
  generic.Begin(n, S);
  generic.beam = beam;
  const double best = Inside<MaxSemiring>(g, lex, sc, generic);
  coarse.Begin(n, S);
  CHECK(CoarseInside(g, rules, lex, coarse, beam) == best);
  CHECK(generic.post == coarse.post);
  int dropped = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j <= n; ++j) {
      const size_t base = static_cast<size_t>(Chart::CellOf(n, i, j)) * S;
      double top = kNegInf;
      for (int x = 0; x < S; ++x) top = std::max(top, generic.pre[base + x]);
      for (int x = 0; x < S; ++x) {
        const double want =
            j - i == 1 || generic.pre[base + x] >= top - beam ? generic.pre[base + x] : kNegInf;
        CHECK(coarse.pre[base + x] == want);
        dropped += want != generic.pre[base + x];
      }
    }
  }
  generic.Clear(), coarse.Clear();
  return dropped;
}

TEST(chart_coarse_beam_equals_the_generic_beam) {
  // With a beam, CoarseInside skips applications bound to fall below it and drops the pre
  // entries below it: post entries as the generic pass with the same beam gives them, pre
  // entries its within the beam. Random rule scores make many entries compete.
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> cost(0.0, 2.0);
  for (double& v : m->binary_logp) v = -cost(rng);
  for (double& v : m->unary_logp) v = -cost(rng);
  PcfgScorer sc{m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data()};
  const CoarseRules rules(m->grammar, m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data());
  Chart generic, coarse;
  int dropped = 0;
  for (auto words : std::vector<std::vector<std::string>>{{"dog", "saw", "saw"},
                                                          {"the", "dog", "saw", "a", "cat"},
                                                          {"dogs", "saw", "the", "cat", "saw", "a", "dog"}}) {
    const LexScores lex = m->PcfgLex(Sentence(*m, words));
    for (double beam : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0})
      dropped += CheckCoarseBeam(m->grammar, sc, rules, lex, beam, generic, coarse);
  }
  CHECK(dropped > 0);
}

TEST(chart_coarse_beam_equals_the_generic_beam_on_a_dense_grammar) {
  // Every phrase x symbol x symbol rule, random scores: 28 rules per left child, so the
  // coarse pass's bound sees many applications per child, any of them the cell's best.
  Grammar g;
  const int tags = 3, phrases = 4;
  g.num_symbols = g.num_bases = tags + phrases;
  for (int x = 0; x < g.num_symbols; ++x) g.is_tag.push_back(x < tags ? 1 : 0), g.base.push_back(x);
  for (int32_t p = tags; p < g.num_symbols; ++p)
    for (int32_t l = 0; l < g.num_symbols; ++l)
      for (int32_t r = 0; r < g.num_symbols; ++r) g.binary.push_back({p, l, r});
  g.unary = {{tags, tags + 1}, {tags + 2, 0}};
  for (int32_t p = tags; p < g.num_symbols; ++p) g.root.push_back(p);
  g.BuildIndexes();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> cost(0.0, 3.0);
  std::vector<double> binary(g.binary.size()), unary(g.unary.size()), root(g.root.size());
  for (double& v : binary) v = -cost(rng);
  for (double& v : unary) v = -cost(rng);
  for (double& v : root) v = -cost(rng);
  PcfgScorer sc{binary.data(), unary.data(), root.data()};
  const CoarseRules rules(g, binary.data(), unary.data(), root.data());
  Chart generic, coarse;
  int dropped = 0;
  for (int n : {2, 5, 9}) {
    LexScores lex(n);
    for (int i = 0; i < n; ++i)
      for (int32_t t = 0; t < tags; ++t) lex[i].emplace_back(t, -cost(rng));
    for (double beam : {0.5, 1.0, 2.0, 4.0})
      dropped += CheckCoarseBeam(g, sc, rules, lex, beam, generic, coarse);
  }
  CHECK(dropped > 0);
}

// An outside-pass visitor summing each binary rule's posterior mass over the sentence.
struct RuleMass {
  std::vector<double> binary;
  void OnLex(int, int32_t, double) {}
  void OnUnary(int32_t, int, int, double) {}
  void OnBinary(int32_t r, int, int, int, double v) { binary[r] += std::exp(v); }
  void OnRoot(int32_t, double) {}
};

TEST(chart_pair_index_walk_equals_the_rule_walk) {
  // Masked charts hold few symbols per cell, so the passes walk the (left, right) index;
  // without that index they test every rule of the left child. Same sums, other order.
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  const Grammar& g = m->grammar;
  Grammar plain = g;
  plain.by_pair_offsets.clear(), plain.by_pair.clear();
  CHECK(!g.by_pair_offsets.empty());
  int most = 0;  // the pair walk runs where a cell holds fewer symbols than a left child has rules
  for (int32_t x = 0; x < g.num_symbols; ++x)
    most = std::max(most, g.by_left_offsets[x + 1] - g.by_left_offsets[x]);
  CHECK(most >= 2);
  PcfgScorer sc{m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data()};
  std::mt19937_64 rng(11);
  int parsed = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<std::string> words = trial % 2
                                               ? std::vector<std::string>{"the", "dog", "saw", "a", "cat"}
                                               : std::vector<std::string>{"dogs", "saw", "the", "cat"};
    const auto tokens = Sentence(*m, words);
    const LexScores lex = m->PcfgLex(tokens);
    const int n = static_cast<int>(words.size());
    const size_t entries = static_cast<size_t>(Chart::NumCells(n)) * g.num_symbols;
    std::vector<uint8_t> mask_pre(entries), mask_post(entries);
    for (size_t e = 0; e < entries; ++e) mask_pre[e] = rng() % 8 != 0, mask_post[e] = rng() % 8 != 0;
    Chart a, b;
    RuleMass ma{std::vector<double>(g.binary.size())}, mb{std::vector<double>(g.binary.size())};
    a.Begin(n, g.num_symbols, true), b.Begin(n, g.num_symbols, true);
    a.mask_pre = b.mask_pre = mask_pre;
    a.mask_post = b.mask_post = mask_post;
    const double za = Inside<LogSemiring>(g, lex, sc, a), zb = Inside<LogSemiring>(plain, lex, sc, b);
    CHECK((za == kNegInf) == (zb == kNegInf));
    if (za == kNegInf) continue;
    ++parsed;
    CHECK_NEAR(za, zb, 1e-12);
    Outside<LogSemiring>(g, lex, sc, za, a, ma);
    Outside<LogSemiring>(plain, lex, sc, zb, b, mb);
    for (size_t e = 0; e < entries; ++e) {
      CHECK((a.pre[e] == kNegInf) == (b.pre[e] == kNegInf));
      CHECK((a.out_post[e] == kNegInf) == (b.out_post[e] == kNegInf));
      if (a.pre[e] != kNegInf) CHECK_NEAR(a.pre[e], b.pre[e], 1e-12);
      if (a.out_post[e] != kNegInf) CHECK_NEAR(a.out_post[e], b.out_post[e], 1e-12);
    }
    for (size_t r = 0; r < g.binary.size(); ++r) CHECK_NEAR(ma.binary[r], mb.binary[r], 1e-12);
  }
  CHECK(parsed >= 5);
}

TEST(chart_rule_order_walk_equals_the_left_child_walk) {
  // Every tag for every word (the exhaustive retry's chart), CRF scores with noisy weights,
  // with and without random masks: the rule-order walk folds each entry's candidates in
  // another order, so scores agree to rounding and the finite entries exactly.
  Tiny t = MakeTiny();
  auto m = CrfOf(t);
  const Grammar& g = m->grammar;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : m->crf.theta) w += normal(rng);
  int parsed = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::vector<std::string> words =
        trial % 2 ? std::vector<std::string>{"the", "dog", "saw", "a", "cat", "run"}
                  : std::vector<std::string>{"dogs", "saw", "the", "cat"};
    auto tokens = Sentence(*m, words);
    for (Token& tok : tokens) m->lexicon.Relax(tok);
    CrfSentence sent;
    sent.Prepare(m->crf, g, m->lexicon, tokens);
    const int n = static_cast<int>(words.size());
    const size_t entries = static_cast<size_t>(Chart::NumCells(n)) * g.num_symbols;
    std::vector<uint8_t> mask_pre, mask_post;
    if (trial >= 4) {
      mask_pre.resize(entries), mask_post.resize(entries);
      for (size_t e = 0; e < entries; ++e) mask_pre[e] = rng() % 6 != 0, mask_post[e] = rng() % 6 != 0;
    }
    Chart a, b;
    a.walk = Chart::Walk::kByRule, b.walk = Chart::Walk::kByLeft;
    RuleMass ma{std::vector<double>(g.binary.size())}, mb{std::vector<double>(g.binary.size())};
    a.Begin(n, g.num_symbols, true), b.Begin(n, g.num_symbols, true);
    a.mask_pre = b.mask_pre = mask_pre;
    a.mask_post = b.mask_post = mask_post;
    const double za = Inside<LogSemiring>(g, sent.lex(), sent, a);
    const double zb = Inside<LogSemiring>(g, sent.lex(), sent, b);
    CHECK((za == kNegInf) == (zb == kNegInf));
    if (za == kNegInf) continue;
    ++parsed;
    CHECK_NEAR(za, zb, 1e-12 * std::max(1.0, std::fabs(zb)));
    Outside<LogSemiring>(g, sent.lex(), sent, za, a, ma);
    Outside<LogSemiring>(g, sent.lex(), sent, zb, b, mb);
    for (size_t e = 0; e < entries; ++e) {
      CHECK((a.pre[e] == kNegInf) == (b.pre[e] == kNegInf));
      CHECK((a.out_pre[e] == kNegInf) == (b.out_pre[e] == kNegInf));
      CHECK((a.out_post[e] == kNegInf) == (b.out_post[e] == kNegInf));
      if (a.pre[e] != kNegInf) CHECK_NEAR(a.pre[e], b.pre[e], 1e-11);
      if (a.out_pre[e] != kNegInf) CHECK_NEAR(a.out_pre[e], b.out_pre[e], 1e-11);
      if (a.out_post[e] != kNegInf) CHECK_NEAR(a.out_post[e], b.out_post[e], 1e-11);
    }
    for (size_t r = 0; r < g.binary.size(); ++r) CHECK_NEAR(ma.binary[r], mb.binary[r], 1e-11);
    // Viterbi: the max does not depend on the order, so the two walks agree bit for bit.
    a.Clear(), b.Clear();
    a.Begin(n, g.num_symbols, true), b.Begin(n, g.num_symbols, true);
    const double va = Inside<MaxSemiring>(g, sent.lex(), sent, a);
    const double vb = Inside<MaxSemiring>(g, sent.lex(), sent, b);
    CHECK(va == vb);
    NullVisitor none;
    Outside<MaxSemiring>(g, sent.lex(), sent, va, a, none);
    Outside<MaxSemiring>(g, sent.lex(), sent, vb, b, none);
    for (size_t e = 0; e < entries; ++e) CHECK(a.pre[e] == b.pre[e] && a.out_post[e] == b.out_post[e]);
  }
  CHECK(parsed >= 6);
}

TEST(chart_crf_inside_and_kbest_equal_enumeration_with_random_weights) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : m->crf.theta) w = normal(rng);
  for (auto words :
       std::vector<std::vector<std::string>>{{"dog", "saw", "saw"}, {"the", "dog", "saw", "a", "cat"}}) {
    auto tokens = Sentence(*m, words);
    CrfSentence sent;
    sent.Prepare(m->crf, m->grammar, m->lexicon, tokens);
    CheckAgainstEnumeration(*m, sent.lex(), sent);
  }
}

TEST(chart_crf_gradient_equals_finite_differences) {
  // With word clusters (lexicon features) and verb-lexicalized rule features (V is a verb tag).
  Tiny t = MakeTiny();
  t.symbols.is_verb = {0, 0, 0, 0, 0, 0, 1, 0};
  PcfgOptions options;
  options.rare_threshold = 5;  // every word is rare: signature tags make tagging ambiguous
  options.cluster_words = {"dog", "cat", "dogs", "saw", "cats"};
  options.cluster_ids = {"011010", "011011", "0110100", "10", "0110111"};
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*m, t.corpus, gold, true);
  CHECK(m->crf.verb_words.count(StringHash("saw")) == 1);
  // The verb feature of VP -> V NP with "saw" exists.
  int32_t verb_feature = -1;
  for (int32_t r = 0; r < static_cast<int32_t>(m->grammar.binary.size()); ++r)
    if (m->grammar.binary_verb[r] & 1) {
      int32_t f = m->crf.Find(FeatureKey(kRuleVerbLeft, r, StringHash("saw")));
      if (f >= 0) verb_feature = f;
    }
  CHECK(verb_feature >= 0);
  // A cluster feature: V x the cluster of "saw" (V or N, so its gradient is not zero).
  const int32_t cluster_feature = m->crf.Find(FeatureKey(kLexCluster, 6, StringHash("c:10")));
  CHECK(cluster_feature >= 0);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 0.3);
  for (double& w : m->crf.theta) w += normal(rng);
  Chart ch;
  bool verb_checked = false, cluster_checked = false;
  for (int32_t s : {0, 3}) {
    const std::vector<double> grad =
        GradientCheckedByFiniteDifferences(*m, m->Tokens(t.corpus, s), gold[s], ch);
    int checked_nonzero = 0;
    for (size_t f = 0; f < grad.size(); ++f) {
      if (std::fabs(grad[f]) > 1e-6) {
        ++checked_nonzero;
        if (static_cast<int32_t>(f) == verb_feature) verb_checked = true;
        if (static_cast<int32_t>(f) == cluster_feature) cluster_checked = true;
      }
    }
    CHECK(checked_nonzero > 10);
  }
  CHECK(verb_checked);
  CHECK(cluster_checked);
}

TEST(chart_crf_sgd_lowers_the_objective) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  CrfTrainOptions opt;
  opt.batch = 5;
  opt.threads = 2;
  CrfTrainer trainer(*m, t.corpus, gold, opt);
  double first = trainer.Steps(5, nullptr);
  double later = 0;
  for (int e = 0; e < 10; ++e) later = trainer.Steps(5, nullptr);
  CHECK(later < first);
}

TEST(chart_parse_all_gives_sentences_over_max_length_the_flat_fallback) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  Corpus c;
  c.tokens = {"the", "dog", "saw", "a", "cat", "dogs", "saw", "cats"};
  c.offsets = {0, 5, 8};
  auto unlimited = m->ParseAll(c, 1, 2, nullptr);
  CHECK(!unlimited[0].fallback && !unlimited[1].fallback);
  auto limited = m->ParseAll(c, 3, 2, nullptr, false, INFINITY, 4);
  // The 5-word sentence is not chart-parsed: one flat candidate over its best tags (D N V D N).
  CHECK(limited[0].fallback);
  CHECK(limited[0].candidates.size() == 1);
  CHECK((limited[0].candidates[0].nodes ==
         std::vector<int32_t>{kFallbackLabel, 5, 4, 0, 5, 0, 6, 0, 4, 0, 5, 0}));
  // The 3-word sentence is within the limit: parsed as without it.
  CHECK(!limited[1].fallback);
  CHECK(limited[1].candidates[0].nodes == unlimited[1].candidates[0].nodes);
}

TEST(chart_fallback_for_uncovered_sentences_and_model_round_trip) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  Chart ch;
  // A grammar with no binary rules covers no two-word sentence, even with every tag allowed.
  Tiny one;
  one.symbols = t.symbols;
  one.corpus.offsets = {0};
  one.offsets = {0};
  AddTree(one, {"run"}, {7, 1, 6, 0});
  auto small = ChartModel::BuildPcfg(one.symbols, one.corpus, one.pairs, one.offsets, 1);
  auto p = small->Parse(Sentence(*small, {"run", "fast"}), 5, ch);
  CHECK(p.fallback);
  CHECK(p.candidates.size() == 1);
  CHECK((p.candidates[0].nodes == std::vector<int32_t>{kFallbackLabel, 2, 6, 0, 6, 0}));
  // The tag dictionary alone leaves "a a" uncovered (D D has no rule); the relaxed second
  // attempt with every tag finds a tree.
  auto relaxed = m->Parse(Sentence(*m, {"a", "a"}), 5, ch);
  CHECK(!relaxed.fallback);
  auto ok = m->Parse(Sentence(*m, {"the", "dog", "saw", "a", "cat"}), 3, ch);
  CHECK(!ok.fallback);
  auto bytes = m->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  auto again = back->Parse(Sentence(*back, {"the", "dog", "saw", "a", "cat"}), 3, ch);
  CHECK(again.candidates.size() == ok.candidates.size());
  for (size_t r = 0; r < ok.candidates.size(); ++r) {
    CHECK(again.candidates[r].nodes == ok.candidates[r].nodes);
    CHECK_NEAR(again.candidates[r].score, ok.candidates[r].score, 1e-12);
  }
  CHECK_THROWS(ChartModel::Deserialize(bytes.data(), bytes.size() - 3));
  std::vector<uint8_t> bad = bytes;
  bad[4] = 0xff;  // num_symbols
  bad[5] = 0xff;
  CHECK_THROWS(ChartModel::Deserialize(bad.data(), bad.size()));
}

TEST(chart_rejects_malformed_trees) {
  Tiny t = MakeTiny();
  Tiny broken = t;
  broken.pairs[1] = 3;  // arity 3
  CHECK_THROWS(ChartModel::BuildPcfg(broken.symbols, broken.corpus, broken.pairs, broken.offsets, 1));
  Tiny two_unaries = MakeTiny();
  AddTree(two_unaries, {"run"}, {0, 1, 2, 1, 6, 0});
  CHECK_THROWS(ChartModel::BuildPcfg(two_unaries.symbols, two_unaries.corpus, two_unaries.pairs,
                                     two_unaries.offsets, 1));
}

TEST(chart_crf_lbfgs_lowers_the_objective) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  CrfTrainOptions opt;
  opt.threads = 2;
  CrfTrainer trainer(*m, t.corpus, gold, opt);
  double first = trainer.LbfgsSteps(1, nullptr);
  double later = trainer.LbfgsSteps(10, nullptr);
  CHECK(later < first);
}

TEST(chart_parse_time_beam_keeps_the_best_parse_when_wide) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  Chart ch;
  auto tokens = Sentence(*m, {"the", "dog", "saw", "a", "cat"});
  auto exact = m->Parse(tokens, 1, ch);
  auto wide = m->Parse(tokens, 1, ch, false, 50.0);
  CHECK(wide.candidates[0].nodes == exact.candidates[0].nodes);
  CHECK_NEAR(wide.candidates[0].score, exact.candidates[0].score, 1e-12);
  auto narrow = m->Parse(tokens, 5, ch, false, 1e-9);  // only each span's best survives
  CHECK(!narrow.candidates.empty());
  CHECK(narrow.candidates[0].score <= exact.candidates[0].score + 1e-12);
}

TEST(chart_crf_verb_features_change_scores_and_round_trip) {
  Tiny t = MakeTiny();
  t.symbols.is_verb = {0, 0, 0, 0, 0, 0, 1, 0};
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, true);
  const int32_t with = m->crf.sparse.size();
  auto plain = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*plain, t.corpus, gold, false);
  CHECK(with > plain->crf.sparse.size());
  // Raising the verb feature weights raises the score of VP -> V NP over "saw" only.
  int32_t r_vp = -1;
  for (int32_t r = 0; r < static_cast<int32_t>(m->grammar.binary.size()); ++r)
    if (m->grammar.binary_verb[r] & 1) r_vp = r;
  CHECK(r_vp >= 0);
  const int32_t f = m->crf.Find(FeatureKey(kRuleVerbLeft, r_vp, StringHash("saw")));
  CHECK(f >= 0);
  auto tokens = Sentence(*m, {"dogs", "saw", "cats"});
  CrfSentence a;
  a.Prepare(m->crf, m->grammar, m->lexicon, tokens);
  const double before = a.Binary(r_vp, 1, 2, 3);
  m->crf.theta[f] += 2.0;
  CrfSentence b;
  b.Prepare(m->crf, m->grammar, m->lexicon, tokens);
  CHECK_NEAR(b.Binary(r_vp, 1, 2, 3) - before, 2.0, 1e-12);
  auto bytes = m->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(back->crf.verb_features);
  CrfSentence c;
  c.Prepare(back->crf, back->grammar, back->lexicon, tokens);
  CHECK_NEAR(c.Binary(r_vp, 1, 2, 3), b.Binary(r_vp, 1, 2, 3), 1e-12);
}

TEST(chart_and_sentence_buffers_count_what_a_longer_sentence_grows) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false);
  std::unique_ptr<Chart> ch = std::make_unique<Chart>();
  std::unique_ptr<CrfSentence> sent = std::make_unique<CrfSentence>();
  CHECK(ch->HeldBytes() == 0 && sent->HeldBytes() == 0);
  size_t chart_bytes = 0, sentence_bytes = 0;
  for (int words : {2, 6}) {
    std::vector<std::string> text;
    for (int i = 0; i < words; ++i) text.push_back(i % 2 ? "saw" : "dogs");
    const auto tokens = Sentence(*m, text);
    sent->Prepare(m->crf, m->grammar, m->lexicon, tokens);
    ch->Begin(words, m->grammar.num_symbols, true);
    ch->Clear();
    CHECK(ch->HeldBytes() >= Chart::NumCells(words) * m->grammar.num_symbols * 4 * sizeof(double));
    CHECK(ch->HeldBytes() > chart_bytes && sent->HeldBytes() > sentence_bytes);
    chart_bytes = ch->HeldBytes(), sentence_bytes = sent->HeldBytes();
  }
  ChartModel::DropIfOversized(*ch);  // a few kilobytes: kept
  CHECK(ch->HeldBytes() == chart_bytes);
  NodePosteriors big;  // reserved, not written: no pages touched
  big.bracket.reserve(ChartModel::kKeptBufferBytes / sizeof(double) + 1);
  CHECK(!ChartModel::Keeps(big));
  ChartModel::DropIfOversized(big);
  CHECK(big.HeldBytes() == 0);
}

TEST(chart_clusters_give_unknown_words_the_tags_of_their_cluster) {
  Tiny t = MakeTiny();
  auto plain = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  PcfgOptions options;
  options.cluster_words = {"saw", "zorp"};
  options.cluster_ids = {"10", "10"};
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options);
  auto has = [](const Token& tok, int32_t tag) {
    return std::find(tok.tags.begin(), tok.tags.end(), tag) != tok.tags.end();
  };
  // "zorp" is unknown; its signature (UNK-LC) was seen only with D; its cluster with V.
  const Token without = Sentence(*plain, {"zorp"})[0];
  const Token with = Sentence(*m, {"zorp"})[0];
  CHECK(!has(without, 6));
  CHECK(has(with, 6));
  CHECK(with.cluster >= 0);
  CHECK(std::isfinite(m->lexicon.LogProb(with, 6)));
  // A known frequent word keeps its tag dictionary.
  CHECK((Sentence(*m, {"dog", "saw"})[1].tags == Sentence(*plain, {"dog", "saw"})[1].tags));
  // Clusters survive serialization.
  auto bytes = m->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(Sentence(*back, {"zorp"})[0].tags == with.tags);
  // Malformed cluster tables are refused.
  PcfgOptions twice;
  twice.cluster_words = {"saw", "saw"};
  twice.cluster_ids = {"10", "11"};
  CHECK_THROWS(ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, twice));
}

namespace {
// (S^ROOT (NP^S (DT^NP the) (NN^NP dog)) (VP^S (VBD^VP saw) (NP^VP (PRP^NP it))))
// (S^ROOT (NP^S (DT^NP the) (NN^NP cat)) (VP^S (VBD^VP barked)))
// Symbols: 0 S^ROOT, 1 NP^S, 2 VP^S, 3 NP^VP, 4 DT^NP, 5 NN^NP, 6 VBD^VP, 7 PRP^NP.
Tiny MakeRelaxable() {
  Tiny t;
  t.symbols.num_bases = 7;
  t.symbols.is_tag = {0, 0, 0, 0, 1, 1, 1, 1};
  t.symbols.base = {0, 1, 2, 1, 3, 4, 5, 6};
  t.symbols.relax_group = {0, 1, 2, 1, -1, -1, -1, -1};
  t.corpus.offsets = {0};
  t.offsets = {0};
  AddTree(t, {"the", "dog", "saw", "it"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 2, 6, 0, 3, 1, 7, 0});
  AddTree(t, {"the", "cat", "barked"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 1, 6, 0});
  return t;
}
}  // namespace

TEST(chart_relaxation_adds_parent_variants_with_smoothed_probabilities) {
  Tiny t = MakeRelaxable();
  auto plain = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  PcfgOptions options;
  options.relax = true;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options);
  // NP^S -> DT NN gives NP^VP -> DT NN; NP^VP -> PRP gives NP^S -> PRP; nothing else.
  CHECK(plain->grammar.binary.size() == 3 && plain->grammar.unary.size() == 2);
  CHECK(m->grammar.binary.size() == 4 && m->grammar.unary.size() == 3);
  CHECK(m->relaxed_binary == 1 && m->relaxed_unary == 1);
  // P(NP^S -> PRP) = 0.01 * 1/3 (pooled: NP -> DT NN twice, NP -> PRP once).
  for (size_t u = 0; u < m->grammar.unary.size(); ++u)
    if (m->grammar.unary[u].parent == 1 && m->grammar.unary[u].child == 7)
      CHECK_NEAR(std::exp(m->unary_logp[u]), 0.01 / 3, 1e-12);
  // Each relaxed state's rules still sum to one.
  for (int32_t x : {1, 3}) {
    double sum = 0;
    for (size_t r = 0; r < m->grammar.binary.size(); ++r)
      if (m->grammar.binary[r].parent == x) sum += std::exp(m->binary_logp[r]);
    for (size_t u = 0; u < m->grammar.unary.size(); ++u)
      if (m->grammar.unary[u].parent == x) sum += std::exp(m->unary_logp[u]);
    CHECK_NEAR(sum, 1.0, 1e-12);
  }
  // "it barked" needs NP^S -> PRP: only the relaxed grammar parses it.
  Chart ch;
  CHECK(plain->Parse(Sentence(*plain, {"it", "barked"}), 1, ch).fallback);
  auto p = m->Parse(Sentence(*m, {"it", "barked"}), 1, ch);
  CHECK(!p.fallback);
  CHECK((p.candidates[0].nodes == std::vector<int32_t>{0, 2, 1, 1, 7, 0, 2, 1, 6, 0}));
  // The CRF learns the relaxed rules' weights like any other (they start at the PCFG).
  std::vector<GoldItems> gold;
  auto crf = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*crf, t.corpus, gold);
  CHECK(crf->crf.theta.size() > 0);
  CrfTrainOptions opt;
  opt.batch = 2;
  opt.threads = 1;
  CrfTrainer trainer(*crf, t.corpus, gold, opt);
  trainer.Steps(5, nullptr);
  auto again = crf->Parse(Sentence(*crf, {"it", "barked"}), 1, ch);
  CHECK(!again.fallback);
}

TEST(chart_crf_feature_id_cache_gives_identical_training) {
  Tiny t = MakeTiny();
  t.symbols.is_verb = {0, 0, 0, 0, 0, 0, 1, 0};
  PcfgOptions options;
  options.rare_threshold = 5;
  options.cluster_words = {"dog", "saw"};
  options.cluster_ids = {"0110", "10"};
  std::vector<GoldItems> gold;
  auto a = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  auto b = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options);
  InitCrf(*a, t.corpus, gold, true);
  InitCrf(*b, t.corpus, gold, true);
  CrfTrainOptions cached, uncached;
  cached.batch = uncached.batch = 3;
  cached.threads = uncached.threads = 1;  // one thread: the same summation order
  uncached.feature_cache_mb = 0;
  CrfTrainer ta(*a, t.corpus, gold, cached), tb(*b, t.corpus, gold, uncached);
  for (int e = 0; e < 4; ++e) CHECK(ta.Steps(3, nullptr) == tb.Steps(3, nullptr));
  CHECK(a->crf.theta == b->crf.theta);
  CHECK(ta.feature_cache_sentences() == t.corpus.size());
  CHECK(ta.feature_cache_bytes() > 0);
  CHECK(tb.feature_cache_sentences() == 0);
  CHECK(ta.LbfgsSteps(2, nullptr) == tb.LbfgsSteps(2, nullptr));
  CHECK(a->crf.theta == b->crf.theta);
  // A cap too small for any sentence caches nothing and changes nothing.
  auto c = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options);
  InitCrf(*c, t.corpus, gold, true);
  CrfTrainOptions tiny_cap = cached;
  tiny_cap.feature_cache_mb = 1e-6;
  CrfTrainer tc(*c, t.corpus, gold, tiny_cap);
  auto d = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options);
  InitCrf(*d, t.corpus, gold, true);
  CrfTrainer td(*d, t.corpus, gold, uncached);
  CHECK(tc.Steps(4, nullptr) == td.Steps(4, nullptr));
  CHECK(tc.feature_cache_sentences() == 0);
}

TEST(chart_reads_version_1_payloads_without_the_extras) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  // Versions before 5 stored every CRF weight: today's payload with the weights rewritten so.
  std::vector<uint8_t> bytes;
  {
    const std::vector<uint8_t> latest = AsOlderVersion(m->Serialize(), 8, 0);
    ByteWriter head, nonzero, dense;
    m->grammar.Write(head);
    m->lexicon.Write(head);
    head.PutVector(m->binary_logp), head.PutVector(m->unary_logp), head.PutVector(m->root_logp);
    m->crf.Write(nonzero);
    m->crf.Write(dense, false);
    const size_t at = 4 + head.bytes().size() + 1 + 4;  // version, ..., CRF flag, surface bits
    bytes.assign(latest.begin(), latest.begin() + static_cast<std::ptrdiff_t>(at));
    bytes.insert(bytes.end(), dense.bytes().begin(), dense.bytes().end());
    bytes.insert(bytes.end(), latest.begin() + static_cast<std::ptrdiff_t>(at + nonzero.bytes().size()),
                 latest.end() - 3);  // without the version 6, 7 and 8 bytes
    bytes[0] = 4;
    CHECK(ChartModel::Deserialize(bytes.data(), bytes.size())->crf.theta == m->crf.theta);
  }
  // The version 2 extras of a model without verb flags, clusters or verb features.
  ByteWriter extras;
  extras.PutVector(std::vector<uint8_t>{});
  m->lexicon.WriteClusters(extras);
  extras.Put<uint8_t>(0);
  extras.PutVector(std::vector<uint64_t>{});
  m->lexicon.WriteSignatures(extras);  // version 3
  m->lexicon.WriteBackoff(extras);     // version 4
  // A version 1 model never had learned signatures.
  m->lexicon.learned_signatures = false;
  std::vector<uint8_t> v1(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(extras.bytes().size()));
  v1[0] = 1, v1[1] = v1[2] = v1[3] = 0;
  // Version 3 writes the CRF's surface hash bits (int32) after the CRF flag; older ones do not.
  ByteWriter head;
  m->grammar.Write(head);
  m->lexicon.Write(head);
  head.PutVector(m->binary_logp), head.PutVector(m->unary_logp), head.PutVector(m->root_logp);
  const std::ptrdiff_t bits_at = 4 + static_cast<std::ptrdiff_t>(head.bytes().size()) + 1;
  v1.erase(v1.begin() + bits_at, v1.begin() + bits_at + 4);
  auto back = ChartModel::Deserialize(v1.data(), v1.size());
  Chart ch;
  auto a = m->Parse(Sentence(*m, {"the", "dog", "saw", "a", "cat"}), 3, ch);
  auto b = back->Parse(Sentence(*back, {"the", "dog", "saw", "a", "cat"}), 3, ch);
  CHECK(a.candidates.size() == b.candidates.size());
  for (size_t r = 0; r < a.candidates.size(); ++r)
    CHECK_NEAR(a.candidates[r].score, b.candidates[r].score, 1e-12);
  // Version 1 must not carry the extras; version 2 must.
  CHECK_THROWS(ChartModel::Deserialize(v1.data(), v1.size() - 1));
  std::vector<uint8_t> v2_short(bytes.begin(), bytes.end() - 1);
  CHECK_THROWS(ChartModel::Deserialize(v2_short.data(), v2_short.size()));
}

TEST(chart_shape_backoff_smooths_a_rare_signature_towards_its_shape) {
  // Rare lowercase words: twenty of tag 1 whose endings all differ (no learned suffix), ten
  // of tag 2 ending in "zz" (learned: ten words). So UNK-LC has the twenty words of tag 1
  // and UNK-LC-zz the ten of tag 2.
  Lexicon lex;
  lex.num_tags_symbols = 3;
  std::vector<std::pair<std::string, int32_t>> words;
  for (int i = 0; i < 20; ++i)
    words.emplace_back(
        "bo" + std::string(1, static_cast<char>('a' + i)) + std::string(1, static_cast<char>('a' + i)), 1);
  for (int i = 0; i < 10; ++i)
    words.emplace_back("ab" + std::string(1, static_cast<char>('a' + i)) + "zz", 2);
  for (const auto& [w, t] : words) lex.Add(w, false, t);
  lex.Add("the", false, 0), lex.Add("the", false, 0);
  lex.Finish();
  for (const auto& [w, t] : words) lex.AddRare(w, false, t);
  lex.FinishRare();
  const Token q = lex.Lookup("blorzz", false);
  CHECK(q.sig >= 0 && q.shape < 0);  // no back-off set: no shape looked up
  const double plain = lex.LogProb(q, 2), plain1 = lex.LogProb(q, 1);
  lex.shape_backoff = 5;
  const Token r = lex.Lookup("blorzz", false);
  CHECK(r.sig == q.sig && r.shape >= 0);
  // Towards UNK-LC (all tag 1) instead of the tag prior: P(2 | sig) drops, P(1 | sig) rises.
  CHECK(lex.LogProb(r, 2) < plain);
  CHECK(lex.LogProb(r, 1) > plain1);
  // A signature never seen backs off to its shape, not to the prior.
  lex.shape_backoff = 0;
  const double unseen_plain = lex.LogProb(lex.Lookup("Blorzz", false), 1);
  lex.shape_backoff = 5;
  const Token u = lex.Lookup("Blorzz", false);
  CHECK(u.sig < 0 && u.shape < 0);  // UNK-CAP never seen: both fall back to the prior
  CHECK_NEAR(lex.LogProb(u, 1), unseen_plain, 1e-12);
  // Written and read back (payload version 4).
  ByteWriter out;
  lex.WriteBackoff(out);
  Lexicon back;
  back.num_tags_symbols = 3;
  back.signatures = lex.signatures;
  ByteReader in(out.bytes().data(), out.bytes().size());
  back.ReadBackoff(in);
  CHECK(back.shape_backoff == 5);
  CHECK(back.shapes.size() == lex.shapes.size() && back.shape_count == lex.shape_count);
}

namespace {
int32_t BinaryRuleId(const Grammar& g, int32_t p, int32_t l, int32_t r) {
  for (int32_t q = 0; q < static_cast<int32_t>(g.binary.size()); ++q)
    if (g.binary[q].parent == p && g.binary[q].left == l && g.binary[q].right == r) return q;
  return -1;
}
}  // namespace

namespace {
// `rows`: the table's layout (CrfWeights::surface_rows), both read by the same scorer.
void CheckSurfaceFeaturesFire(bool rows) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 20, false, rows);
  CHECK(m->crf.surface_rows == rows);
  CHECK(m->crf.surface_gold_features > 0);
  CHECK(m->crf.surface_collision_rate >= 0 && m->crf.surface_collision_rate < 0.01);
  const Grammar& g = m->grammar;
  // "the dog saw a cat": the, dog, saw, cat are frequent (seen twice), a is rare.
  auto tokens = Sentence(*m, {"the", "dog", "saw", "a", "cat"});
  CrfSentence sent;
  sent.Prepare(m->crf, g, m->lexicon, tokens);
  const uint64_t the = StringHash("the"), dog = StringHash("dog"), saw = StringHash("saw"),
                 lower = StringHash("s:x");
  const uint64_t cat = StringHash("cat");
  CrfSentence::SurfaceKey k[CrfSentence::kMaxSurfaceKeys];
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 1, k);  // span starting at "dog"
  CHECK(k[0].templ == kSurfFirst && k[0].value == dog);
  CHECK(k[1].templ == kSurfFirst + 1 && k[1].value == lower);
  CHECK(k[2].templ == kSurfBefore && k[2].value == the);
  CHECK(k[3].templ == kSurfBefore + 1 && k[3].value == lower);
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 0, k);
  CHECK(k[2].value == StringHash("<s>") && k[3].value == StringHash("<s>"));
  sent.SurfaceKeys(CrfSentence::Edge::kRight, 5, k);  // span ending with "cat"
  CHECK(k[0].templ == kSurfLast && k[0].value == cat);
  CHECK(k[2].templ == kSurfAfter && k[2].value == StringHash("</s>"));
  sent.SurfaceKeys(CrfSentence::Edge::kSplit, 2, k);  // split between "dog" and "saw"
  CHECK(k[0].templ == kSurfSplitLeft && k[0].value == dog);
  CHECK(k[2].templ == kSurfSplitRight && k[2].value == saw);
  CHECK(sent.SpanShapeKey(0, 5) == StringHash("xxxxx"));
  auto caps = Sentence(*m, {"The", "Dog", "saw", "3", "cats", ",", "a", "dog", "saw", "É"});
  CrfSentence capped;
  capped.Prepare(m->crf, g, m->lexicon, caps);
  CHECK(capped.SpanShapeKey(0, 6) == StringHash("XXxdx,"));
  CHECK(capped.SpanShapeKey(0, 10) == StringHash("XXxd~xxxX"));  // first and last 4 words

  // A weight of (first word "dog", rule S -> NP VP) moves exactly the applications of that
  // rule whose span starts at "dog".
  const int32_t s_np_vp = BinaryRuleId(g, 0, 1, 2), vp_v_np = BinaryRuleId(g, 2, 6, 1);
  CHECK(s_np_vp >= 0 && vp_v_np >= 0);
  auto score = [&](auto f) {
    CrfSentence s2;
    s2.Prepare(m->crf, g, m->lexicon, tokens);
    return f(s2);
  };
  auto bump = [&](int64_t slot, double by, auto f) {
    const double before = score(f);
    m->crf.theta[slot] += by;
    const double after = score(f);
    m->crf.theta[slot] -= by;
    return after - before;
  };
  const int64_t first_dog = m->crf.SurfaceSlot(kSurfFirst, s_np_vp, dog);
  CHECK_NEAR(bump(first_dog, 1.0, [&](CrfSentence& s) { return s.Binary(s_np_vp, 1, 2, 5); }), 1.0, 1e-12);
  CHECK_NEAR(bump(first_dog, 1.0, [&](CrfSentence& s) { return s.Binary(s_np_vp, 0, 2, 5); }), 0.0, 1e-12);
  CHECK_NEAR(bump(first_dog, 1.0, [&](CrfSentence& s) { return s.Binary(vp_v_np, 1, 2, 5); }), 0.0, 1e-12);
  // (word after the span "a", rare: its signature; parent VP) moves every VP application ending before "a",
  // binary or unary, whatever its rule.
  const int64_t after_a = m->crf.SurfaceSlot(kSurfAfter, kConjParent + 2, StringHash(tokens[3].signature));
  CHECK_NEAR(bump(after_a, 0.5, [&](CrfSentence& s) { return s.Binary(vp_v_np, 1, 2, 3); }), 0.5, 1e-12);
  CHECK_NEAR(bump(after_a, 0.5, [&](CrfSentence& s) { return s.Binary(s_np_vp, 0, 2, 3); }), 0.0, 1e-12);
  // (split left word "dog", rule S -> NP VP) only with the split after "dog".
  const int64_t split_dog = m->crf.SurfaceSlot(kSurfSplitLeft, s_np_vp, dog);
  CHECK_NEAR(bump(split_dog, 2.0, [&](CrfSentence& s) { return s.Binary(s_np_vp, 0, 2, 5); }), 2.0, 1e-12);
  CHECK_NEAR(bump(split_dog, 2.0, [&](CrfSentence& s) { return s.Binary(s_np_vp, 0, 3, 5); }), 0.0, 1e-12);
  // Span shape x parent base: "saw a cat" is xxx, under VP (base 2).
  const int64_t shape = m->crf.SurfaceSlot(kSurfSpanShape, kConjParent + 2, StringHash("xxx"));
  CHECK_NEAR(bump(shape, 0.25, [&](CrfSentence& s) { return s.Binary(vp_v_np, 2, 3, 5); }), 0.25, 1e-12);
  CHECK_NEAR(bump(shape, 0.25, [&](CrfSentence& s) { return s.Binary(s_np_vp, 2, 3, 5); }), 0.0, 1e-12);
}
}  // namespace

TEST(chart_crf_surface_span_features_fire_as_specified) { CheckSurfaceFeaturesFire(true); }

TEST(chart_crf_surface_span_features_fire_as_specified_in_older_models_layout) {
  CheckSurfaceFeaturesFire(false);
}

TEST(chart_crf_surface_rows_keep_one_words_weights_side_by_side) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 8, true);  // 256 slots: rows wrap around the table's end
  const CrfWeights& w = m->crf;
  const int64_t size = int64_t{1} << w.surface_bits;
  const uint64_t R = m->grammar.binary.size(), U = m->grammar.unary.size();
  CHECK(w.surface_rows && R > 2 && U > 0);
  auto next = [&](int64_t slot) { return w.surface_begin + (slot - w.surface_begin + 1) % size; };
  int wrapped = 0;
  for (const char* word : {"dog", "cat", "saw", "the", "a", "ran", "x", "y", "z", "w"}) {
    const uint64_t v = StringHash(word);
    for (uint64_t templ : {uint64_t{kSurfFirst}, uint64_t{kSurfSplitRight} + kSurfTagSet}) {
      // Binary rules, then unary rules, then symbols, each one slot after the other.
      std::vector<uint64_t> conj;
      for (uint64_t r = 0; r < R; ++r) conj.push_back(r);
      for (uint64_t u = 0; u < U; ++u) conj.push_back(kConjUnary + u);
      for (uint64_t x = 0; x < 3; ++x) conj.push_back(kConjParent + x);
      for (size_t a = 0; a + 1 < conj.size(); ++a) {
        const int64_t here = w.SurfaceSlot(templ, conj[a], v), there = w.SurfaceSlot(templ, conj[a + 1], v);
        CHECK(here >= w.surface_begin && here < w.sparse_begin);
        CHECK(there == next(here));
        if (there < here) ++wrapped;
      }
    }
  }
  CHECK(wrapped > 0);
  // Another word's row starts elsewhere.
  CHECK(w.SurfaceSlot(kSurfFirst, 0, StringHash("dog")) != w.SurfaceSlot(kSurfFirst, 0, StringHash("cat")));
  // The layout survives serialization; a version 6 payload (without its flag) hashes each feature.
  auto bytes = m->Serialize();
  CHECK(ChartModel::Deserialize(bytes.data(), bytes.size())->crf.surface_rows);
  bytes = AsOlderVersion(bytes, 6, 2);  // without the version 8 and 7 flags
  auto old = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(!old->crf.surface_rows && old->crf.tag_sets);
  int side_by_side = 0;
  for (uint64_t r = 0; r + 1 < R; ++r)
    if (old->crf.SurfaceSlot(kSurfFirst, r + 1, StringHash("dog")) ==
        next(old->crf.SurfaceSlot(kSurfFirst, r, StringHash("dog"))))
      ++side_by_side;
  CHECK(side_by_side < static_cast<int>(R) / 4);
}

namespace {
void CheckSurfaceGradient(bool tag_sets, bool rows = true, bool clusters = false) {
  Tiny t = MakeTiny();
  PcfgOptions options;
  options.rare_threshold = 5;
  if (clusters) {  // "saw" has none: its cluster key is its shape
    options.cluster_words = {"dog", "cat", "dogs", "cats", "the", "a"};
    options.cluster_ids = {"0110", "0110", "0111", "0111", "10", "10"};
  }
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*m, t.corpus, gold, false, 9, tag_sets, rows);  // 512 slots: collisions happen and must not matter
  CHECK(m->crf.tag_sets == tag_sets && m->crf.surface_rows == rows && m->crf.surface_clusters == clusters);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  for (double& w : m->crf.theta) w += normal(rng);
  Chart ch;
  int surface_nonzero = 0;
  for (int32_t s : {0, 1, 3}) {
    const std::vector<double> grad =
        GradientCheckedByFiniteDifferences(*m, m->Tokens(t.corpus, s), gold[s], ch);
    for (size_t f = 0; f < grad.size(); ++f) {
      const bool surface =
          static_cast<int64_t>(f) >= m->crf.surface_begin && static_cast<int64_t>(f) < m->crf.sparse_begin;
      if (surface && std::fabs(grad[f]) > 1e-6) ++surface_nonzero;
    }
  }
  CHECK(surface_nonzero > 20);
  // The surface weights survive serialization.
  auto tokens = m->Tokens(t.corpus, 0);
  auto bytes = m->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(back->crf.surface_bits == 9 && back->crf.tag_sets == tag_sets && back->crf.surface_rows == rows &&
        back->crf.surface_clusters == clusters);
  CHECK_NEAR(CrfSentenceObjective(*back, tokens, gold[0], ch, nullptr),
             CrfSentenceObjective(*m, tokens, gold[0], ch, nullptr), 1e-12);
}
}  // namespace

TEST(chart_crf_surface_gradient_equals_finite_differences) { CheckSurfaceGradient(false); }

TEST(chart_crf_surface_gradient_with_tag_sets_equals_finite_differences) { CheckSurfaceGradient(true); }

TEST(chart_crf_surface_gradient_with_clusters_equals_finite_differences) {
  CheckSurfaceGradient(true, true, true);
}

TEST(chart_crf_surface_gradient_in_older_models_layout_equals_finite_differences) {
  CheckSurfaceGradient(true, false);
}

TEST(chart_crf_tag_set_features_key_words_by_their_tags) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 20, true);
  const int64_t before_tag_sets = m->crf.surface_gold_features;
  auto tokens = Sentence(*m, {"the", "dog", "saw", "a", "cat"});
  CrfSentence sent;
  sent.Prepare(m->crf, m->grammar, m->lexicon, tokens);
  CHECK(sent.NumSurfaceKeys() == 6);
  CrfSentence::SurfaceKey k[CrfSentence::kMaxSurfaceKeys];
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 1, k);  // first word "dog", word before "the"
  CHECK(k[4].templ == kSurfFirst + kSurfTagSet && k[5].templ == kSurfBefore + kSurfTagSet);
  CHECK(k[4].value != k[5].value);  // a noun and a determiner
  CrfSentence::SurfaceKey cat[CrfSentence::kMaxSurfaceKeys];
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 4, cat);  // first word "cat": a noun like "dog"
  CHECK(tokens[1].tags == tokens[4].tags && cat[4].value == k[4].value && cat[0].value != k[0].value);
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 0, k);
  CHECK(k[5].value == StringHash("<s>"));
  // Off: four keys, and the gold trees have fewer distinct surface features.
  auto plain = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*plain, t.corpus, gold, false, 20);
  CrfSentence off;
  off.Prepare(plain->crf, plain->grammar, plain->lexicon, tokens);
  CHECK(off.NumSurfaceKeys() == 4);
  CHECK(plain->crf.surface_gold_features < before_tag_sets);
  // The flag survives serialization; a version 5 payload (without it) has none.
  auto bytes = m->Serialize();
  CHECK(ChartModel::Deserialize(bytes.data(), bytes.size())->crf.tag_sets);
  bytes = AsOlderVersion(bytes, 5, 3);  // without the version 8, 7 and 6 flags
  CHECK(!ChartModel::Deserialize(bytes.data(), bytes.size())->crf.tag_sets);
}

TEST(chart_crf_surface_features_key_words_by_their_clusters) {
  Tiny t = MakeTiny();
  PcfgOptions options;
  options.cluster_words = {"dog", "cat", "the"};
  options.cluster_ids = {"0110", "0110", "10"};
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*m, t.corpus, gold, false, 20, true);
  CHECK(m->crf.surface_clusters);
  auto tokens = Sentence(*m, {"the", "dog", "saw", "a", "cat"});
  CrfSentence sent;
  sent.Prepare(m->crf, m->grammar, m->lexicon, tokens);
  CHECK(sent.NumSurfaceKeys() == 8);
  CrfSentence::SurfaceKey dog[CrfSentence::kMaxSurfaceKeys], cat[CrfSentence::kMaxSurfaceKeys];
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 1, dog);  // first word "dog", word before "the"
  sent.SurfaceKeys(CrfSentence::Edge::kLeft, 4, cat);  // first word "cat", word before "a"
  CHECK(dog[6].templ == kSurfFirst + kSurfCluster && dog[7].templ == kSurfBefore + kSurfCluster);
  CHECK(dog[6].value == cat[6].value && dog[0].value != cat[0].value);  // one cluster, two words
  CHECK(cat[7].value == cat[3].value);  // "a" has no cluster: its shape stands in
  CHECK(dog[7].value != cat[7].value);
  // Without clusters, or with them kept out of the surface features: six keys.
  auto plain = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*plain, t.corpus, gold, false, 20, true, true, false);
  CrfSentence off;
  off.Prepare(plain->crf, plain->grammar, plain->lexicon, tokens);
  CHECK(!plain->crf.surface_clusters && off.NumSurfaceKeys() == 6);
  CHECK(plain->crf.surface_gold_features < m->crf.surface_gold_features);
  // The flag survives serialization; a version 7 payload (without it) has none.
  auto bytes = m->Serialize();
  CHECK(ChartModel::Deserialize(bytes.data(), bytes.size())->crf.surface_clusters);
  bytes = AsOlderVersion(bytes, 7, 1);
  CHECK(!ChartModel::Deserialize(bytes.data(), bytes.size())->crf.surface_clusters);
}

TEST(chart_crf_weights_store_only_non_zero_values) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 16);  // 65,536 surface slots, a few set below
  std::vector<double>& theta = m->crf.theta;
  const int64_t s0 = m->crf.surface_begin;
  for (int64_t f : {s0, s0 + 1, s0 + 127, s0 + 128, s0 + 300, s0 + 16383, s0 + 16384, s0 + 65535})
    theta[f] = 0.25 * static_cast<double>(f % 7) - 0.8;
  theta[s0 + 5] = -0.0;  // a negative zero is a zero
  ByteWriter sparse, dense;
  m->crf.Write(sparse);
  m->crf.Write(dense, false);
  CHECK(sparse.bytes().size() * 20 < dense.bytes().size());
  auto bytes = m->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(back->crf.theta.size() == theta.size());
  for (size_t f = 0; f < theta.size(); ++f) CHECK(back->crf.theta[f] == theta[f]);
  // Re-serialized: the same bytes.
  CHECK(back->Serialize() == bytes);
  // A damaged gap stream or size is an error, not a crash.
  ByteWriter head;
  m->grammar.Write(head);
  m->lexicon.Write(head);
  head.PutVector(m->binary_logp), head.PutVector(m->unary_logp), head.PutVector(m->root_logp);
  const size_t at = 4 + head.bytes().size() + 1 + 4;
  std::vector<uint8_t> bad = bytes;
  bad[at] ^= 0x40;  // the weights' count
  CHECK_THROWS(ChartModel::Deserialize(bad.data(), bad.size()));
  bad = bytes;
  bad[at + 16] = 0xff;  // the first gap never ends or runs past the end
  CHECK_THROWS(ChartModel::Deserialize(bad.data(), bad.size()));
}

TEST(chart_crf_weights_refuse_more_base_categories_than_feature_ids_name) {
  Grammar g;
  g.num_symbols = 1;
  g.num_bases = kMaxFeatureBases;
  CrfWeights w;
  w.Layout(g);  // the most there may be
  CHECK(w.theta.size() > static_cast<size_t>(kMaxFeatureBases));
  g.num_bases = kMaxFeatureBases + 1;
  try {
    w.Layout(g);
    CHECK(false);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("more than 65536 base categories") != std::string::npos);
  }
}

TEST(chart_coarse_to_fine_off_or_loose_equals_exhaustive) {
  auto m = TinyCrfWithRandomWeights(7);
  Chart ch;
  for (std::vector<std::string> words : {std::vector<std::string>{"the", "dog", "saw", "a", "cat"},
                                         std::vector<std::string>{"dog", "saw", "saw"},
                                         std::vector<std::string>{"dogs", "saw", "the", "cat"}}) {
    auto tokens = Sentence(*m, words);
    auto exact = m->Parse(tokens, 3, ch);
    auto off = m->Parse(tokens, 3, ch, false, INFINITY, 0.0);
    auto loose = m->Parse(tokens, 3, ch, false, INFINITY, 1e-300);  // prunes nothing with a finite posterior
    CHECK(!exact.fallback);
    CHECK(off.candidates.size() == exact.candidates.size() &&
          loose.candidates.size() == exact.candidates.size());
    for (size_t c = 0; c < exact.candidates.size(); ++c) {
      CHECK(off.candidates[c].nodes == exact.candidates[c].nodes);
      CHECK(loose.candidates[c].nodes == exact.candidates[c].nodes);
      CHECK_NEAR(loose.candidates[c].score, exact.candidates[c].score, 1e-9);
    }
    // A tight threshold keeps a subset of the entries and still parses.
    std::vector<int32_t> all_pre, all_post, some_pre, some_post;
    const int64_t total = m->CoarseEntries(tokens, 1e-300, ch, all_pre, all_post);
    m->CoarseEntries(tokens, 0.5, ch, some_pre, some_post);
    CHECK(total >= static_cast<int64_t>(all_pre.size() + all_post.size()));
    CHECK(some_pre.size() + some_post.size() < all_pre.size() + all_post.size());
    auto tight = m->Parse(tokens, 1, ch, false, INFINITY, 0.5);
    CHECK(!tight.candidates.empty());
    CHECK(!tight.fallback);  // (its log Z is over the pruned chart, so scores are not comparable)
  }
}

TEST(chart_coarse_pass_that_finds_no_tree_skips_the_crf_and_relaxes) {
  auto m = TinyCrfWithRandomWeights(11);
  Chart ch;
  // "a a": the tag dictionary allows only D D, which no rule covers.
  const auto uncovered = Sentence(*m, {"a", "a"});
  CHECK(m->MaskByCoarsePass(uncovered, 1e-300, ch) == CoarseOutcome::kNoTree);
  CHECK(ch.mask_pre.empty() && ch.mask_post.empty());
  // What the outcome claims: the CRF's own exhaustive chart has no tree either.
  CrfSentence sent;
  sent.Prepare(m->crf, m->grammar, m->lexicon, uncovered);
  ch.Begin(2, m->grammar.num_symbols);
  CHECK(Inside<LogSemiring>(m->grammar, sent.lex(), sent, ch) == kNegInf);
  ch.Clear();
  // A covered sentence is masked.
  const auto covered = Sentence(*m, {"the", "dog", "saw", "a", "cat"});
  CHECK(m->MaskByCoarsePass(covered, 1e-300, ch) == CoarseOutcome::kMasked);
  ch.mask_pre.clear(), ch.mask_post.clear();
  // Skipping the CRF's passes (with a threshold that prunes nothing finite) gives the
  // exhaustive parse's trees and scores, Viterbi k-best and MBR alike.
  for (bool mbr : {false, true}) {
    const int k = mbr ? 1 : 4;
    auto exhaustive = m->Parse(uncovered, k, ch, false, INFINITY, 0.0, mbr);
    auto pruned = m->Parse(uncovered, k, ch, false, INFINITY, 1e-300, mbr);
    // What an ensemble runs once its own coarse pass found no tree.
    auto known = m->ParseWithoutTree(uncovered, k, ch, mbr, 1e-300, false);
    // The retry with every tag pruned too, at a threshold that prunes nothing finite.
    auto pruned_retry = m->Parse(uncovered, k, ch, false, INFINITY, 1e-300, mbr, true);
    auto known_pruned_retry = m->ParseWithoutTree(uncovered, k, ch, mbr, 1e-300, true);
    CHECK(!exhaustive.fallback && !pruned.fallback && !known.fallback && !pruned_retry.fallback);
    CHECK(pruned.candidates.size() == exhaustive.candidates.size());
    CHECK(known.candidates.size() == exhaustive.candidates.size());
    CHECK(pruned_retry.candidates.size() == exhaustive.candidates.size());
    CHECK(known_pruned_retry.candidates.size() == exhaustive.candidates.size());
    for (size_t c = 0; c < exhaustive.candidates.size(); ++c) {
      CHECK(pruned.candidates[c].nodes == exhaustive.candidates[c].nodes);
      CHECK_NEAR(pruned.candidates[c].score, exhaustive.candidates[c].score, 1e-9);
      CHECK(known.candidates[c].nodes == pruned.candidates[c].nodes);
      CHECK(known.candidates[c].score == pruned.candidates[c].score);
      CHECK(pruned_retry.candidates[c].nodes == exhaustive.candidates[c].nodes);
      CHECK_NEAR(pruned_retry.candidates[c].score, exhaustive.candidates[c].score, 1e-9);
      CHECK(known_pruned_retry.candidates[c].nodes == pruned_retry.candidates[c].nodes);
      CHECK(known_pruned_retry.candidates[c].score == pruned_retry.candidates[c].score);
    }
    // A tight threshold prunes the retry's chart: it still finds a tree, and its score (log Z
    // over the pruned chart) is at least the exhaustive one's for the same tree.
    auto tight = m->Parse(uncovered, 1, ch, false, INFINITY, 0.5, mbr, true);
    auto tight_exhaustive = m->Parse(uncovered, 1, ch, false, INFINITY, 0.5, mbr, false);
    CHECK(!tight.fallback && !tight.candidates.empty());
    if (tight.candidates[0].nodes == tight_exhaustive.candidates[0].nodes)
      CHECK(tight.candidates[0].score >= tight_exhaustive.candidates[0].score - 1e-9);
  }
}

TEST(chart_viterbi_list_with_mbr_tree_equals_the_two_parses) {
  auto m = TinyCrfWithRandomWeights(7);
  Chart ch;
  // "a a" needs the retry with every tag; the others are covered.
  const std::vector<std::vector<std::string>> sentences = {
      {"the", "dog", "saw", "a", "cat"}, {"a", "a"}, {"dogs", "saw", "the", "cat"}, {"dog", "saw", "saw"}};
  int with_tree = 0;
  for (const auto& words : sentences) {
    const auto tokens = Sentence(*m, words);
    for (double prune : {0.0, 1e-300, 0.3}) {
      for (bool prune_retry : {false, true}) {
        auto list = m->Parse(tokens, 4, ch, false, INFINITY, prune, false, prune_retry);
        auto mbr = m->Parse(tokens, 1, ch, false, INFINITY, prune, true, prune_retry);
        auto both = m->Parse(tokens, 4, ch, false, INFINITY, prune, false, prune_retry, true);
        CHECK(both.fallback == list.fallback);
        CHECK(both.candidates.size() == list.candidates.size());
        for (size_t c = 0; c < list.candidates.size(); ++c) {
          CHECK(both.candidates[c].nodes == list.candidates[c].nodes);
          CHECK_NEAR(both.candidates[c].score, list.candidates[c].score, 1e-9);
        }
        const ParseCandidate& best = both.has_mbr_tree ? both.mbr_tree : both.candidates[0];
        CHECK(best.nodes == mbr.candidates[0].nodes);
        CHECK_NEAR(best.score, mbr.candidates[0].score, 1e-9);
        CHECK(both.brackets.size() == mbr.brackets.size());
        for (size_t b = 0; b < mbr.brackets.size(); ++b)
          CHECK_NEAR(both.brackets[b].p, mbr.brackets[b].p, 1e-12);
        if (both.has_mbr_tree) ++with_tree;
      }
    }
  }
  CHECK(with_tree > 0);
  // A PCFG parse has no MBR tree: its list's first tree stands for it.
  CHECK(!m->Parse(Sentence(*m, sentences[0]), 4, ch, true, INFINITY, 0, false, false, true).has_mbr_tree);
}

TEST(chart_kept_coarse_masks_give_the_same_parses) {
  auto m = TinyCrfWithRandomWeights(5);
  Chart ch;
  const std::vector<std::vector<std::string>> sentences = {
      {"the", "dog", "saw", "a", "cat"}, {"dog", "saw", "saw"}, {"a", "a"}, {"dogs", "saw", "the", "cat"}};
  auto parse_all = [&](double prune, bool mbr) {
    std::vector<SentenceParse> out;
    for (const auto& words : sentences)
      out.push_back(m->Parse(Sentence(*m, words), mbr ? 1 : 3, ch, false, INFINITY, prune, mbr));
    return out;
  };
  for (double prune : {1e-300, 0.3}) {
    for (bool mbr : {false, true}) {
      m->KeepCoarseMasks(0);
      const auto fresh = parse_all(prune, mbr);
      m->KeepCoarseMasks(1 << 20);
      const auto filling = parse_all(prune, mbr);
      const auto kept = parse_all(prune, mbr);  // every coarse pass comes from the kept entries
      m->KeepCoarseMasks(16);                   // too small to keep any: computed again
      const auto over = parse_all(prune, mbr);
      for (const auto* run : {&filling, &kept, &over}) {
        CHECK(run->size() == fresh.size());
        for (size_t s = 0; s < fresh.size(); ++s) {
          CHECK((*run)[s].fallback == fresh[s].fallback);
          CHECK((*run)[s].candidates.size() == fresh[s].candidates.size());
          for (size_t c = 0; c < fresh[s].candidates.size(); ++c) {
            CHECK((*run)[s].candidates[c].nodes == fresh[s].candidates[c].nodes);
            CHECK((*run)[s].candidates[c].score == fresh[s].candidates[c].score);
          }
        }
      }
    }
  }
  m->KeepCoarseMasks(0);
}

TEST(chart_crf_adagrad_with_coarse_prefilter_lowers_the_objective) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 12);
  CrfTrainOptions opt;
  opt.batch = 5;
  opt.threads = 2;
  opt.adagrad = true;
  opt.prune = 1e-4;
  CrfTrainer trainer(*m, t.corpus, gold, opt);
  const double first = trainer.Steps(5, nullptr);
  double later = 0;
  for (int e = 0; e < 10; ++e) later = trainer.Steps(5, nullptr);
  CHECK(later < first);
  CHECK(trainer.kept_fraction() <= 1.0);
}

TEST(chart_crf_iterate_average_is_the_mean_of_the_iterates) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 10);
  CrfTrainOptions opt;
  opt.batch = 3;
  opt.threads = 1;
  opt.adagrad = true;
  opt.average = true;
  CrfTrainer trainer(*m, t.corpus, gold, opt);
  trainer.Steps(2, nullptr);  // before the reset: not in the mean
  trainer.ResetAverage();
  std::vector<double> sum(m->crf.theta.size(), 0.0);
  for (int s = 0; s < 4; ++s) {
    trainer.Steps(1, nullptr);
    for (size_t f = 0; f < sum.size(); ++f) sum[f] += m->crf.theta[f];
  }
  const std::vector<double> raw = m->crf.theta;
  trainer.SwapAverage();
  double worst = 0, moved = 0;
  for (size_t f = 0; f < sum.size(); ++f) {
    worst = std::max(worst, std::fabs(m->crf.theta[f] - sum[f] / 4));
    moved = std::max(moved, std::fabs(m->crf.theta[f] - raw[f]));
  }
  CHECK(worst < 1e-12);
  CHECK(moved > 1e-6);    // the mean is not the last iterate
  trainer.SwapAverage();  // back to the raw iterate, exactly
  for (size_t f = 0; f < sum.size(); ++f) CHECK(m->crf.theta[f] == raw[f]);
  trainer.SwapAverage();
  trainer.Steps(1, nullptr);  // training swaps the raw iterate back in first
  CHECK(m->crf.theta.size() == raw.size());
}

// The AdaGrad batch update (two weights at a time where SSE2 is there, the rest one by one)
// is the formula, bit for bit: gsum = c (theta - mean) + gradient, A += gsum^2,
// theta -= eta0 gsum / sqrt(A) where gsum != 0, and the running sum of the iterates. The
// gradient of each batch (one sentence, drawn as the trainer draws it) comes from a second
// trainer's ShardObjective, the same code path.
TEST(chart_crf_adagrad_update_is_the_formula_bit_for_bit) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  auto probe = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  InitCrf(*m, t.corpus, gold, false, 9);
  InitCrf(*probe, t.corpus, gold, false, 9);
  CrfTrainOptions opt;
  opt.batch = 1;
  opt.threads = 1;
  opt.adagrad = true;
  opt.average = true;
  opt.sigma2 = 0.1;
  CrfTrainer trainer(*m, t.corpus, gold, opt), shard(*probe, t.corpus, gold, opt);
  const size_t dim = m->crf.theta.size();
  const std::vector<double> mean = m->crf.theta;  // the prior's mean: the starting point
  std::vector<double> theta = mean, ada(dim, 0.0), sum(dim, 0.0), grad;
  const double c = 1.0 / t.corpus.size() / opt.sigma2;
  std::mt19937_64 rng(opt.seed);
  trainer.ResetAverage();
  const int steps = 12;
  for (int step = 0; step < steps; ++step) {
    std::uniform_int_distribution<int32_t> pick(0, t.corpus.size() - 1);
    const int32_t s = pick(rng);
    shard.ShardObjective(theta, s, s + 1, grad, nullptr);
    for (size_t f = 0; f < dim; ++f) {
      double gsum = c * (theta[f] - mean[f]);
      gsum += grad[f];
      if (gsum != 0) {
        ada[f] += gsum * gsum;
        theta[f] -= opt.eta0 * gsum / std::sqrt(ada[f]);
      }
      sum[f] += theta[f];
    }
    trainer.Steps(1, nullptr);
    CHECK(m->crf.theta == theta);
  }
  trainer.SwapAverage();
  for (size_t f = 0; f < dim; ++f) CHECK(m->crf.theta[f] == sum[f] / steps);
  size_t moved = 0;
  for (size_t f = 0; f < dim; ++f) moved += theta[f] != mean[f];
  CHECK(moved > 10);
}

namespace {

// A tree's nodes in KBest's pre-order form: tags as (i, i + 1, tag symbol, 0), other nodes
// as (i, j, base category, 1 binary | 2 unary).
void TreeNodes(const Grammar& g, const std::vector<int32_t>& nodes, size_t& pos, int& word,
               std::vector<std::vector<int32_t>>& out) {
  const int32_t x = nodes[pos], arity = nodes[pos + 1];
  pos += 2;
  const int i = word;
  if (arity == 0) ++word;
  for (int32_t c = 0; c < arity; ++c) TreeNodes(g, nodes, pos, word, out);
  out.push_back(arity == 0 ? std::vector<int32_t>{i, word, x, 0}
                           : std::vector<int32_t>{i, word, g.base[x], arity == 1 ? 2 : 1});
}

std::vector<std::vector<int32_t>> TreeNodes(const Grammar& g, const std::vector<int32_t>& nodes) {
  std::vector<std::vector<int32_t>> out;
  size_t pos = 0;
  int word = 0;
  TreeNodes(g, nodes, pos, word, out);
  return out;
}

// Expected counts of tree nodes, a unary's node counted as its bracket (kind 1).
using NodeCounts = std::map<std::vector<int32_t>, double>;

// Adds `weight` x each node's expected count under the distribution of `trees` (their scores
// normalized over them); returns the log of that normalizer.
double AddExpectedNodes(const Grammar& g, const std::vector<Enumerated>& trees, double weight,
                        NodeCounts& expected) {
  double log_z = kNegInf;
  for (auto& e : trees) log_z = LogAdd(log_z, e.score);
  for (auto& e : trees)
    for (auto node : TreeNodes(g, e.nodes)) {
      if (node[3] == 2) node[3] = 1;
      expected[node] += weight * std::exp(e.score - log_z);
    }
  return log_z;
}

// Brute-force MBR: the first tree of `trees` with the largest expected gain, a unary node
// paying kMbrUnaryCost.
const Enumerated* BruteForceMbr(const Grammar& g, const std::vector<Enumerated>& trees,
                                const NodeCounts& expected) {
  double best_gain = -1e300;
  const Enumerated* best = nullptr;
  for (auto& e : trees) {
    double gain = 0;
    for (auto node : TreeNodes(g, e.nodes)) {
      const bool unary = node[3] == 2;
      if (unary) node[3] = 1;
      const auto at = expected.find(node);
      gain += (at == expected.end() ? 0.0 : at->second) - (unary ? kMbrUnaryCost : 0.0);
    }
    if (gain > best_gain + 1e-12) best_gain = gain, best = &e;
  }
  return best;
}

}  // namespace

TEST(chart_crf_mbr_equals_enumeration_posteriors_and_best_tree) {
  Tiny t = MakeTiny();
  // (S (NP (NP (N dog)) (NP (N cat))) (VP (V saw) (NP (N cats)))): NP -> NP NP makes noun
  // sequences ambiguous, so the posteriors spread over many trees.
  AddTree(t, {"dog", "cat", "saw", "cats"}, {0, 2, 1, 2, 1, 1, 5, 0, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold, false, 12);
  const std::vector<double> start = m->crf.theta;
  const Grammar& g = m->grammar;
  int differs = 0;  // sentences whose MBR tree is not the Viterbi tree
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 0.2);  // small weights: posteriors spread over many trees
    m->crf.theta = start;
    for (double& w : m->crf.theta) w += normal(rng);
    for (std::vector<std::string> words :
         {std::vector<std::string>{"the", "dog", "saw", "a", "cat"},
          std::vector<std::string>{"dog", "saw", "saw"},
          std::vector<std::string>{"dogs", "saw", "the", "cat"}, std::vector<std::string>{"run"},
          std::vector<std::string>{"dog", "saw", "saw", "cats", "run"},
          std::vector<std::string>{"dogs", "cats", "dog", "saw", "cat", "dogs"}}) {
      auto tokens = Sentence(*m, words);
      for (Token& tok : tokens) m->lexicon.Relax(tok);  // every tag for every word: more trees
      CrfSentence sent;
      sent.Prepare(m->crf, g, m->lexicon, tokens);
      auto all = EnumerateAll(g, sent.lex(), sent);
      CHECK(!all.empty());
      double log_z = kNegInf;
      for (auto& e : all) log_z = LogAdd(log_z, e.score);
      // Brute force: expected counts of tags and of brackets (i, j, base), then the tree with
      // the largest gain (a unary node pays the cost).
      for (const double cost : {kMbrUnaryCost, 0.0}) {
        NodeCounts expected;  // keys (i, j, tag, 0) and (i, j, base, 1)
        AddExpectedNodes(g, all, 1.0, expected);
        double best_gain = -1e300;
        std::vector<int32_t> best_tree;
        std::map<std::vector<int32_t>, double> gain_of;
        std::vector<double> gains;
        for (auto& e : all) {
          double gain = 0;
          for (auto node : TreeNodes(g, e.nodes)) {
            const bool unary = node[3] == 2;
            if (unary) node[3] = 1;
            gain += expected[node] - (unary ? cost : 0.0);
          }
          gain_of[e.nodes] = gain;
          gains.push_back(gain);
          if (gain > best_gain + 1e-12) best_gain = gain, best_tree = e.nodes;
        }
        std::sort(gains.rbegin(), gains.rend());
        // The chart's expectations are the same.
        const int n = static_cast<int>(words.size());
        Chart ch;
        ch.Begin(n, g.num_symbols, true);
        double z = kNegInf;
        const NodePosteriors post = CollectPosteriors(g, sent.lex(), sent, ch, z);
        ch.Clear();
        CHECK_NEAR(z, log_z, 1e-9);
        for (auto& [node, p] : expected) {
          double got = kNegInf;
          if (node[3] == 1) {
            got = post.bracket[static_cast<size_t>(ch.Cell(node[0], node[1])) * post.B + node[2]];
          } else {
            for (const auto& ts : post.lex[node[0]])
              if (ts.first == node[2]) got = ts.second;
          }
          CHECK_NEAR(got, p, 1e-9);
        }
        // The decoder, directly and (default cost) through Parse; its k best are the trees of
        // the k largest gains, each with its log-probability.
        ch.Begin(n, g.num_symbols, true);
        auto mbr = MbrParse(g, sent.lex(), sent, ch, cost);
        ch.Clear();
        CHECK(mbr.size() == 1);
        CHECK(mbr[0].nodes == best_tree);
        std::map<std::vector<int32_t>, double> logprob_of;
        for (auto& e : all) logprob_of[e.nodes] = e.score - log_z;
        CHECK_NEAR(mbr[0].score, logprob_of[best_tree], 1e-9);
        ch.Begin(n, g.num_symbols, true);
        auto mbr_kbest = MbrParse(g, sent.lex(), sent, ch, cost, nullptr, 4);
        ch.Clear();
        CHECK(mbr_kbest.size() == std::min<size_t>(4, all.size()));
        for (size_t r = 0; r < mbr_kbest.size(); ++r) {
          CHECK(gain_of.count(mbr_kbest[r].nodes) == 1);
          CHECK_NEAR(gain_of[mbr_kbest[r].nodes], gains[r], 1e-9);
          CHECK_NEAR(mbr_kbest[r].score, logprob_of[mbr_kbest[r].nodes], 1e-9);
        }
        if (cost != kMbrUnaryCost) continue;
        auto parsed = m->Parse(tokens, 1, ch, false, INFINITY, 0, true);
        CHECK(parsed.candidates.size() == 1 && parsed.candidates[0].nodes == best_tree);
        // Its bracket posteriors: the expected brackets of at least kMinBracketPosterior.
        std::map<std::vector<int32_t>, double> reported;
        for (const auto& b : parsed.brackets) reported[{b.start, b.end, b.base, 1}] = b.p;
        size_t want = 0;
        for (auto& [node, p] : expected) {
          if (node[3] != 1 || p < kMinBracketPosterior) continue;
          ++want;
          CHECK(reported.count(node) == 1);
          CHECK_NEAR(reported[node], p, 1e-9);
        }
        CHECK(reported.size() == want && want > 0);
        auto kbest = m->Parse(tokens, 2, ch, false, INFINITY, 0, false);
        CHECK(kbest.candidates[0].nodes == all[0].nodes);
        CHECK(kbest.brackets.empty());
        auto mbr_parsed = m->Parse(tokens, 2, ch, false, INFINITY, 0, true);
        CHECK(mbr_parsed.candidates[0].nodes == best_tree);
        CHECK(mbr_parsed.brackets.size() == want);
        CHECK(!kbest.has_mbr_tree && !mbr_parsed.has_mbr_tree);
        // The Viterbi list with the MBR tree of the same chart: both as the two parses give them.
        auto both = m->Parse(tokens, 2, ch, false, INFINITY, 0, false, false, true);
        CHECK(both.candidates.size() == kbest.candidates.size());
        for (size_t r = 0; r < both.candidates.size(); ++r) {
          CHECK(both.candidates[r].nodes == kbest.candidates[r].nodes);
          CHECK_NEAR(both.candidates[r].score, kbest.candidates[r].score, 1e-9);
        }
        CHECK(both.has_mbr_tree && both.mbr_tree.nodes == best_tree);
        CHECK_NEAR(both.mbr_tree.score, logprob_of[best_tree], 1e-9);
        CHECK(both.brackets.size() == want);
        if (best_tree != all[0].nodes) ++differs;
      }
    }
  }
  CHECK(differs > 0);  // the test tells the two decoders apart
}

namespace {

// Three sentences over the tiny treebank's words (and two it lacks) for the ensemble tests.
Corpus EnsembleSentences() {
  Corpus corpus;
  for (std::vector<std::string> words : {std::vector<std::string>{"the", "dog", "saw", "a", "cat"},
                                         std::vector<std::string>{"dog", "cat", "saw", "cats"},
                                         std::vector<std::string>{"dogs", "cats", "dog", "saw", "cat"}}) {
    if (corpus.offsets.empty()) corpus.offsets.push_back(0);
    corpus.tokens.insert(corpus.tokens.end(), words.begin(), words.end());
    corpus.offsets.push_back(static_cast<int32_t>(corpus.tokens.size()));
  }
  return corpus;
}

}  // namespace

TEST(chart_crf_ensemble_decodes_the_mean_of_the_members_posteriors) {
  Tiny t = MakeTiny();
  AddTree(t, {"dog", "cat", "saw", "cats"}, {0, 2, 1, 2, 1, 1, 5, 0, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  // Two CRFs over the same grammar with different weights, and a third member equal to the first.
  std::vector<std::unique_ptr<ChartModel>> models;
  for (uint64_t seed : {11, 12}) {
    std::vector<GoldItems> gold;
    models.push_back(ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold));
    InitCrf(*models.back(), t.corpus, gold, false, 12);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 0.3);
    for (double& w : models.back()->crf.theta) w += normal(rng);
  }
  // The second member leans away from the first's trees, so that their mean moves some tree.
  for (size_t f = 0; f < models[1]->crf.theta.size(); ++f) models[1]->crf.theta[f] -= models[0]->crf.theta[f];
  const ChartModel& a = *models[0];
  const ChartModel& b = *models[1];
  const Grammar& g = a.grammar;
  EnsembleMember member{&b, {}, {}};
  for (int32_t x = 0; x < g.num_bases; ++x) member.base_map.push_back(x);
  for (int32_t x = 0; x < g.num_symbols; ++x) member.tag_map.push_back(g.is_tag[x] ? x : -1);
  EnsembleMember self{&a, member.base_map, member.tag_map};
  const Corpus corpus = EnsembleSentences();
  const auto mixed = ParseEnsemble(a, {member}, corpus, 2, nullptr, 0, 0);
  const auto doubled = ParseEnsemble(a, {self}, corpus, 1, nullptr, 0, 0);
  const auto alone = a.ParseAll(corpus, 1, 1, nullptr, false, INFINITY, 0, 0, true);
  int differs = 0;  // sentences whose ensemble tree is not the first member's own MBR tree
  for (int32_t s = 0; s < corpus.size(); ++s) {
    // A member equal to the first: its own MBR tree and score.
    CHECK(doubled[s].candidates.size() == 1 &&
          doubled[s].candidates[0].nodes == alone[s].candidates[0].nodes);
    CHECK(doubled[s].candidates[0].score == alone[s].candidates[0].score);
    // Brute force: each member's expected brackets and tags over all its trees, their mean,
    // and the tree of the largest mean gain (a unary node pays the cost).
    const auto tokens = a.Tokens(corpus, s);
    NodeCounts expected;
    std::vector<Enumerated> trees;
    double log_z_a = kNegInf;
    for (const ChartModel* m : {&a, &b}) {
      CrfSentence sent;
      sent.Prepare(m->crf, g, m->lexicon, tokens);
      auto all = EnumerateAll(g, sent.lex(), sent);
      const double log_z = AddExpectedNodes(g, all, 0.5, expected);
      if (m == &a) trees = all, log_z_a = log_z;
    }
    const Enumerated* best = BruteForceMbr(g, trees, expected);
    CHECK(best != nullptr && mixed[s].candidates.size() == 1);
    CHECK(mixed[s].candidates[0].nodes == best->nodes);
    CHECK_NEAR(mixed[s].candidates[0].score, best->score - log_z_a,
               1e-9);  // the first member's log P(tree | words)
    if (best->nodes != alone[s].candidates[0].nodes) ++differs;
  }
  CHECK(differs > 0);  // the second member changes some tree
  // Pruned with thresholds that keep every finite entry: the exhaustive ensemble's trees.
  const auto loose = ParseEnsemble(a, {member}, corpus, 1, nullptr, 1e-300, 0, false, 1e-300);
  for (int32_t s = 0; s < corpus.size(); ++s) {
    CHECK(loose[s].candidates[0].nodes == mixed[s].candidates[0].nodes);
    CHECK_NEAR(loose[s].candidates[0].score, mixed[s].candidates[0].score, 1e-9);
  }
  // Maps that do not fit the member's grammar are refused.
  EnsembleMember bad{&b, {0}, member.tag_map};
  CHECK_THROWS(ParseEnsemble(a, {bad}, corpus, 1, nullptr, 0, 0));
}

TEST(chart_crf_ensemble_weights_its_members_and_takes_a_pcfg) {
  Tiny t = MakeTiny();
  AddTree(t, {"dog", "cat", "saw", "cats"}, {0, 2, 1, 2, 1, 1, 5, 0, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  // A CRF that leans away from the PCFG of the same trees, and that PCFG as a member.
  auto crf = CrfOf(t);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.8);
  for (double& w : crf->crf.theta) w = normal(rng) - w;  // the PCFG's weights turned around
  auto pcfg = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, nullptr);
  CHECK(!pcfg->use_crf);
  const Grammar& g = crf->grammar;
  EnsembleMember member{pcfg.get(), {}, {}};
  for (int32_t x = 0; x < g.num_bases; ++x) member.base_map.push_back(x);
  for (int32_t x = 0; x < g.num_symbols; ++x) member.tag_map.push_back(g.is_tag[x] ? x : -1);
  const Corpus corpus = EnsembleSentences();
  const std::vector<EnsembleMix> mixes = {{1, 0}, {0.7, 0.3}, {0.2, 0.8}};
  const auto by_mix = ParseEnsembleMixes(*crf, {member}, corpus, 2, nullptr, 0, 0, false, mixes);
  const auto alone = crf->ParseAll(corpus, 1, 1, nullptr, false, INFINITY, 0, 0, true);
  CHECK(by_mix.size() == mixes.size());
  int differs = 0;  // sentences whose tree moves with the PCFG's weight
  for (size_t x = 0; x < mixes.size(); ++x) {
    // One mix at a time gives the same trees as all mixes from one set of posteriors.
    const auto one =
        ParseEnsemble(*crf, {member}, corpus, 1, nullptr, 0, 0, false, kEnsembleMemberPrune, 1, mixes[x]);
    for (int32_t s = 0; s < corpus.size(); ++s) {
      CHECK(one[s].candidates.size() == 1 && by_mix[x][s].candidates.size() == 1);
      CHECK(one[s].candidates[0].nodes == by_mix[x][s].candidates[0].nodes);
      // Brute force: each member's expected brackets and tags over all its trees, weighted.
      const auto tokens = crf->Tokens(corpus, s);
      CrfSentence sent;
      sent.Prepare(crf->crf, g, crf->lexicon, tokens);
      const PcfgScorer ps{pcfg->binary_logp.data(), pcfg->unary_logp.data(), pcfg->root_logp.data()};
      const std::vector<std::pair<std::vector<Enumerated>, double>> members = {
          {EnumerateAll(g, sent.lex(), sent), mixes[x][0]},
          {EnumerateAll(g, pcfg->PcfgLex(tokens), ps), mixes[x][1]}};
      NodeCounts expected;
      for (const auto& [all, weight] : members) AddExpectedNodes(g, all, weight, expected);
      const Enumerated* best = BruteForceMbr(g, members[0].first, expected);
      CHECK(best != nullptr && by_mix[x][s].candidates[0].nodes == best->nodes);
      // The PCFG at weight 0: the CRF's own MBR tree.
      if (x == 0) CHECK(by_mix[x][s].candidates[0].nodes == alone[s].candidates[0].nodes);
      if (x > 0 && best->nodes != alone[s].candidates[0].nodes) ++differs;
    }
  }
  CHECK(differs > 0);  // the PCFG's weight moves some tree
  // A member whose chart would take more than the budget is left out: the CRF's own trees.
  const auto over =
      ParseEnsemble(*crf, {member}, corpus, 1, nullptr, 0, 0, false, kEnsembleMemberPrune, 1, mixes[2], 1.0);
  for (int32_t s = 0; s < corpus.size(); ++s)
    CHECK(over[s].candidates[0].nodes == alone[s].candidates[0].nodes);
  // Refused: a mix of the wrong size, a negative weight, a first member of weight 0 or not a CRF.
  CHECK_THROWS(ParseEnsembleMixes(*crf, {member}, corpus, 1, nullptr, 0, 0, false, {{1}}));
  CHECK_THROWS(ParseEnsembleMixes(*crf, {member}, corpus, 1, nullptr, 0, 0, false, {{1, -0.1}}));
  CHECK_THROWS(ParseEnsembleMixes(*crf, {member}, corpus, 1, nullptr, 0, 0, false, {{0, 1}}));
  EnsembleMember crf_member{crf.get(), member.base_map, member.tag_map};
  CHECK_THROWS(ParseEnsemble(*pcfg, {crf_member}, corpus, 1, nullptr, 0, 0));
}

TEST(chart_crf_ensemble_with_viterbi_gives_the_first_members_own_list) {
  // A CRF and a PCFG of the same trees mixed, as a model's PCFG mix is; "a a" is covered only
  // by the retry with every tag, and a sentence over max_length gets the flat fallback.
  Tiny t = MakeTiny();
  auto crf = CrfOf(t);
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : crf->crf.theta) w += normal(rng);
  auto pcfg = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, nullptr);
  const Grammar& g = crf->grammar;
  EnsembleMember member{pcfg.get(), {}, {}};
  for (int32_t x = 0; x < g.num_bases; ++x) member.base_map.push_back(x);
  for (int32_t x = 0; x < g.num_symbols; ++x) member.tag_map.push_back(g.is_tag[x] ? x : -1);
  Corpus corpus;
  corpus.offsets.push_back(0);
  for (const std::vector<std::string>& words : {std::vector<std::string>{"the", "dog", "saw", "a", "cat"},
                                                {"a", "a"},
                                                {"dogs", "saw", "the", "cat"},
                                                {"dog", "saw", "saw"},
                                                {"the", "dog", "saw", "the", "cat", "the", "dog"}}) {
    corpus.tokens.insert(corpus.tokens.end(), words.begin(), words.end());
    corpus.offsets.push_back(static_cast<int32_t>(corpus.tokens.size()));
  }
  const EnsembleMix mix = {0.6, 0.4};
  const int k = 4;
  int fallbacks = 0;
  for (double prune : {0.0, 1e-300, 0.3}) {
    for (bool prune_retry : {false, true}) {
      const int max_length = 6;
      std::vector<SentenceParse> viterbi;
      const auto both = ParseEnsemble(*crf, {member}, corpus, 2, nullptr, prune, max_length, prune_retry,
                                      kEnsembleMemberPrune, 1, mix, kEnsembleMemberChartBytes, k, &viterbi);
      const auto mbr = ParseEnsemble(*crf, {member}, corpus, 1, nullptr, prune, max_length, prune_retry,
                                     kEnsembleMemberPrune, 1, mix);
      const auto own =
          crf->ParseAll(corpus, k, 1, nullptr, false, INFINITY, max_length, prune, false, prune_retry);
      CHECK(viterbi.size() == own.size() && both.size() == mbr.size());
      for (int32_t s = 0; s < corpus.size(); ++s) {
        // The list: the first member's own parse, bit for bit.
        CHECK(viterbi[s].fallback == own[s].fallback);
        CHECK(viterbi[s].candidates.size() == own[s].candidates.size());
        for (size_t c = 0; c < own[s].candidates.size(); ++c) {
          CHECK(viterbi[s].candidates[c].nodes == own[s].candidates[c].nodes);
          CHECK(viterbi[s].candidates[c].score == own[s].candidates[c].score);
        }
        if (own[s].fallback) ++fallbacks;
        // The MBR trees and posteriors: the ensemble's without the list.
        CHECK(both[s].candidates.size() == 1 && both[s].candidates[0].nodes == mbr[s].candidates[0].nodes);
        CHECK(both[s].candidates[0].score == mbr[s].candidates[0].score);
        CHECK(both[s].brackets.size() == mbr[s].brackets.size());
        for (size_t b = 0; b < mbr[s].brackets.size(); ++b)
          CHECK(both[s].brackets[b].p == mbr[s].brackets[b].p);
      }
    }
  }
  CHECK(fallbacks > 0);  // the sentence over max_length
  std::vector<SentenceParse> none;
  CHECK_THROWS(ParseEnsemble(*crf, {member}, corpus, 1, nullptr, 0, 0, false, kEnsembleMemberPrune, 1, mix,
                             kEnsembleMemberChartBytes, 0, &none));
}

TEST(chart_crf_softmax_margin_equals_enumeration_and_its_gradient_finite_differences) {
  // The objective with margin c is log sum_t exp(score(t) + c * wrong(t)) - score(gold), where
  // wrong(t) counts t's binary and unary nodes whose (span, base category) the gold tree lacks.
  Tiny t = MakeTiny();
  // NP -> NP NP makes noun sequences ambiguous (as in the MBR test below).
  AddTree(t, {"dog", "cat", "saw", "cats"}, {0, 2, 1, 2, 1, 1, 5, 0, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  PcfgOptions options;
  options.rare_threshold = 5;  // every word is rare: tagging is ambiguous too
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, options, &gold);
  InitCrf(*m, t.corpus, gold, false, 9);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 0.3);
  for (double& w : m->crf.theta) w += normal(rng);
  const Grammar& g = m->grammar;
  const double margin = 0.7;
  Chart ch;
  int costly_trees = 0;
  for (int32_t s : {0, 1, 3, 4, 5}) {
    auto tokens = m->Tokens(t.corpus, s);
    std::set<std::tuple<int, int, int32_t>> in_gold;
    for (const auto& b : gold[s].binary) in_gold.insert({b.i, b.j, g.base[b.parent]});
    for (const auto& u : gold[s].unary) in_gold.insert({u.i, u.j, g.base[u.parent]});
    CrfSentence sent;
    sent.Prepare(m->crf, g, m->lexicon, tokens);
    double log_z = kNegInf, log_z_cost = kNegInf;
    int min_wrong = 1 << 30;
    for (const auto& e : EnumerateAll(g, sent.lex(), sent)) {
      int wrong = 0;
      for (const auto& node : TreeNodes(g, e.nodes))
        if (node[3] != 0 && !in_gold.count({node[0], node[1], node[2]})) ++wrong;
      min_wrong = std::min(min_wrong, wrong);
      costly_trees += wrong > 0;
      log_z = LogAdd(log_z, e.score);
      log_z_cost = LogAdd(log_z_cost, e.score + margin * wrong);
    }
    CHECK(min_wrong == 0);  // the gold tree is among them, at no cost
    const double plain = CrfSentenceObjective(*m, tokens, gold[s], ch, nullptr);
    const double gold_score = log_z - plain;
    CHECK_NEAR(CrfSentenceObjective(*m, tokens, gold[s], ch, nullptr, nullptr, nullptr, margin),
               log_z_cost - gold_score, 1e-9);
    // Margin 0 is the plain objective, bit for bit.
    CHECK(CrfSentenceObjective(*m, tokens, gold[s], ch, nullptr, nullptr, nullptr, 0.0) == plain);
    GradientCheckedByFiniteDifferences(*m, tokens, gold[s], ch, margin);
  }
  CHECK(costly_trees > 20);
}
