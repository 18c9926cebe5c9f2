#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "chart/chart_model.h"
#include "chart/crf_train.h"
#include "core/errors.h"
#include "core/test_harness.h"

using namespace structrank;

namespace {

// Symbols: 0 S, 1 NP, 2 VP, 3 @S, 4 D, 5 N, 6 V, 7 S+VP (a collapsed unary state)
// bases: S=0 NP=1 VP=2 @S=3 D=4 N=5 V=6
struct Tiny {
  SymbolInfo symbols;
  Corpus corpus;
  std::vector<int32_t> pairs, offsets;
};

void AddTree(Tiny& t, std::vector<std::string> words, std::vector<int32_t> pairs) {
  t.corpus.tokens.insert(t.corpus.tokens.end(), words.begin(), words.end());
  t.corpus.offsets.push_back(static_cast<int32_t>(t.corpus.tokens.size()));
  t.pairs.insert(t.pairs.end(), pairs.begin(), pairs.end());
  t.offsets.push_back(static_cast<int32_t>(t.pairs.size() / 2));
}

Tiny MakeTiny() {
  Tiny t;
  t.symbols.num_bases = 7;
  t.symbols.is_tag = {0, 0, 0, 0, 1, 1, 1, 0};
  t.symbols.base = {0, 1, 2, 3, 4, 5, 6, 0};
  t.corpus.offsets = {0};
  t.offsets = {0};
  // (S (NP (D the) (N dog)) (VP (V saw) (NP (D a) (N cat))))
  AddTree(t, {"the", "dog", "saw", "a", "cat"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 2, 6, 0, 1, 2, 4, 0, 5, 0});
  // (S (NP (N dogs)) (VP (V saw) (NP (N cats))))  NP unary over N
  AddTree(t, {"dogs", "saw", "cats"}, {0, 2, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  // (S+VP (V run)) root unary over a tag
  AddTree(t, {"run"}, {7, 1, 6, 0});
  // (S (NP (N dog)) (@S (VP (V saw)) (NP (N saw))))  ternary S binarized; "saw" ambiguous
  AddTree(t, {"dog", "saw", "saw"}, {0, 2, 1, 1, 5, 0, 3, 2, 2, 1, 6, 0, 1, 1, 5, 0});
  // (S (NP (D the) (N cat)) (VP (V run)))
  AddTree(t, {"the", "cat", "run"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 1, 6, 0});
  return t;
}

struct Enumerated {
  double score;
  std::vector<int32_t> nodes;
};

// All trees of the grammar over tokens (brute force over the same derivation space).
template <typename Scorer>
std::vector<Enumerated> Enumerate(const Grammar& g, const LexScores& lex, const Scorer& sc, int i, int j, int layer, int32_t x) {
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
    for (auto& e : Enumerate(g, lex, sc, 0, n, 1, g.root[rr])) all.push_back({e.score + sc.Root(rr), e.nodes});
  std::stable_sort(all.begin(), all.end(), [](const Enumerated& a, const Enumerated& b) { return a.score > b.score; });
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

}  // namespace

TEST(chart_pcfg_inside_viterbi_kbest_equal_enumeration) {
  Tiny t = MakeTiny();
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1);
  PcfgScorer sc{m->binary_logp.data(), m->unary_logp.data(), m->root_logp.data()};
  for (auto words : std::vector<std::vector<std::string>>{{"dog", "saw", "saw"}, {"the", "dog", "saw", "a", "cat"},
                                                          {"dogs", "saw", "the", "cat"}, {"run"}, {"zorps", "saw", "cats"}}) {
    auto tokens = Sentence(*m, words);
    CheckAgainstEnumeration(*m, m->PcfgLex(tokens), sc);
  }
}

TEST(chart_crf_inside_and_kbest_equal_enumeration_with_random_weights) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (double& w : m->crf.theta) w = normal(rng);
  for (auto words : std::vector<std::vector<std::string>>{{"dog", "saw", "saw"}, {"the", "dog", "saw", "a", "cat"}}) {
    auto tokens = Sentence(*m, words);
    CrfSentence sent;
    sent.Prepare(m->crf, m->grammar, m->lexicon, tokens);
    CheckAgainstEnumeration(*m, sent.lex(), sent);
  }
}

TEST(chart_crf_gradient_equals_finite_differences) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto m = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  InitCrf(*m, t.corpus, gold);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 0.3);
  for (double& w : m->crf.theta) w += normal(rng);
  Chart ch;
  for (int32_t s : {0, 3}) {
    auto tokens = m->Tokens(t.corpus, s);
    std::vector<double> grad(m->crf.theta.size(), 0.0);
    CrfSentenceObjective(*m, tokens, gold[s], ch, grad.data());
    int checked_nonzero = 0;
    for (size_t f = 0; f < m->crf.theta.size(); ++f) {
      const double h = 1e-5, keep = m->crf.theta[f];
      m->crf.theta[f] = keep + h;
      double up = CrfSentenceObjective(*m, tokens, gold[s], ch, nullptr);
      m->crf.theta[f] = keep - h;
      double down = CrfSentenceObjective(*m, tokens, gold[s], ch, nullptr);
      m->crf.theta[f] = keep;
      CHECK_NEAR(grad[f], (up - down) / (2 * h), 1e-5);
      if (std::fabs(grad[f]) > 1e-6) ++checked_nonzero;
    }
    CHECK(checked_nonzero > 10);
  }
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
  CHECK_THROWS(ChartModel::BuildPcfg(two_unaries.symbols, two_unaries.corpus, two_unaries.pairs, two_unaries.offsets, 1));
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
