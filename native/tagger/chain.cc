#include "tagger/chain.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/exp.h"
#include "core/simd.h"

namespace structrank {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// One first-order Viterbi step: cur[s] = max over p of (prev[p] + from_to[p * width + s]),
// the first p reaching it in bp[s], then + em[s]. Walking p in the outer loop makes the inner
// loop run across labels s with no chain of dependent comparisons (it vectorizes); every
// label still sees p = 0, 1, ... in order with the same sums and strict comparisons, so the
// scores and the tie-breaking are those of the row-by-row loop.
// W > 0: at most W labels, from_to's rows padded to W entries. W is known when compiling, so
// the running maxima stay in registers and every row is whole vectors (with 23 labels the
// unpadded loop ran a scalar remainder of 7 labels for every p); the padding lanes are
// computed and dropped. W = 0: rows of L entries, the maxima kept in cur and bp.
template <int W>
SR_ALWAYS_INLINE void ViterbiStep1(int32_t L, const double* SR_RESTRICT prev,
                                   const double* SR_RESTRICT from_to, const double* SR_RESTRICT em,
                                   double* SR_RESTRICT cur, int32_t* SR_RESTRICT bp) {
  const int32_t width = W > 0 ? W : L;
  double kept_best[W > 0 ? W : 1];
  int32_t kept_arg[W > 0 ? W : 1];
  double* best = W > 0 ? kept_best : cur;
  int32_t* arg = W > 0 ? kept_arg : bp;
  for (int32_t s = 0; s < width; ++s) {
    best[s] = prev[0] + from_to[s];
    arg[s] = 0;
  }
  for (int32_t p = 1; p < L; ++p) {
    const double a = prev[p];
    const double* t = from_to + static_cast<std::size_t>(p) * width;
    for (int32_t s = 0; s < width; ++s) {
      const double v = a + t[s];
      const bool better = v > best[s];
      best[s] = better ? v : best[s];
      arg[s] = better ? p : arg[s];
    }
  }
  for (int32_t s = 0; s < L; ++s) {
    cur[s] = best[s] + em[s];
    bp[s] = arg[s];
  }
}

// Row width of from_to for L labels: padded to a multiple of 8 up to 32, else L.
int32_t FromToStride(int32_t L) { return L <= 32 ? (L + 7) / 8 * 8 : L; }

// The loops above vectorize to the register width of each variant (core/simd.h): N unused.
template <int N>
SR_ALWAYS_INLINE void ViterbiStep1AnyBody(int32_t L, const double* SR_RESTRICT prev,
                                          const double* SR_RESTRICT from_to, const double* SR_RESTRICT em,
                                          double* SR_RESTRICT cur, int32_t* SR_RESTRICT bp) {
  switch (FromToStride(L)) {
    case 8:
      return ViterbiStep1<8>(L, prev, from_to, em, cur, bp);
    case 16:
      return ViterbiStep1<16>(L, prev, from_to, em, cur, bp);
    case 24:
      return ViterbiStep1<24>(L, prev, from_to, em, cur, bp);
    case 32:
      return ViterbiStep1<32>(L, prev, from_to, em, cur, bp);
    default:
      return ViterbiStep1<0>(L, prev, from_to, em, cur, bp);
  }
}

SR_SIMD_DISPATCH(ViterbiStep1Any,
                 (int32_t L, const double* SR_RESTRICT prev, const double* SR_RESTRICT from_to,
                  const double* SR_RESTRICT em, double* SR_RESTRICT cur, int32_t* SR_RESTRICT bp),
                 (L, prev, from_to, em, cur, bp))

}  // namespace

ChainLattice ChainLattice::For(const TaggerModel& model) {
  ChainLattice lat;
  const int32_t L = model.num_labels();
  lat.L = L;
  lat.order = model.order;
  if (model.order == 1) {
    lat.S = L;
    for (int32_t s = 0; s < L; ++s) {
      lat.state_label.push_back(s);
      lat.start_state.push_back(s);
      lat.start_weight.push_back(model.Trans1(L, s));
    }
    lat.in_begin.push_back(0);
    for (int32_t s = 0; s < L; ++s) {
      for (int32_t p = 0; p < L; ++p) {
        lat.edge_from.push_back(p);
        lat.edge_w1.push_back(model.Trans1(p, s));
        lat.edge_w2.push_back(-1);
      }
      lat.in_begin.push_back(static_cast<int32_t>(lat.edge_from.size()));
    }
  } else {
    lat.S = (L + 1) * L;
    for (int32_t p = 0; p <= L; ++p) {
      for (int32_t c = 0; c < L; ++c) lat.state_label.push_back(c);
    }
    for (int32_t c = 0; c < L; ++c) {
      lat.start_state.push_back(L * L + c);
      lat.start_weight.push_back(model.Trans1(L, c));
    }
    lat.in_begin.push_back(0);
    for (int32_t b = 0; b <= L; ++b) {
      for (int32_t c = 0; c < L; ++c) {
        if (b < L) {  // state (b, c) is entered from (a, b) for every a, including start
          for (int32_t a = 0; a <= L; ++a) {
            lat.edge_from.push_back(a * L + b);
            lat.edge_w1.push_back(model.Trans1(b, c));
            lat.edge_w2.push_back(model.Trans2(a, b, c));
          }
        }
        lat.in_begin.push_back(static_cast<int32_t>(lat.edge_from.size()));
      }
    }
  }
  return lat;
}

void ChainLattice::States(const int32_t* labels, int32_t n, int32_t* states) const {
  for (int32_t i = 0; i < n; ++i) {
    states[i] = order == 1 ? labels[i] : (i == 0 ? L : labels[i - 1]) * L + labels[i];
  }
}

double ShiftedRows(int32_t n, int32_t L, int32_t W, const double* emissions, double* out) {
  double shift = 0;
  for (int32_t i = 0; i < n; ++i) {
    const double* em = emissions + static_cast<std::size_t>(i) * L;
    double* o = out + static_cast<std::size_t>(i) * W;
    const double m = *std::max_element(em, em + L);
    shift += m;
    for (int32_t y = 0; y < L; ++y) o[y] = em[y] - m;
    for (int32_t y = L; y < W; ++y) o[y] = -std::numeric_limits<double>::infinity();
  }
  return shift;
}

void ChainScores::Compute(const ChainLattice& lat, const double* w, double scale, bool with_exp) {
  start.resize(lat.start_state.size());
  edge.resize(lat.edge_from.size());
  for (std::size_t k = 0; k < start.size(); ++k) start[k] = scale * w[lat.start_weight[k]];
  for (std::size_t e = 0; e < edge.size(); ++e) {
    edge[e] = scale * (w[lat.edge_w1[e]] + (lat.edge_w2[e] >= 0 ? w[lat.edge_w2[e]] : 0.0));
  }
  start_exp.clear();
  edge_exp.clear();
  edge_pad.clear();
  edge_from_pad.clear();
  if (with_exp) {
    start_exp = start;
    ExpArray(start_exp.data(), start_exp.size());
    edge_exp = edge;
    ExpArray(edge_exp.data(), edge_exp.size());
    if (lat.order == 1) PadTransitions(edge_exp, lat.L, edge_pad, edge_from_pad);
  }
}

double ChainDecoder::PathScore(int32_t n, const double* emissions, const ChainScores& sc,
                               const int32_t* labels) {
  if (n == 0) return 0;
  states_.resize(n);
  lat_.States(labels, n, states_.data());
  double s = sc.start[lat_.StartIndex(states_[0])] + emissions[labels[0]];
  for (int32_t i = 1; i < n; ++i) {
    s += sc.edge[lat_.Edge(states_[i - 1], states_[i])] +
         emissions[static_cast<int64_t>(i) * lat_.L + labels[i]];
  }
  if (delta_) {
    const int32_t L = lat_.L, P = (L + 1) * L;
    for (int32_t i = 0; i < n; ++i) {
      s += delta_[static_cast<std::size_t>(i) * P + (i == 0 ? L : labels[i - 1]) * L + labels[i]];
    }
  }
  return s;
}

double ChainDecoder::Viterbi(int32_t n, const double* emissions, const ChainScores& sc, int32_t* labels) {
  if (n == 0) return 0;
  const int32_t S = lat_.S, L = lat_.L;
  a_.assign(static_cast<std::size_t>(n) * S, kNegInf);
  back_.resize(static_cast<std::size_t>(n) * S);
  const int32_t P = (L + 1) * L;
  for (std::size_t k = 0; k < lat_.start_state.size(); ++k) {
    int32_t s = lat_.start_state[k];
    a_[s] = sc.start[k] + emissions[lat_.state_label[s]];
    if (delta_) a_[s] += delta_[L * L + lat_.state_label[s]];
  }
  const int32_t* from = lat_.edge_from.data();
  const int32_t* lab = lat_.state_label.data();
  const double* es = sc.edge.data();
  for (int32_t i = 1; i < n; ++i) {
    const double* prev = &a_[static_cast<std::size_t>(i - 1) * S];
    double* cur = &a_[static_cast<std::size_t>(i) * S];
    int32_t* bp = &back_[static_cast<std::size_t>(i) * S];
    const double* em = emissions + static_cast<int64_t>(i) * L;
    if (delta_) {  // position-dependent pair scores: the generic loop
      const double* d = delta_ + static_cast<std::size_t>(i) * P;
      for (int32_t s = 0; s < S; ++s) {
        double best = kNegInf;
        int32_t arg = -1;
        const double* ds = d + lab[s];
        for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
          double v = prev[from[e]] + es[e] + ds[lab[from[e]] * L];
          if (v > best) {
            best = v;
            arg = from[e];
          }
        }
        cur[s] = best + em[lab[s]];
        bp[s] = arg;
      }
      continue;
    }
    if (lat_.order == 1) {  // dense: edges into s are from 0..L-1 in order, es[s * L + p]
      if (i == 1) {
        const int32_t W = FromToStride(L);
        from_to_.assign(static_cast<std::size_t>(L) * W, 0.0);
        for (int32_t s = 0; s < L; ++s)
          for (int32_t p = 0; p < L; ++p)
            from_to_[static_cast<std::size_t>(p) * W + s] = es[static_cast<std::size_t>(s) * L + p];
      }
      ViterbiStep1Any(L, prev, from_to_.data(), em, cur, bp);
      continue;
    }
    for (int32_t s = 0; s < S; ++s) {
      double best = kNegInf;
      int32_t arg = -1;
      for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
        double v = prev[from[e]] + es[e];
        if (v > best) {
          best = v;
          arg = from[e];
        }
      }
      cur[s] = best + em[lat_.state_label[s]];
      bp[s] = arg;
    }
  }
  const double* last = &a_[static_cast<std::size_t>(n - 1) * S];
  int32_t s = static_cast<int32_t>(std::max_element(last, last + S) - last);
  double best = last[s];
  for (int32_t i = n - 1; i >= 0; --i) {
    labels[i] = lat_.state_label[s];
    if (i > 0) s = back_[static_cast<std::size_t>(i) * S + s];
  }
  return best;
}

std::vector<Candidate> ChainDecoder::KBest(int32_t n, const double* emissions, const ChainScores& sc,
                                           int32_t k) {
  std::vector<Candidate> out;
  if (n == 0 || k <= 0) {
    if (n == 0) out.push_back(Candidate{});
    return out;
  }
  const int32_t S = lat_.S, L = lat_.L;
  struct Entry {
    double score;
    int32_t from, rank;
  };
  // entries[(i * S + s) * k + r], count[i * S + s]
  std::vector<Entry> entries(static_cast<std::size_t>(n) * S * k);
  std::vector<int32_t> count(static_cast<std::size_t>(n) * S, 0);
  auto at = [&](int32_t i, int32_t s) { return &entries[(static_cast<std::size_t>(i) * S + s) * k]; };
  const int32_t P = (L + 1) * L;
  for (std::size_t q = 0; q < lat_.start_state.size(); ++q) {
    int32_t s = lat_.start_state[q];
    double d = delta_ ? delta_[L * L + lat_.state_label[s]] : 0.0;
    at(0, s)[0] = Entry{sc.start[q] + d + emissions[lat_.state_label[s]], -1, -1};
    count[s] = 1;
  }
  auto better = [](const Entry& x, const Entry& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.from != y.from) return x.from < y.from;
    return x.rank < y.rank;
  };
  std::vector<Entry> cand;
  for (int32_t i = 1; i < n; ++i) {
    const double* em = emissions + static_cast<int64_t>(i) * L;
    for (int32_t s = 0; s < S; ++s) {
      cand.clear();
      for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
        int32_t p = lat_.edge_from[e];
        int32_t c = count[static_cast<std::size_t>(i - 1) * S + p];
        const Entry* pe = at(i - 1, p);
        double es = sc.edge[e];
        if (delta_)
          es += delta_[static_cast<std::size_t>(i) * P + lat_.state_label[p] * L + lat_.state_label[s]];
        for (int32_t r = 0; r < c; ++r) cand.push_back(Entry{pe[r].score + es, p, r});
      }
      int32_t keep = std::min<int32_t>(k, static_cast<int32_t>(cand.size()));
      std::partial_sort(cand.begin(), cand.begin() + keep, cand.end(), better);
      Entry* dst = at(i, s);
      double add = em[lat_.state_label[s]];
      for (int32_t r = 0; r < keep; ++r) dst[r] = Entry{cand[r].score + add, cand[r].from, cand[r].rank};
      count[static_cast<std::size_t>(i) * S + s] = keep;
    }
  }
  cand.clear();
  for (int32_t s = 0; s < S; ++s) {
    int32_t c = count[static_cast<std::size_t>(n - 1) * S + s];
    for (int32_t r = 0; r < c; ++r) cand.push_back(Entry{at(n - 1, s)[r].score, s, r});
  }
  int32_t keep = std::min<int32_t>(k, static_cast<int32_t>(cand.size()));
  std::partial_sort(cand.begin(), cand.begin() + keep, cand.end(), better);
  for (int32_t q = 0; q < keep; ++q) {
    Candidate c;
    c.score = cand[q].score;
    c.labels.resize(n);
    int32_t s = cand[q].from, r = cand[q].rank;
    for (int32_t i = n - 1; i >= 0; --i) {
      c.labels[i] = lat_.state_label[s];
      const Entry& en = at(i, s)[r];
      s = en.from;
      r = en.rank;
    }
    out.push_back(std::move(c));
  }
  return out;
}

double ChainDecoder::ForwardBackward(int32_t n, const double* emissions, const ChainScores& sc,
                                     double* label_marginals, double* edge_expect, double* start_expect) {
  if (n == 0) return 0;
  if (lat_.order == 1 && !delta_)
    return ForwardBackward1(n, emissions, sc, label_marginals, edge_expect, start_expect);
  const int32_t S = lat_.S, L = lat_.L;
  const std::size_t nS = static_cast<std::size_t>(n) * S;
  a_.assign(nS, 0.0);
  b_.assign(nS, 0.0);
  z_.resize(n);
  e_.resize(static_cast<std::size_t>(n) * L);
  double shift = ShiftedRows(n, L, L, emissions, e_.data());
  ExpArray(e_.data(), e_.size());
  // exp of the transitions: computed once per weight vector by the caller (ChainScores
  // with_exp), or here.
  const double *start_exp = sc.start_exp.data(), *T = sc.edge_exp.data();
  if (sc.edge_exp.empty()) {
    start_exp_ = sc.start;
    ExpArray(start_exp_.data(), start_exp_.size());
    edge_exp_ = sc.edge;
    ExpArray(edge_exp_.data(), edge_exp_.size());
    start_exp = start_exp_.data();
    T = edge_exp_.data();
  }
  const int32_t* from = lat_.edge_from.data();
  const int32_t* lab = lat_.state_label.data();

  // Pair scores from edge features, exponentiated after subtracting each position's
  // maximum (every path uses exactly one pair per position, so the shift is exact).
  const int32_t P = (L + 1) * L;
  const double* PE = nullptr;
  if (delta_) {
    pair_exp_.resize(static_cast<std::size_t>(n) * P);
    shift += ShiftedRows(n, P, P, delta_, pair_exp_.data());
    ExpArray(pair_exp_.data(), pair_exp_.size());
    PE = pair_exp_.data();
  }

  for (std::size_t q = 0; q < lat_.start_state.size(); ++q) {
    int32_t s = lat_.start_state[q];
    a_[s] = start_exp[q] * e_[lab[s]] * (PE ? PE[L * L + lab[s]] : 1.0);
  }
  for (int32_t i = 0; i < n; ++i) {
    double* cur = &a_[static_cast<std::size_t>(i) * S];
    if (i > 0) {
      const double* prev = cur - S;
      const double* ei = &e_[static_cast<std::size_t>(i) * L];
      if (PE) {
        const double* pe = PE + static_cast<std::size_t>(i) * P;
        for (int32_t s = 0; s < S; ++s) {
          double sum = 0;
          const double* ps = pe + lab[s];
          for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
            sum += prev[from[e]] * T[e] * ps[lab[from[e]] * L];
          }
          cur[s] = sum * ei[lab[s]];
        }
      } else
        for (int32_t s = 0; s < S; ++s) {
          double sum = 0;
          for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) sum += prev[from[e]] * T[e];
          cur[s] = sum * ei[lab[s]];
        }
    }
    double z = 0;
    for (int32_t s = 0; s < S; ++s) z += cur[s];
    z_[i] = z;
    double inv = 1.0 / z;
    for (int32_t s = 0; s < S; ++s) cur[s] *= inv;
  }
  double log_z = shift;
  for (int32_t i = 0; i < n; ++i) log_z += std::log(z_[i]);
  if (!label_marginals && !edge_expect && !start_expect) return log_z;

  if (PE) pair_marg_.assign(static_cast<std::size_t>(n) * P, 0.0);
  double* last = &b_[static_cast<std::size_t>(n - 1) * S];
  for (int32_t s = 0; s < S; ++s) last[s] = 1.0;
  for (int32_t i = n - 1; i >= 1; --i) {
    const double* cur = &b_[static_cast<std::size_t>(i) * S];
    double* prev = &b_[static_cast<std::size_t>(i - 1) * S];
    const double* ei = &e_[static_cast<std::size_t>(i) * L];
    const double* ap = &a_[static_cast<std::size_t>(i - 1) * S];
    double inv = 1.0 / z_[i];
    if (PE) {
      const double* pe = PE + static_cast<std::size_t>(i) * P;
      double* pm = &pair_marg_[static_cast<std::size_t>(i) * P];
      for (int32_t s = 0; s < S; ++s) {
        double t = cur[s] * ei[lab[s]] * inv;
        if (t == 0) continue;
        const double* ps = pe + lab[s];
        for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
          const int32_t pair = lab[from[e]] * L + lab[s];
          const double te = T[e] * ps[lab[from[e]] * L] * t;
          prev[from[e]] += te;
          const double m = ap[from[e]] * te;
          if (edge_expect) edge_expect[e] += m;
          pm[pair] += m;
        }
      }
      continue;
    }
    for (int32_t s = 0; s < S; ++s) {
      double t = cur[s] * ei[lab[s]] * inv;
      if (t == 0) continue;
      for (int32_t e = lat_.in_begin[s]; e < lat_.in_begin[s + 1]; ++e) {
        prev[from[e]] += T[e] * t;
        if (edge_expect) edge_expect[e] += ap[from[e]] * T[e] * t;
      }
    }
  }
  if (label_marginals) {
    std::fill(label_marginals, label_marginals + static_cast<std::size_t>(n) * L, 0.0);
    for (int32_t i = 0; i < n; ++i) {
      const double* ai = &a_[static_cast<std::size_t>(i) * S];
      const double* bi = &b_[static_cast<std::size_t>(i) * S];
      double* m = label_marginals + static_cast<std::size_t>(i) * L;
      for (int32_t s = 0; s < S; ++s) m[lab[s]] += ai[s] * bi[s];
    }
  }
  for (std::size_t q = 0; q < lat_.start_state.size(); ++q) {
    int32_t s = lat_.start_state[q];
    if (start_expect) start_expect[q] += a_[s] * b_[s];
    if (PE) pair_marg_[L * L + lab[s]] += a_[s] * b_[s];
  }
  return log_z;
}

}  // namespace structrank
