// Minimum-Bayes-risk decoding for the CRF (after Goodman 1996, max labelled recall): the
// tree of the grammar maximizing the expected number of its brackets that are in the true
// tree, the expectations under the model's posteriors (log-sum inside-outside over the same,
// possibly pruned, chart). A bracket is a span with a base category (annotations dropped, as
// the evaluation sees it); a node of the tree (a binary rule's parent, or a unary rule's)
// gains the expected number of brackets of its base at its span, summed over the symbols of
// that base and over both kinds of node. A binarized tree has a fixed number of binary nodes
// and tags but not of unary nodes, and recall alone would add every unary that could be
// right: a unary node pays `unary_cost` (a precision term; 0.5 = kept when more likely than
// not). Tags gain their own posterior. The decode is a Viterbi pass over these gains.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "chart/chart.h"
#include "chart/kbest.h"

namespace structrank {

// The unary cost of the parse default (chosen on dev, docs/design/parser-defaults.md).
constexpr double kMbrUnaryCost = 0.5;

// Expected bracket counts of one sentence, dense by cell * B + base category (the decode
// looks one up per rule application).
struct NodePosteriors {
  int n = 0;
  int B = 0;
  const Grammar* g = nullptr;
  std::vector<double> bracket;
  LexScores lex;  // tag posteriors per word

  size_t Key(int i, int j, int32_t symbol) const {
    return static_cast<size_t>(Chart::CellOf(n, i, j)) * B + g->base[symbol];
  }
  double Bracket(int i, int j, int32_t symbol) const { return bracket[Key(i, j, symbol)]; }
  size_t HeldBytes() const { return bracket.capacity() * sizeof(double); }
};

// Scores of the decoding pass: a rule application gains its parent's expected brackets.
struct PosteriorScorer {
  const Grammar* g;
  const NodePosteriors* p;
  double unary_cost;
  double Binary(int32_t r, int i, int, int j) const { return p->Bracket(i, j, g->binary[r].parent); }
  double Unary(int32_t u, int i, int j) const { return p->Bracket(i, j, g->unary[u].parent) - unary_cost; }
  double Root(int32_t) const { return 0; }
};

// Records the posteriors Outside reports (log values) as probabilities.
struct PosteriorCollector {
  const Grammar& g;
  NodePosteriors& p;
  void OnLex(int i, int32_t tag, double v) { p.lex[i].emplace_back(tag, std::exp(v)); }
  void OnUnary(int32_t u, int i, int j, double v) {
    p.bracket[p.Key(i, j, g.unary[u].parent)] += std::exp(v);
  }
  void OnBinary(int32_t, int, int, int, double) {}
  void OnRoot(int32_t, double) {}
};

// The score (sum of scorer values) of a tree in KBest's pre-order (label, arity) form.
template <typename Scorer>
double TreeScore(const Grammar& g, const LexScores& lex, const Scorer& scorer,
                 const std::vector<int32_t>& nodes) {
  size_t pos = 0;
  int word = 0;
  // Walks the subtree at nodes[pos]; returns its score and advances pos and word.
  std::function<double()> walk = [&]() -> double {
    const int32_t x = nodes[pos], arity = nodes[pos + 1];
    pos += 2;
    const int i = word;
    if (arity == 0) {
      ++word;
      for (const auto& ts : lex[i])
        if (ts.first == x) return ts.second;
      return kNegInf;
    }
    if (arity == 1) {
      const int32_t y = nodes[pos];
      const double child = walk();
      for (int32_t q = g.unary_by_parent_offsets[x]; q < g.unary_by_parent_offsets[x + 1]; ++q)
        if (g.unary[g.unary_by_parent[q]].child == y)
          return child + scorer.Unary(g.unary_by_parent[q], i, word);
      return kNegInf;
    }
    const int32_t left = nodes[pos];
    const double sl = walk();
    const int k = word;
    const int32_t right = nodes[pos];
    const double sr = walk();
    for (int32_t q = g.by_parent_offsets[x]; q < g.by_parent_offsets[x + 1]; ++q) {
      const BinaryRule& rule = g.binary[g.by_parent[q]];
      if (rule.left == left && rule.right == right)
        return sl + sr + scorer.Binary(g.by_parent[q], i, k, word);
    }
    return kNegInf;
  };
  const int32_t top = nodes[0];
  const double s = walk();
  const int32_t rr = g.root_rule_of[top];
  return rr < 0 ? kNegInf : s + scorer.Root(rr);
}

// Inside-outside over `ch` (Begin'd for the sentence with outside rows, masks set): the
// expected brackets and tag posteriors into `post` (its buffers reused: an ensemble fills one
// per member and sentence), and log Z (-inf when nothing covers the sentence).
template <typename Scorer>
void CollectPosteriors(const Grammar& g, const LexScores& lex, const Scorer& scorer, Chart& ch, double& log_z,
                       NodePosteriors& post) {
  const int n = ch.n;
  const int S = ch.S;
  post.n = n, post.B = g.num_bases, post.g = &g;
  post.lex.resize(n);
  for (auto& tags : post.lex) tags.clear();
  post.bracket.assign(static_cast<size_t>(Chart::NumCells(n)) * post.B, 0.0);
  log_z = Inside<LogSemiring>(g, lex, scorer, ch);
  if (log_z == kNegInf) return;
  PosteriorCollector collect{g, post};
  Outside<LogSemiring>(g, lex, scorer, log_z, ch, collect);
  // Binary nodes (tags are kept apart, in post.lex).
  for (int c = 0; c < Chart::NumCells(n); ++c) {
    const size_t base = static_cast<size_t>(c) * S;
    for (int a = ch.pre_begin[c]; a < ch.pre_end[c]; ++a) {
      const int32_t x = ch.active_pre[a];
      const double v = ch.pre[base + x] + ch.out_pre[base + x] - log_z;
      if (v != kNegInf && !g.is_tag[x])
        post.bracket[static_cast<size_t>(c) * post.B + g.base[x]] += std::exp(v);
    }
  }
}

// The expected count of one bracket (a base category over words [start, end)) under the
// model's posteriors: what an MBR parse knows of the trees it did not choose.
struct BracketPosterior {
  int32_t start, end, base;
  double p;
};

// The brackets an MBR parse reports (SentenceParse::brackets): those whose expected count is at
// least this; the rest add at most a few hundredths to a candidate's expected correct brackets.
constexpr double kMinBracketPosterior = 1e-3;

// The brackets of `post` (binary and unary nodes, tags apart) with expected count >= kMinBracketPosterior.
inline void SparseBrackets(const NodePosteriors& post, std::vector<BracketPosterior>& out) {
  out.clear();
  for (int i = 0; i < post.n; ++i)
    for (int j = i + 1; j <= post.n; ++j) {
      const size_t cell = static_cast<size_t>(Chart::CellOf(post.n, i, j)) * post.B;
      for (int b = 0; b < post.B; ++b)
        if (post.bracket[cell + b] >= kMinBracketPosterior) out.push_back({i, j, b, post.bracket[cell + b]});
    }
}

template <typename Scorer>
NodePosteriors CollectPosteriors(const Grammar& g, const LexScores& lex, const Scorer& scorer, Chart& ch,
                                 double& log_z) {
  NodePosteriors post;
  CollectPosteriors(g, lex, scorer, ch, log_z, post);
  return post;
}

// The k trees of `ch`'s grammar with the largest gains under `post` (a Viterbi pass over the
// same, possibly masked, chart, cleared and begun again here), best first, each with its
// log-probability under `scorer` (score - log_z); empty when no tree has a finite gain.
template <typename Scorer>
std::vector<ParseCandidate> MbrDecode(const Grammar& g, const LexScores& lex, const Scorer& scorer,
                                      const NodePosteriors& post, double log_z, Chart& ch,
                                      double unary_cost = kMbrUnaryCost, int k = 1) {
  const int n = ch.n;
  const int S = ch.S;
  ch.Clear();
  ch.Begin(n, S, true);
  PosteriorScorer decode{&g, &post, unary_cost};
  if (Inside<MaxSemiring>(g, post.lex, decode, ch) == kNegInf) return {};
  KBest<PosteriorScorer> kbest(g, post.lex, decode, ch);
  std::vector<ParseCandidate> out = kbest.Run(k);
  for (auto& c : out) c.score = TreeScore(g, lex, scorer, c.nodes) - log_z;
  return out;
}

// The MBR tree over `ch` (as above; k > 1: the k best trees under its objective), with its
// log-probability under `scorer` (score - log Z); empty when nothing covers the sentence.
// Leaves the chart to the caller to clear. With `brackets`, also the sentence's SparseBrackets;
// with `log_z_out`, log Z (-inf when nothing covers the sentence).
template <typename Scorer>
std::vector<ParseCandidate> MbrParse(const Grammar& g, const LexScores& lex, const Scorer& scorer, Chart& ch,
                                     double unary_cost = kMbrUnaryCost,
                                     std::vector<BracketPosterior>* brackets = nullptr, int k = 1,
                                     double* log_z_out = nullptr) {
  double log_z = kNegInf;
  const NodePosteriors post = CollectPosteriors(g, lex, scorer, ch, log_z);
  if (log_z_out) *log_z_out = log_z;
  if (log_z == kNegInf) return {};
  if (brackets) SparseBrackets(post, *brackets);
  return MbrDecode(g, lex, scorer, post, log_z, ch, unary_cost, k);
}

}  // namespace structrank
