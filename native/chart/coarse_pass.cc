#include "chart/coarse_pass.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace structrank {

namespace {
constexpr double kBoundSlack = 1e-6;
}  // namespace

CoarseRules::CoarseRules(const Grammar& g, const double* binary_logp, const double* unary_logp,
                         const double* root_logp)
    : best_score_of_left(g.num_symbols, -std::numeric_limits<double>::infinity()),
      unary(unary_logp),
      root(root_logp) {
  for (int32_t r : g.by_left) {
    const BinaryRule& rule = g.binary[r];
    right_by_left.push_back(rule.right);
    parent_by_left.push_back(rule.parent);
    score_by_left.push_back(binary_logp[r]);
    best_score_of_left[rule.left] = std::max(best_score_of_left[rule.left], binary_logp[r]);
    best_score = std::max(best_score, binary_logp[r]);
  }
  for (size_t r = 0; r < g.binary.size(); ++r) all_finite = all_finite && std::isfinite(binary_logp[r]);
  for (size_t u = 0; u < g.unary.size(); ++u) all_finite = all_finite && std::isfinite(unary_logp[u]);
  for (size_t r = 0; r < g.root.size(); ++r) all_finite = all_finite && std::isfinite(root_logp[r]);
}

double CoarseInside(const Grammar& g, const CoarseRules& rules, const LexScores& lex, Chart& ch,
                    double beam) {
  const int n = ch.n;
  const int S = ch.S;
  const int32_t* right_of = rules.right_by_left.data();
  const int32_t* parent_of = rules.parent_by_left.data();
  const double* score_of = rules.score_by_left.data();
  std::vector<double> best_post(Chart::NumCells(n), kNegInf);  // cell -> its best post entry
  const bool with_beam = beam < std::numeric_limits<double>::infinity();
  for (int len = 1; len <= n; ++len) {
    if (ch.cancel && ch.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    for (int i = 0; i + len <= n; ++i) {
      const int j = i + len;
      const int c = ch.Cell(i, j);
      double* pre = &ch.pre[static_cast<size_t>(c) * S];
      ch.pre_begin[c] = static_cast<int>(ch.active_pre.size());
      if (len == 1) {
        PlaceTags(lex[i], c, ch);
      } else {
        // With a beam, an application whose score is bound to fall below the cell's best
        // so far minus the beam is skipped; its parent could only be an entry the beam drops.
        // The best so far is the best application so far (every entry starts at -inf), kept
        // as they are made: a scan of the row after each split cost a quarter of the pass.
        double top = kNegInf;
        for (int k = i + 1; k < j; ++k) {
          const int cl = ch.Cell(i, k), cr = ch.Cell(k, j);
          if (best_post[cl] + best_post[cr] + rules.best_score < top - beam - kBoundSlack) continue;
          const double* right = &ch.post[static_cast<size_t>(cr) * S];
          for (int a = ch.post_begin[cl]; a < ch.post_end[cl]; ++a) {
            const int32_t L = ch.active_post[a];
            const double sl = ch.post[static_cast<size_t>(cl) * S + L];
            if (sl + best_post[cr] + rules.best_score_of_left[L] < top - beam - kBoundSlack) continue;
            const int32_t q0 = g.by_left_offsets[L], q1 = g.by_left_offsets[L + 1];
            auto apply = [&](int32_t q) {  // rule q at this split; returns its score
              const double v = sl + right[right_of[q]] + score_of[q];
              double& slot = pre[parent_of[q]];
              slot = std::max(slot, v);
              return v;
            };
            if (!with_beam) {
              for (int32_t q = q0; q < q1; ++q) apply(q);
              continue;
            }
            // The best of these applications, for the beam's bound, in two running maxima
            // so that neither waits on the other.
            double most0 = kNegInf, most1 = kNegInf;
            int32_t q = q0;
            for (; q + 2 <= q1; q += 2)
              most0 = std::max(most0, apply(q)), most1 = std::max(most1, apply(q + 1));
            if (q < q1) most0 = std::max(most0, apply(q));
            top = std::max(top, std::max(most0, most1));
          }
        }
        // The row now holds every parent's best; list the finite ones within the beam.
        for (int32_t x = 0; x < S; ++x) {
          if (pre[x] == kNegInf) continue;
          if (pre[x] < top - beam)
            pre[x] = kNegInf;
          else
            ch.active_pre.push_back(x);
        }
      }
      ch.pre_end[c] = static_cast<int>(ch.active_pre.size());
      // Unary layer: few rules, so the generic one (its mask tests pass: there is no mask).
      UnaryLayer<MaxSemiring>(g, rules, i, j, c, ch);
      best_post[c] = with_beam ? ch.KeepWithinBeam(c, beam) : ch.BestPost(c);
    }
  }
  double best = kNegInf;
  const int top = ch.Cell(0, n);
  for (int a = ch.post_begin[top]; a < ch.post_end[top]; ++a) {
    const int32_t X = ch.active_post[a];
    const int32_t rr = g.root_rule_of[X];
    if (rr >= 0) best = std::max(best, ch.post[static_cast<size_t>(top) * S + X] + rules.root[rr]);
  }
  return best;
}

void CoarseOutside(const Grammar& g, const CoarseRules& rules, double floor, Chart& ch) {
  const int n = ch.n;
  const int S = ch.S;
  const int32_t* right_of = rules.right_by_left.data();
  const int32_t* parent_of = rules.parent_by_left.data();
  const double* score_of = rules.score_by_left.data();
  const int top = ch.Cell(0, n);
  for (int a = ch.post_begin[top]; a < ch.post_end[top]; ++a) {
    const int32_t X = ch.active_post[a];
    const int32_t rr = g.root_rule_of[X];
    if (rr >= 0) ch.out_post[static_cast<size_t>(top) * S + X] = rules.root[rr];
  }
  std::vector<double> best_post(Chart::NumCells(n), kNegInf);  // cell -> its best post entry
  for (int c = 0; c < Chart::NumCells(n); ++c) best_post[c] = ch.BestPost(c);
  for (int len = n; len >= 1; --len) {
    for (int i = 0; i + len <= n; ++i) {
      const int j = i + len;
      const int c = ch.Cell(i, j);
      const size_t base = static_cast<size_t>(c) * S;
      const double* in_pre = &ch.pre[base];
      double* out_pre = &ch.out_pre[base];
      const double* out_post = &ch.out_post[base];
      for (int a = ch.post_begin[c]; a < ch.post_end[c]; ++a) {
        const int32_t P = ch.active_post[a];
        const double op = out_post[P];
        if (op == kNegInf) continue;
        if (in_pre[P] != kNegInf) out_pre[P] = std::max(out_pre[P], op);
        for (int32_t q = g.unary_by_parent_offsets[P]; q < g.unary_by_parent_offsets[P + 1]; ++q) {
          const int32_t u = g.unary_by_parent[q];
          const int32_t Y = g.unary[u].child;
          if (in_pre[Y] != kNegInf) out_pre[Y] = std::max(out_pre[Y], op + rules.unary[u]);
        }
      }
      if (len == 1) continue;
      // A cell with no entry on a tree >= floor passes nothing down that could keep a child.
      double cell_best = kNegInf, best_out = kNegInf;
      for (int a = ch.pre_begin[c]; a < ch.pre_end[c]; ++a) {
        const int32_t P = ch.active_pre[a];
        cell_best = std::max(cell_best, in_pre[P] + out_pre[P]);
        best_out = std::max(best_out, out_pre[P]);
      }
      if (cell_best < floor) continue;
      // An application's tree scores at most best_out + rule + left + right; the slack
      // covers the rounding of adding the bound in another order.
      const double need = floor - kBoundSlack - best_out;
      for (int k = i + 1; k < j; ++k) {
        const int cl = ch.Cell(i, k), cr = ch.Cell(k, j);
        if (best_post[cl] + best_post[cr] + rules.best_score < need) continue;
        const double need_left = need - best_post[cr];
        const size_t lb = static_cast<size_t>(cl) * S, rb = static_cast<size_t>(cr) * S;
        const double* right = &ch.post[rb];
        double* out_right = &ch.out_post[rb];
        for (int a = ch.post_begin[cl]; a < ch.post_end[cl]; ++a) {
          const int32_t L = ch.active_post[a];
          const double sl = ch.post[lb + L];
          if (sl + rules.best_score_of_left[L] < need_left) continue;
          double out_left = ch.out_post[lb + L];
          for (int32_t q = g.by_left_offsets[L]; q < g.by_left_offsets[L + 1]; ++q) {
            const double s = out_pre[parent_of[q]] + score_of[q];
            const double sr = right[right_of[q]];
            out_left = std::max(out_left, s + sr);
            // Only an entry with an inside score gets an outside one (Chart::Clear resets
            // just those): with a -inf right child, the candidate is -inf and the slot as it was.
            double& slot = out_right[right_of[q]];
            slot = std::max(slot, sr != kNegInf ? s + sl : kNegInf);
          }
          ch.out_post[lb + L] = out_left;
        }
      }
    }
  }
}

}  // namespace structrank
