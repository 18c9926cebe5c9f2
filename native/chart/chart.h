// The CKY chart and the dynamic programs over it, shared by the PCFG and the CRF:
// inside (Viterbi max or log-sum) and outside passes with a unary layer per span.
// Layout: one dense row of num_symbols scores per cell and layer (pre = before the unary
// layer, post = after it), cells numbered in triangular order; rows stay at -inf between
// sentences (only the entries a sentence touched are reset), and each cell keeps the list
// of its finite symbols so the inner loops never scan dead states or allocate.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "chart/grammar.h"
#include "core/errors.h"

namespace structrank {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

inline double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

// Add(acc, v) folds v into acc. The inside pass folds a cell's many candidates per entry
// with Collect(slot, scale, v) (true when it is the slot's first) and then Finish: the max
// semiring keeps the max; the log semiring keeps the largest candidate in slot and the sum
// of e^(candidate - slot) in scale, one exp per candidate instead of LogAdd's exp and log1p.
struct MaxSemiring {
  static constexpr bool kScaled = false;
  static void Add(double& acc, double v) {
    if (v > acc) acc = v;
  }
  static bool Collect(double& slot, double&, double v) {
    const bool first = slot == kNegInf;
    if (v > slot) slot = v;
    return first;
  }
  static void Finish(double&, double&) {}
};
struct LogSemiring {
  static constexpr bool kScaled = true;
  static void Add(double& acc, double v) { acc = LogAdd(acc, v); }
  static bool Collect(double& slot, double& scale, double v) {
    if (v == kNegInf) return false;  // adds nothing (and would make e^(-inf - -inf) a NaN)
    if (slot == kNegInf) {
      slot = v, scale = 1;
      return true;
    }
    if (v <= slot) {
      scale += std::exp(v - slot);
    } else {
      scale = scale * std::exp(slot - v) + 1;
      slot = v;
    }
    return false;
  }
  static void Finish(double& slot, double& scale) {
    slot += std::log(scale);
    scale = 0;
  }
};

// Tag scores per position: (tag, score) pairs.
using LexScores = std::vector<std::vector<std::pair<int32_t, double>>>;

struct Chart {
  int n = 0;
  int S = 0;
  std::vector<double> pre, post, out_pre, out_post;
  std::vector<int32_t> active_pre, active_post;  // flat lists, per cell ranges below
  std::vector<int32_t> pre_begin, pre_end, post_begin, post_end;
  std::vector<double> scale;  // one cell's row of the inside pass's scaled sums (zero between cells)
  // Parse-time pruning for Viterbi passes: after a cell's unary layer, drop post states
  // more than `beam` below the cell's best (infinity = exact).
  double beam = std::numeric_limits<double>::infinity();
  // Optional pruning masks (cells * S, 1 = allowed); empty = everything allowed.
  std::vector<uint8_t> mask_pre, mask_post;
  // How the passes walk a split's binary rules (WalkByRule); tests force either walk.
  enum class Walk { kAuto, kByLeft, kByRule } walk = Walk::kAuto;
  // The outside pass's rule-order walk: what one split passes down to each left and right
  // child, folded like the inside pass's candidates (slots -inf and scales 0 between splits).
  std::vector<double> down_left, down_left_scale, down_right, down_right_scale;
  std::vector<int32_t> touched_left, touched_right;
  // Set while a parse job runs: k-best extraction polls it so a cancel stops it mid-sentence.
  const std::atomic<bool>* cancel = nullptr;

  static int NumCells(int n) { return n * (n + 1) / 2; }
  // The cell of span (i, j) in a chart of n words (triangular order).
  static int CellOf(int n, int i, int j) { return i * (2 * n - i + 1) / 2 + (j - i - 1); }
  int Cell(int i, int j) const { return CellOf(n, i, j); }
  size_t At(int i, int j, int x) const { return static_cast<size_t>(Cell(i, j)) * S + x; }

  // Prepares for a sentence of n words; rows are already -inf from the previous Clear().
  // Outside rows are only allocated for callers that run an outside pass.
  void Begin(int words, int symbols, bool outside = false) {
    if (symbols != S) {
      S = symbols;
      pre.clear(), post.clear(), out_pre.clear(), out_post.clear();
    }
    n = words;
    size_t need = static_cast<size_t>(NumCells(n)) * S;
    if (pre.size() < need) pre.assign(need, kNegInf), post.assign(need, kNegInf);
    if (outside && out_pre.size() < need) out_pre.assign(need, kNegInf), out_post.assign(need, kNegInf);
    int cells = NumCells(n);
    pre_begin.assign(cells, 0), pre_end.assign(cells, 0), post_begin.assign(cells, 0),
        post_end.assign(cells, 0);
    active_pre.clear(), active_post.clear();
  }
  // Resets every touched entry to -inf (outside scores only exist where inside ones do).
  void Clear() {
    const size_t covered = static_cast<size_t>(NumCells(n)) * S;
    const bool outside = out_pre.size() >= covered;
    for (int c = 0; c < NumCells(n); ++c) {
      size_t base = static_cast<size_t>(c) * S;
      for (int a = pre_begin[c]; a < pre_end[c]; ++a) {
        pre[base + active_pre[a]] = kNegInf;
        if (outside) out_pre[base + active_pre[a]] = kNegInf;
      }
      for (int a = post_begin[c]; a < post_end[c]; ++a) {
        post[base + active_post[a]] = kNegInf;
        if (outside) out_post[base + active_post[a]] = kNegInf;
      }
    }
    active_pre.clear(), active_post.clear();
  }
  // The best post entry of cell c (-inf when it has none).
  double BestPost(int c) const {
    const double* row = &post[static_cast<size_t>(c) * S];
    double best = kNegInf;
    for (int a = post_begin[c]; a < post_end[c]; ++a) best = std::max(best, row[active_post[a]]);
    return best;
  }
  // Drops the post entries of cell c (its last cell so far) more than `width` below the
  // cell's best; returns that best.
  double KeepWithinBeam(int c, double width) {
    double* row = &post[static_cast<size_t>(c) * S];
    const double best = BestPost(c);
    int keep = post_begin[c];
    for (int a = post_begin[c]; a < post_end[c]; ++a) {
      const int32_t X = active_post[a];
      if (row[X] >= best - width)
        active_post[keep++] = X;
      else
        row[X] = kNegInf;
    }
    active_post.resize(keep);
    post_end[c] = keep;
    return best;
  }
  // The bytes its score rows and masks hold (what grows with the longest sentence so far).
  size_t HeldBytes() const {
    return (pre.capacity() + post.capacity() + out_pre.capacity() + out_post.capacity()) * sizeof(double) +
           mask_pre.capacity() + mask_post.capacity();
  }
  bool PreAllowed(size_t at) const { return mask_pre.empty() || mask_pre[at]; }
  bool PostAllowed(size_t at) const { return mask_post.empty() || mask_post[at]; }
};

// Calls visit(r, R, sr) for every binary rule r with left child L whose right child R has a
// finite post score sr in cell cr. A masked or beamed cell holds a few of the symbols, so
// when it holds fewer than L has rules, the walk goes over the cell's symbols and the
// (L, R) index; otherwise over L's rules, testing each right child.
template <typename Visit>
inline void ForEachRuleOfLeft(const Grammar& g, const Chart& ch, int cr, int32_t L, Visit&& visit) {
  const double* right = &ch.post[static_cast<size_t>(cr) * ch.S];
  const int32_t q0 = g.by_left_offsets[L], q1 = g.by_left_offsets[L + 1];
  const int present = ch.post_end[cr] - ch.post_begin[cr];
  if (!g.by_pair_offsets.empty() && present < q1 - q0) {
    const int32_t* pair_of = &g.by_pair_offsets[static_cast<size_t>(L) * ch.S];
    for (int a = ch.post_begin[cr]; a < ch.post_end[cr]; ++a) {
      const int32_t R = ch.active_post[a];
      const int32_t p0 = pair_of[R], p1 = pair_of[R + 1];
      if (p0 == p1) continue;
      const double sr = right[R];
      if (sr == kNegInf) continue;
      for (int32_t q = p0; q < p1; ++q) visit(g.by_pair[q], R, sr);
    }
    return;
  }
  for (int32_t q = q0; q < q1; ++q) {
    const int32_t r = g.by_left[q];
    const int32_t R = g.binary[r].right;
    const double sr = right[R];
    if (sr == kNegInf) continue;
    visit(r, R, sr);
  }
}

// Whether a split with children in cells cl and cr walks every binary rule in id order
// (WalkByRule) instead of the left cell's symbols and their rules (ForEachRuleOfLeft). A dense
// pair of cells, as in an exhaustive chart over every tag, reaches most rules either way, and
// the rule-order walk reads the rules, their weights and the scorer's per-rule tables as
// streams instead of at random: the by-left walk pays a cache miss or more per application.
inline bool WalkByRule(const Grammar& g, const Chart& ch, int cl, int cr) {
  if (ch.walk != Chart::Walk::kAuto) return ch.walk == Chart::Walk::kByRule;
  const int present = ch.post_end[cr] - ch.post_begin[cr];
  if (present == 0) return false;
  const bool pairs = !g.by_pair_offsets.empty();
  int64_t visits = 0;  // the rules (or pair lookups) the by-left walk would visit
  for (int a = ch.post_begin[cl]; a < ch.post_end[cl]; ++a) {
    const int32_t L = ch.active_post[a];
    const int32_t rules = g.by_left_offsets[L + 1] - g.by_left_offsets[L];
    visits += pairs && present < rules ? present : rules;
  }
  return visits * 4 >= static_cast<int64_t>(g.binary.size());
}

// The pre entries of word cell c: the word's tags with a score (and allowed by the mask).
inline void PlaceTags(const std::vector<std::pair<int32_t, double>>& tags, int c, Chart& ch) {
  double* pre = &ch.pre[static_cast<size_t>(c) * ch.S];
  for (const auto& ts : tags) {
    if (!ch.PreAllowed(static_cast<size_t>(c) * ch.S + ts.first) || ts.second == kNegInf) continue;
    pre[ts.first] = ts.second;
    ch.active_pre.push_back(ts.first);
  }
}

// The unary layer of cell c over span (i, j), after its pre entries: each pre entry itself
// or one unary rule above it (allowed by the mask), listed as the cell's post entries.
template <typename Semiring, typename Scorer>
void UnaryLayer(const Grammar& g, const Scorer& scorer, int i, int j, int c, Chart& ch) {
  const double* pre = &ch.pre[static_cast<size_t>(c) * ch.S];
  double* post = &ch.post[static_cast<size_t>(c) * ch.S];
  ch.post_begin[c] = static_cast<int>(ch.active_post.size());
  for (int a = ch.pre_begin[c]; a < ch.pre_end[c]; ++a) {
    const int32_t Y = ch.active_pre[a];
    const double sy = pre[Y];
    if (ch.PostAllowed(static_cast<size_t>(c) * ch.S + Y)) {
      if (post[Y] == kNegInf) ch.active_post.push_back(Y);
      Semiring::Add(post[Y], sy);
    }
    for (int32_t q = g.unary_by_child_offsets[Y]; q < g.unary_by_child_offsets[Y + 1]; ++q) {
      const int32_t u = g.unary_by_child[q];
      const int32_t P = g.unary[u].parent;
      if (!ch.PostAllowed(static_cast<size_t>(c) * ch.S + P)) continue;
      if (post[P] == kNegInf) ch.active_post.push_back(P);
      Semiring::Add(post[P], sy + scorer.Unary(u, i, j));
    }
  }
  ch.post_end[c] = static_cast<int>(ch.active_post.size());
}

// Inside pass. Scorer provides Binary(rule, i, k, j), Unary(rule, i, j), Root(root_rule).
// Returns the root score (max or log-sum over root rules), -inf when nothing covers.
template <typename Semiring, typename Scorer>
double Inside(const Grammar& g, const LexScores& lex, const Scorer& scorer, Chart& ch) {
  const int n = ch.n;
  const int S = ch.S;
  if (ch.scale.size() != static_cast<size_t>(S)) ch.scale.assign(S, 0.0);
  double* scale = ch.scale.data();
  for (int len = 1; len <= n; ++len) {
    // A long sentence's chart takes seconds: a cancelled parse job stops here too.
    if (ch.cancel && ch.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    for (int i = 0; i + len <= n; ++i) {
      const int j = i + len;
      const int c = ch.Cell(i, j);
      double* pre = &ch.pre[static_cast<size_t>(c) * S];
      ch.pre_begin[c] = static_cast<int>(ch.active_pre.size());
      if (len == 1) {
        PlaceTags(lex[i], c, ch);
      } else {
        for (int k = i + 1; k < j; ++k) {
          const int cl = ch.Cell(i, k), cr = ch.Cell(k, j);
          const double* left = &ch.post[static_cast<size_t>(cl) * S];
          if (WalkByRule(g, ch, cl, cr)) {
            const double* right = &ch.post[static_cast<size_t>(cr) * S];
            const int32_t rules = static_cast<int32_t>(g.binary.size());
            for (int32_t r = 0; r < rules; ++r) {
              const BinaryRule& rule = g.binary[r];
              const double sl = left[rule.left];
              if (sl == kNegInf) continue;
              const double sr = right[rule.right];
              if (sr == kNegInf) continue;
              const int32_t P = rule.parent;
              if (!ch.PreAllowed(static_cast<size_t>(c) * S + P)) continue;
              if (Semiring::Collect(pre[P], scale[P], sl + sr + scorer.Binary(r, i, k, j)))
                ch.active_pre.push_back(P);
            }
            continue;
          }
          for (int a = ch.post_begin[cl]; a < ch.post_end[cl]; ++a) {
            const int32_t L = ch.active_post[a];
            const double sl = left[L];
            ForEachRuleOfLeft(g, ch, cr, L, [&](int32_t r, int32_t, double sr) {
              const int32_t P = g.binary[r].parent;
              if (!ch.PreAllowed(static_cast<size_t>(c) * S + P)) return;
              if (Semiring::Collect(pre[P], scale[P], sl + sr + scorer.Binary(r, i, k, j)))
                ch.active_pre.push_back(P);
            });
          }
        }
        if (Semiring::kScaled)
          for (int a = ch.pre_begin[c]; a < static_cast<int>(ch.active_pre.size()); ++a)
            Semiring::Finish(pre[ch.active_pre[a]], scale[ch.active_pre[a]]);
      }
      ch.pre_end[c] = static_cast<int>(ch.active_pre.size());
      UnaryLayer<Semiring>(g, scorer, i, j, c, ch);
      if (ch.beam < std::numeric_limits<double>::infinity()) ch.KeepWithinBeam(c, ch.beam);
    }
  }
  double total = kNegInf;
  const int top = ch.Cell(0, n);
  for (int a = ch.post_begin[top]; a < ch.post_end[top]; ++a) {
    const int32_t X = ch.active_post[a];
    const int32_t rr = g.root_rule_of[X];
    if (rr < 0) continue;
    Semiring::Add(total, ch.post[static_cast<size_t>(top) * S + X] + scorer.Root(rr));
  }
  return total;
}

// One split (i, k, j) of the outside pass, walking every rule in id order (WalkByRule): what
// the split passes down to each child is folded per child and added to its outside score
// once, after the walk.
template <typename Semiring, typename Scorer, typename Visitor>
void OutsideSplitByRule(const Grammar& g, const Scorer& scorer, double total, int i, int k, int j,
                        const double* out_pre, size_t lb, size_t rb, Chart& ch, Visitor& visit) {
  const size_t S = static_cast<size_t>(ch.S);
  if (ch.down_left.size() != S) {
    ch.down_left.assign(S, kNegInf), ch.down_right.assign(S, kNegInf);
    ch.down_left_scale.assign(S, 0.0), ch.down_right_scale.assign(S, 0.0);
  }
  double* to_left = ch.down_left.data();
  double* to_left_scale = ch.down_left_scale.data();
  double* to_right = ch.down_right.data();
  double* to_right_scale = ch.down_right_scale.data();
  const double* in_left = &ch.post[lb];
  const double* in_right = &ch.post[rb];
  const int32_t rules = static_cast<int32_t>(g.binary.size());
  for (int32_t r = 0; r < rules; ++r) {
    const BinaryRule& rule = g.binary[r];
    const double op = out_pre[rule.parent];
    if (op == kNegInf) continue;
    const double sl = in_left[rule.left];
    if (sl == kNegInf) continue;
    const double sr = in_right[rule.right];
    if (sr == kNegInf) continue;
    const double s = op + scorer.Binary(r, i, k, j);
    if (to_left[rule.left] == kNegInf) ch.touched_left.push_back(rule.left);
    Semiring::Collect(to_left[rule.left], to_left_scale[rule.left], s + sr);
    if (to_right[rule.right] == kNegInf) ch.touched_right.push_back(rule.right);
    Semiring::Collect(to_right[rule.right], to_right_scale[rule.right], s + sl);
    visit.OnBinary(r, i, k, j, s + sl + sr - total);
  }
  for (const int32_t L : ch.touched_left) {
    Semiring::Finish(to_left[L], to_left_scale[L]);
    Semiring::Add(ch.out_post[lb + L], to_left[L]);
    to_left[L] = kNegInf, to_left_scale[L] = 0;
  }
  for (const int32_t R : ch.touched_right) {
    Semiring::Finish(to_right[R], to_right_scale[R]);
    Semiring::Add(ch.out_post[rb + R], to_right[R]);
    to_right[R] = kNegInf, to_right_scale[R] = 0;
  }
  ch.touched_left.clear(), ch.touched_right.clear();
}

// Outside pass after Inside with the same semiring and scorer. The visitor sees every rule
// application with finite inside and outside scores, as (outside + score + inside) - total,
// i.e. its log posterior (log-sum) or its max-marginal gap (max):
// OnLex(i, tag, v), OnUnary(rule, i, j, v), OnBinary(rule, i, k, j, v), OnRoot(rule, v).
template <typename Semiring, typename Scorer, typename Visitor>
void Outside(const Grammar& g, const LexScores& lex, const Scorer& scorer, double total, Chart& ch,
             Visitor& visit) {
  const int n = ch.n;
  const int S = ch.S;
  const int top = ch.Cell(0, n);
  for (int a = ch.post_begin[top]; a < ch.post_end[top]; ++a) {
    const int32_t X = ch.active_post[a];
    const int32_t rr = g.root_rule_of[X];
    if (rr < 0) continue;
    const double s = scorer.Root(rr);
    ch.out_post[static_cast<size_t>(top) * S + X] = s;
    visit.OnRoot(rr, s + ch.post[static_cast<size_t>(top) * S + X] - total);
  }
  for (int len = n; len >= 1; --len) {
    for (int i = 0; i + len <= n; ++i) {
      const int j = i + len;
      const int c = ch.Cell(i, j);
      const size_t base = static_cast<size_t>(c) * S;
      double* in_pre = &ch.pre[base];
      double* out_pre = &ch.out_pre[base];
      double* out_post = &ch.out_post[base];
      for (int a = ch.post_begin[c]; a < ch.post_end[c]; ++a) {
        const int32_t P = ch.active_post[a];
        const double op = out_post[P];
        if (op == kNegInf) continue;
        if (in_pre[P] != kNegInf && ch.PostAllowed(base + P)) Semiring::Add(out_pre[P], op);
        for (int32_t q = g.unary_by_parent_offsets[P]; q < g.unary_by_parent_offsets[P + 1]; ++q) {
          const int32_t u = g.unary_by_parent[q];
          const int32_t Y = g.unary[u].child;
          if (in_pre[Y] == kNegInf) continue;
          const double s = scorer.Unary(u, i, j);
          Semiring::Add(out_pre[Y], op + s);
          visit.OnUnary(u, i, j, op + s + in_pre[Y] - total);
        }
      }
      if (len == 1) {
        for (const auto& ts : lex[i]) {
          const double op = out_pre[ts.first];
          if (op == kNegInf || in_pre[ts.first] == kNegInf) continue;
          visit.OnLex(i, ts.first, op + in_pre[ts.first] - total);
        }
        continue;
      }
      // Binary rules, walked like the inside pass (left child's finite states first).
      for (int k = i + 1; k < j; ++k) {
        const size_t lb = static_cast<size_t>(ch.Cell(i, k)) * S, rb = static_cast<size_t>(ch.Cell(k, j)) * S;
        const int cl = ch.Cell(i, k), cr = ch.Cell(k, j);
        if (WalkByRule(g, ch, cl, cr)) {
          OutsideSplitByRule<Semiring>(g, scorer, total, i, k, j, out_pre, lb, rb, ch, visit);
          continue;
        }
        for (int a = ch.post_begin[cl]; a < ch.post_end[cl]; ++a) {
          const int32_t L = ch.active_post[a];
          const double sl = ch.post[lb + L];
          double to_left = kNegInf, to_left_scale = 0;  // what this split passes down to L
          ForEachRuleOfLeft(g, ch, cr, L, [&](int32_t r, int32_t R, double sr) {
            const double op = out_pre[g.binary[r].parent];
            if (op == kNegInf) return;
            const double s = op + scorer.Binary(r, i, k, j);
            Semiring::Collect(to_left, to_left_scale, s + sr);
            Semiring::Add(ch.out_post[rb + R], s + sl);
            visit.OnBinary(r, i, k, j, s + sl + sr - total);
          });
          if (to_left != kNegInf) {
            Semiring::Finish(to_left, to_left_scale);
            Semiring::Add(ch.out_post[lb + L], to_left);
          }
        }
      }
    }
  }
}

struct NullVisitor {
  void OnLex(int, int32_t, double) {}
  void OnUnary(int32_t, int, int, double) {}
  void OnBinary(int32_t, int, int, int, double) {}
  void OnRoot(int32_t, double) {}
};

}  // namespace structrank
