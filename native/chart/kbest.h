// Exact k-best parses from a Viterbi inside chart: the lazy algorithm 3 of Huang & Chiang
// (2005), over the hypergraph whose nodes are (span, pre/post unary layer, symbol) and the
// goal. Every derivation is a distinct binarized tree, so the k best derivations are the
// k best trees of the grammar, each with its score (sum of rule scores).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "chart/chart.h"
#include "core/errors.h"

namespace structrank {

struct ParseCandidate {
  std::vector<int32_t> nodes;  // pre-order (label, arity) pairs; preterminals have arity 0
  double score = 0;
};

template <typename Scorer>
class KBest {
 public:
  KBest(const Grammar& g, const LexScores& lex, const Scorer& scorer, const Chart& ch)
      : g_(g), lex_(lex), scorer_(scorer), ch_(ch) {}

  // The k best parses (fewer if the grammar has fewer). Memory grows with k (each node keeps
  // up to k derivations), which is why callers bound k; the chart's cancel flag is polled
  // per derivation, so a cancel stops a long extraction at once (throws Cancelled).
  std::vector<ParseCandidate> Run(int k) {
    std::vector<ParseCandidate> out;
    const int64_t goal = -1;
    for (int r = 0; r < k; ++r) {
      if (ch_.cancel && ch_.cancel->load(std::memory_order_relaxed)) throw Cancelled();
      if (!Ensure(goal, r + 1)) break;
      ParseCandidate c;
      c.score = nodes_[goal].best[r].score;
      Emit(goal, r, c.nodes);
      out.push_back(std::move(c));
    }
    return out;
  }

 private:
  enum Kind : int8_t { kLex, kBinary, kIdentity, kUnary, kRoot };
  struct Edge {
    Kind kind;
    int32_t rule;  // rule id, or the symbol for kLex / kIdentity
    int32_t i, k, j;
    int64_t tail[2];
    int ntails;
    double score;
  };
  struct Deriv {
    int32_t edge;
    int32_t rank[2];
    double score;
    bool operator<(const Deriv& o) const { return score < o.score; }  // max-heap on score
  };
  struct Node {
    bool ready = false;
    std::vector<Edge> edges;
    std::vector<Deriv> best, cand;
    std::unordered_set<uint64_t> seen;
  };

  int64_t Key(int i, int j, int layer, int32_t x) const {
    return (static_cast<int64_t>(ch_.Cell(i, j)) * 2 + layer) * ch_.S + x;
  }
  double InsideOf(int64_t key) const {
    const int64_t cell_layer = key / ch_.S;
    const size_t at = static_cast<size_t>(cell_layer / 2) * ch_.S + key % ch_.S;
    return cell_layer % 2 == 0 ? ch_.pre[at] : ch_.post[at];
  }

  void Build(Node& v, int64_t key) {
    const int S = ch_.S;
    const int n = ch_.n;
    if (key < 0) {
      const size_t top = static_cast<size_t>(ch_.Cell(0, n)) * S;
      for (int32_t rr = 0; rr < static_cast<int32_t>(g_.root.size()); ++rr) {
        const int32_t X = g_.root[rr];
        if (ch_.post[top + X] == kNegInf) continue;
        v.edges.push_back({kRoot, rr, 0, 0, n, {Key(0, n, 1, X), 0}, 1, scorer_.Root(rr)});
      }
    } else {
      const int32_t x = static_cast<int32_t>(key % S);
      const int64_t cell_layer = key / S;
      const int layer = static_cast<int>(cell_layer % 2);
      const int cell = static_cast<int>(cell_layer / 2);
      int i = 0;
      while (ch_.Cell(i, n) < cell) ++i;  // cells of row i are [Cell(i,i+1), Cell(i,n)]
      const int j = cell - ch_.Cell(i, i + 1) + i + 1;
      const size_t base = static_cast<size_t>(cell) * S;
      if (layer == 1) {
        if (ch_.pre[base + x] != kNegInf && ch_.PostAllowed(base + x))
          v.edges.push_back({kIdentity, x, i, 0, j, {Key(i, j, 0, x), 0}, 1, 0.0});
        for (int32_t q = g_.unary_by_parent_offsets[x]; q < g_.unary_by_parent_offsets[x + 1]; ++q) {
          const int32_t u = g_.unary_by_parent[q];
          const int32_t y = g_.unary[u].child;
          if (ch_.pre[base + y] == kNegInf) continue;
          v.edges.push_back({kUnary, u, i, 0, j, {Key(i, j, 0, y), 0}, 1, scorer_.Unary(u, i, j)});
        }
      } else if (j - i == 1) {
        for (const auto& ts : lex_[i])
          if (ts.first == x) v.edges.push_back({kLex, x, i, 0, j, {0, 0}, 0, ts.second});
      } else {
        for (int32_t q = g_.by_parent_offsets[x]; q < g_.by_parent_offsets[x + 1]; ++q) {
          const int32_t r = g_.by_parent[q];
          const BinaryRule& rule = g_.binary[r];
          for (int k = i + 1; k < j; ++k) {
            if (ch_.post[static_cast<size_t>(ch_.Cell(i, k)) * S + rule.left] == kNegInf) continue;
            if (ch_.post[static_cast<size_t>(ch_.Cell(k, j)) * S + rule.right] == kNegInf) continue;
            v.edges.push_back({kBinary,
                               r,
                               i,
                               k,
                               j,
                               {Key(i, k, 1, rule.left), Key(k, j, 1, rule.right)},
                               2,
                               scorer_.Binary(r, i, k, j)});
          }
        }
      }
    }
    // Initial candidates: each edge with the 1-best of its tails (the Viterbi inside scores).
    for (int32_t e = 0; e < static_cast<int32_t>(v.edges.size()); ++e) {
      const Edge& edge = v.edges[e];
      double s = edge.score;
      for (int t = 0; t < edge.ntails; ++t) s += InsideOf(edge.tail[t]);
      if (s == kNegInf) continue;
      v.cand.push_back({e, {0, 0}, s});
      v.seen.insert(SeenKey(e, 0, 0));
    }
    std::make_heap(v.cand.begin(), v.cand.end());
    v.ready = true;
  }

  static uint64_t SeenKey(int32_t e, int32_t a, int32_t b) {
    return (static_cast<uint64_t>(e) << 40) ^ (static_cast<uint64_t>(a) << 20) ^ static_cast<uint64_t>(b);
  }

  // Makes sure node `key` has its `k` best derivations if it has that many; returns whether it does.
  bool Ensure(int64_t key, int k) {
    Node* v = &nodes_[key];
    if (!v->ready) Build(*v, key);
    while (static_cast<int>(v->best.size()) < k) {
      if (!v->best.empty()) {
        const Deriv last = v->best.back();
        const Edge edge = v->edges[last.edge];
        for (int t = 0; t < edge.ntails; ++t) {
          int32_t rank[2] = {last.rank[0], last.rank[1]};
          rank[t] += 1;
          if (!Ensure(edge.tail[t], rank[t] + 1)) continue;
          if (edge.ntails == 2 && !Ensure(edge.tail[1 - t], rank[1 - t] + 1)) continue;  // its 1-best etc.
          const uint64_t sk = SeenKey(last.edge, rank[0], rank[1]);
          if (!v->seen.insert(sk).second) continue;
          double s = edge.score;
          for (int u = 0; u < edge.ntails; ++u) s += nodes_[edge.tail[u]].best[rank[u]].score;
          v->cand.push_back({last.edge, {rank[0], rank[1]}, s});
          std::push_heap(v->cand.begin(), v->cand.end());
        }
      }
      if (v->cand.empty()) return false;
      std::pop_heap(v->cand.begin(), v->cand.end());
      v->best.push_back(v->cand.back());
      v->cand.pop_back();
    }
    return true;
  }

  void Emit(int64_t key, int rank, std::vector<int32_t>& out) {
    const Node& v = nodes_[key];
    for (int t = 0; t < v.edges[v.best[rank].edge].ntails; ++t)
      Ensure(v.edges[v.best[rank].edge].tail[t], v.best[rank].rank[t] + 1);
    const Deriv& d = v.best[rank];
    const Edge& e = v.edges[d.edge];
    switch (e.kind) {
      case kRoot:
      case kIdentity:
        Emit(e.tail[0], d.rank[0], out);
        break;
      case kUnary:
        out.push_back(g_.unary[e.rule].parent), out.push_back(1);
        Emit(e.tail[0], d.rank[0], out);
        break;
      case kLex:
        out.push_back(e.rule), out.push_back(0);
        break;
      case kBinary:
        out.push_back(g_.binary[e.rule].parent), out.push_back(2);
        Emit(e.tail[0], d.rank[0], out);
        Emit(e.tail[1], d.rank[1], out);
        break;
    }
  }

  const Grammar& g_;
  const LexScores& lex_;
  const Scorer& scorer_;
  const Chart& ch_;
  std::unordered_map<int64_t, Node> nodes_;
};

}  // namespace structrank
