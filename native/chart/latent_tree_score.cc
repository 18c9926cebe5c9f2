#include "chart/latent_tree_score.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "chart/chart_model.h"
#include "chart/latent_grammar.h"
#include "core/errors.h"

namespace structrank {

namespace {

uint64_t Key(int32_t a, int32_t b, int32_t c) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 42) ^
         (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 21) ^ static_cast<uint32_t>(c);
}

}  // namespace

LatentTreeScorer::LatentTreeScorer(const ChartModel& model) : model_(model), latent_(*model.latent) {
  const LatentGrammar& L = latent_;
  // Each layout holds the base rules' dense blocks end to end; a block's stored entries are
  // the positions that fall inside it.
  auto blocks = [&](const std::vector<uint64_t>& at, const std::vector<uint16_t>& codes,
                    const std::vector<size_t>& sizes, std::vector<Block>& out) {
    size_t k = 0;
    uint64_t offset = 0;
    for (size_t size : sizes) {
      if (size > UINT32_MAX) throw InputError("latent tree score: a rule block too large");
      Block block;
      block.begin = positions_.size();
      for (; k < at.size() && at[k] < offset + size; ++k) {
        positions_.push_back(static_cast<uint32_t>(at[k] - offset));
        probs_.push_back(std::exp(-codes[k] / kLatentLogScale));
      }
      block.end = positions_.size();
      out.push_back(block);
      offset += size;
    }
  };
  std::vector<size_t> sizes;
  for (const auto& r : L.base.binary)
    sizes.push_back(static_cast<size_t>(L.num_subs[r.parent]) * L.num_subs[r.left] * L.num_subs[r.right]);
  blocks(L.binary_at, L.binary, sizes, binary_);
  sizes.clear();
  for (const auto& r : L.base.unary)
    sizes.push_back(static_cast<size_t>(L.num_subs[r.parent]) * L.num_subs[r.child]);
  blocks(L.unary_at, L.unary, sizes, unary_);
  sizes.clear();
  for (int32_t s : L.base.root) sizes.push_back(L.num_subs[s]);
  blocks(L.root_at, L.root, sizes, root_);
  for (size_t r = 0; r < L.base.binary.size(); ++r) {
    const auto& rule = L.base.binary[r];
    binary_id_[Key(rule.parent, rule.left, rule.right)] = static_cast<int32_t>(r);
  }
  for (size_t r = 0; r < L.base.unary.size(); ++r)
    unary_id_[Key(L.base.unary[r].parent, L.base.unary[r].child, 0)] = static_cast<int32_t>(r);
}

double LatentTreeScorer::LogProb(const std::vector<Token>& tokens, const GoldItems& tree) const {
  const LatentGrammar& L = latent_;
  const int n = static_cast<int>(tokens.size());
  if (n == 0 || tree.root < 0 || tree.root >= L.base.num_symbols) return -INFINITY;
  // Each node's inside scores over its subsymbols, scaled to a maximum of 1, and the log of
  // the scale: spans from the shortest, at each span its binary node, then its unary above.
  struct Node {
    int32_t sym;
    size_t at;  // its scores in `in`
    double log_scale;
  };
  std::vector<Node> nodes;
  std::vector<double> in;
  std::vector<int32_t> top(static_cast<size_t>(n) * (n + 1), -1);
  auto span = [&](int i, int j) -> int32_t& { return top[static_cast<size_t>(i) * (n + 1) + j]; };
  auto add = [&](int32_t sym, double log_scale) {
    nodes.push_back({sym, in.size(), log_scale});
    in.resize(in.size() + L.num_subs[sym], 0.0);
    return static_cast<int32_t>(nodes.size() - 1);
  };
  // Scales node k's scores to a maximum of 1; false when they are all 0.
  auto normalize = [&](int32_t k) {
    Node& node = nodes[k];
    double* v = &in[node.at];
    const int m = L.num_subs[node.sym];
    const double peak = *std::max_element(v, v + m);
    if (!(peak > 0)) return false;
    for (int a = 0; a < m; ++a) v[a] /= peak;
    node.log_scale += std::log(peak);
    return true;
  };
  for (const auto& lx : tree.lex) {
    if (lx.i < 0 || lx.i >= n || lx.tag < 0 || lx.tag >= L.base.num_symbols) return -INFINITY;
    const double lp = model_.lexicon.LogProb(tokens[lx.i], lx.tag);
    if (!std::isfinite(lp)) return -INFINITY;
    const int32_t k = add(lx.tag, lp);
    const int32_t word_class = L.ClassOf(model_.lexicon, tokens[lx.i]);
    for (int a = 0; a < L.num_subs[lx.tag]; ++a)
      in[nodes[k].at + a] = std::exp(L.SplitScore(word_class, L.first_sub[lx.tag] + a));
    if (!normalize(k)) return -INFINITY;
    span(lx.i, lx.i + 1) = k;
  }
  std::vector<const GoldItems::Binary*> binaries;
  for (const auto& b : tree.binary) binaries.push_back(&b);
  std::sort(binaries.begin(), binaries.end(),
            [](const GoldItems::Binary* a, const GoldItems::Binary* b) { return a->j - a->i < b->j - b->i; });
  std::vector<const GoldItems::Unary*> unaries;
  for (const auto& u : tree.unary) unaries.push_back(&u);
  std::sort(unaries.begin(), unaries.end(),
            [](const GoldItems::Unary* a, const GoldItems::Unary* b) { return a->j - a->i < b->j - b->i; });
  size_t bi = 0, ui = 0;
  for (int len = 1; len <= n; ++len) {
    for (; bi < binaries.size() && binaries[bi]->j - binaries[bi]->i == len; ++bi) {
      const auto& b = *binaries[bi];
      const int32_t left = span(b.i, b.k), right = span(b.k, b.j);
      if (left < 0 || right < 0 || nodes[left].sym != b.left || nodes[right].sym != b.right)
        throw InputError("latent tree score: a rule without its children");
      const auto rule = binary_id_.find(Key(b.parent, b.left, b.right));
      if (rule == binary_id_.end()) return -INFINITY;
      const int32_t k = add(b.parent, nodes[left].log_scale + nodes[right].log_scale);
      const size_t nl = L.num_subs[b.left], nr = L.num_subs[b.right];
      const double* l = &in[nodes[left].at];
      const double* r = &in[nodes[right].at];
      double* v = &in[nodes[k].at];
      const Block& block = binary_[rule->second];
      for (size_t e = block.begin; e < block.end; ++e) {
        const size_t x = positions_[e];
        v[x / (nl * nr)] += probs_[e] * l[x / nr % nl] * r[x % nr];
      }
      if (!normalize(k)) return -INFINITY;
      span(b.i, b.j) = k;
    }
    for (; ui < unaries.size() && unaries[ui]->j - unaries[ui]->i == len; ++ui) {
      const auto& u = *unaries[ui];
      const int32_t child = span(u.i, u.j);
      if (child < 0 || nodes[child].sym != u.child)
        throw InputError("latent tree score: a unary rule without its child");
      const auto rule = unary_id_.find(Key(u.parent, u.child, 0));
      if (rule == unary_id_.end()) return -INFINITY;
      const int32_t k = add(u.parent, nodes[child].log_scale);
      const size_t nc = L.num_subs[u.child];
      const double* c = &in[nodes[child].at];
      double* v = &in[nodes[k].at];
      const Block& block = unary_[rule->second];
      for (size_t e = block.begin; e < block.end; ++e)
        v[positions_[e] / nc] += probs_[e] * c[positions_[e] % nc];
      if (!normalize(k)) return -INFINITY;
      span(u.i, u.j) = k;
    }
  }
  const int32_t top_node = span(0, n);
  if (top_node < 0 || nodes[top_node].sym != tree.root)
    throw InputError("latent tree score: the tree does not cover its sentence");
  const int32_t root_rule = L.base.root_rule_of[tree.root];
  if (root_rule < 0) return -INFINITY;
  double z = 0;
  const Block& block = root_[root_rule];
  for (size_t e = block.begin; e < block.end; ++e) z += probs_[e] * in[nodes[top_node].at + positions_[e]];
  return z > 0 ? std::log(z) + nodes[top_node].log_scale : -INFINITY;
}

}  // namespace structrank
