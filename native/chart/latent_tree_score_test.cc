#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "chart/chart_model.h"
#include "chart/latent_pcfg.h"
#include "chart/latent_tree_score.h"
#include "chart/tiny_treebank_test.h"
#include "core/test_harness.h"

using namespace structrank;

namespace {

// log P(tree, words) by brute force: every assignment of subsymbols to the tree's nodes,
// each scored by the expanded grammar's rules and lexical scores, summed.
double BruteForce(const ChartModel& m, const std::vector<Token>& tokens, const GoldItems& tree) {
  const LatentGrammar& L = *m.latent;
  const Grammar& g = m.grammar;
  std::map<std::tuple<int32_t, int32_t, int32_t>, double> binary;
  for (size_t r = 0; r < g.binary.size(); ++r)
    binary[{g.binary[r].parent, g.binary[r].left, g.binary[r].right}] = m.binary_logp[r];
  std::map<std::pair<int32_t, int32_t>, double> unary;
  for (size_t r = 0; r < g.unary.size(); ++r) unary[{g.unary[r].parent, g.unary[r].child}] = m.unary_logp[r];
  std::map<int32_t, double> root;
  for (size_t r = 0; r < g.root.size(); ++r) root[g.root[r]] = m.root_logp[r];
  const LexScores lex = m.PcfgLex(tokens);
  // Nodes: each with its base symbol and, per assignment, a score given its children's subsymbols.
  struct Node {
    int32_t sym, left = -1, right = -1, word = -1;
    int i, j;
  };
  std::vector<Node> nodes;
  for (const auto& lx : tree.lex) nodes.push_back({lx.tag, -1, -1, lx.i, lx.i, lx.i + 1});
  auto find = [&](int i, int j) {
    int32_t found = -1;  // the topmost node over (i, j): the last one added
    for (size_t k = 0; k < nodes.size(); ++k)
      if (nodes[k].i == i && nodes[k].j == j) found = static_cast<int32_t>(k);
    return found;
  };
  for (int len = 1; len <= static_cast<int>(tokens.size()); ++len) {
    for (const auto& b : tree.binary)
      if (b.j - b.i == len) nodes.push_back({b.parent, find(b.i, b.k), find(b.k, b.j), -1, b.i, b.j});
    for (const auto& u : tree.unary)
      if (u.j - u.i == len) nodes.push_back({u.parent, find(u.i, u.j), -1, -1, u.i, u.j});
  }
  const size_t N = nodes.size();
  std::vector<int32_t> sub(N, 0);
  double total = 0;
  std::function<void(size_t)> visit = [&](size_t k) {
    if (k == N) {
      double score = 0;
      for (size_t n = 0; n < N; ++n) {
        const Node& node = nodes[n];
        const int32_t x = L.first_sub[node.sym] + sub[n];
        if (node.word >= 0) {
          bool seen = false;
          for (const auto& [tag, s] : lex[node.word])
            if (tag == x) score += s, seen = true;
          if (!seen) return;
        } else if (node.right >= 0) {
          const auto it = binary.find({x, L.first_sub[nodes[node.left].sym] + sub[node.left],
                                       L.first_sub[nodes[node.right].sym] + sub[node.right]});
          if (it == binary.end()) return;
          score += it->second;
        } else {
          const auto it = unary.find({x, L.first_sub[nodes[node.left].sym] + sub[node.left]});
          if (it == unary.end()) return;
          score += it->second;
        }
      }
      const auto it = root.find(L.first_sub[nodes[N - 1].sym] + sub[N - 1]);
      if (it != root.end()) total += std::exp(score + it->second);
      return;
    }
    for (sub[k] = 0; sub[k] < L.num_subs[nodes[k].sym]; ++sub[k]) visit(k + 1);
  };
  visit(0);
  return std::log(total);
}

LatentOptions Options(int cycles, int iterations) {
  LatentOptions o;
  o.cycles = cycles, o.iterations = iterations, o.merge = 0.5, o.noise = 0.2, o.word_min = 1;
  return o;
}

}  // namespace

TEST(latent_tree_score_sums_every_subsymbol_assignment) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto base = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  for (int cycles : {0, 1, 2}) {
    auto latent = TrainLatentPcfg(*base, t.corpus, gold, Options(cycles, 6));
    const LatentTreeScorer scorer(*latent);
    for (int32_t s = 0; s < t.corpus.size(); ++s) {
      const std::vector<Token> tokens = latent->Tokens(t.corpus, s);
      const double fast = scorer.LogProb(tokens, gold[s]);
      CHECK(std::isfinite(fast) && fast < 0);
      CHECK_NEAR(fast, BruteForce(*latent, tokens, gold[s]), 1e-9);
    }
  }
}

TEST(latent_tree_score_gives_no_probability_to_a_rule_or_tag_the_grammar_lacks) {
  Tiny t = MakeTiny();
  std::vector<GoldItems> gold;
  auto base = ChartModel::BuildPcfg(t.symbols, t.corpus, t.pairs, t.offsets, 1, &gold);
  auto latent = TrainLatentPcfg(*base, t.corpus, gold, Options(1, 4));
  const LatentTreeScorer scorer(*latent);
  const std::vector<Token> tokens = latent->Tokens(t.corpus, 0);
  GoldItems tree = gold[0];  // (S (NP (D the) (N dog)) (VP (V saw) (NP (D a) (N cat))))
  CHECK(std::isfinite(scorer.LogProb(tokens, tree)));
  GoldItems relabelled = tree;  // (S (VP (D the) (N dog)) ...): S -> VP VP and VP -> D N never seen
  for (auto& b : relabelled.binary) {
    if (b.i == 0 && b.j == 2) b.parent = 2;
    if (b.parent == 0) b.left = 2;
  }
  CHECK(scorer.LogProb(tokens, relabelled) == -INFINITY);
  GoldItems retagged = tree;  // "the" as a verb: NP -> V N is no rule either
  retagged.lex[0].tag = 6;
  for (auto& b : retagged.binary)
    if (b.i == 0 && b.j == 2) b.left = 6;
  CHECK(scorer.LogProb(tokens, retagged) == -INFINITY);
  // Items that do not form a tree are refused, not scored.
  GoldItems broken = tree;
  broken.lex[0].tag = 6;
  CHECK_THROWS(scorer.LogProb(tokens, broken));
}
