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
  const int32_t n = static_cast<int32_t>(tokens.size());
  if (n == 0 || tree.root < 0 || tree.root >= L.base.num_symbols) return -INFINITY;
  const std::vector<GoldNode> nodes = BottomUp(tree, n);
  // Each node's inside scores over its subsymbols (at[k] in `in`), scaled to a maximum of 1,
  // and the log of the scale.
  std::vector<size_t> at(nodes.size() + 1, 0);
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].sym < 0 || nodes[k].sym >= L.base.num_symbols) return -INFINITY;
    at[k + 1] = at[k] + L.num_subs[nodes[k].sym];
  }
  std::vector<double> in(at.back(), 0.0), log_scale(nodes.size(), 0.0);
  for (size_t k = 0; k < nodes.size(); ++k) {
    const GoldNode& node = nodes[k];
    double* v = &in[at[k]];
    if (node.kind == 0) {
      const Token& token = tokens[tree.lex[node.item].i];
      log_scale[k] = model_.lexicon.LogProb(token, node.sym);
      if (!std::isfinite(log_scale[k])) return -INFINITY;
      const int32_t word_class = L.ClassOf(model_.lexicon, token);
      for (int a = 0; a < L.num_subs[node.sym]; ++a)
        v[a] = std::exp(L.SplitScore(word_class, L.first_sub[node.sym] + a));
    } else if (node.kind == 1) {
      const auto rule = unary_id_.find(Key(node.sym, nodes[node.left].sym, 0));
      if (rule == unary_id_.end()) return -INFINITY;
      const size_t nc = L.num_subs[nodes[node.left].sym];
      const double* c = &in[at[node.left]];
      const Block& block = unary_[rule->second];
      for (size_t e = block.begin; e < block.end; ++e)
        v[positions_[e] / nc] += probs_[e] * c[positions_[e] % nc];
      log_scale[k] = log_scale[node.left];
    } else {
      const auto rule = binary_id_.find(Key(node.sym, nodes[node.left].sym, nodes[node.right].sym));
      if (rule == binary_id_.end()) return -INFINITY;
      const size_t nl = L.num_subs[nodes[node.left].sym], nr = L.num_subs[nodes[node.right].sym];
      const double* l = &in[at[node.left]];
      const double* r = &in[at[node.right]];
      const Block& block = binary_[rule->second];
      for (size_t e = block.begin; e < block.end; ++e) {
        const size_t x = positions_[e];
        v[x / (nl * nr)] += probs_[e] * l[x / nr % nl] * r[x % nr];
      }
      log_scale[k] = log_scale[node.left] + log_scale[node.right];
    }
    const double peak = *std::max_element(v, v + L.num_subs[node.sym]);
    if (!(peak > 0)) return -INFINITY;
    for (int a = 0; a < L.num_subs[node.sym]; ++a) v[a] /= peak;
    log_scale[k] += std::log(peak);
  }
  const size_t top = nodes.size() - 1;
  const int32_t root_rule = L.base.root_rule_of[tree.root];
  if (root_rule < 0) return -INFINITY;
  double z = 0;
  const Block& block = root_[root_rule];
  for (size_t e = block.begin; e < block.end; ++e) z += probs_[e] * in[at[top] + positions_[e]];
  return z > 0 ? std::log(z) + log_scale[top] : -INFINITY;
}

}  // namespace structrank
