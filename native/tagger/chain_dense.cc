// Forward-backward of a first-order chain without position-dependent pair scores (the
// CRF's training loop): dense L x L transitions, every row padded to W = PadLanes(L)
// doubles so the inner loops are whole vector registers. Sums run in the same order as
// the generic loop in chain.cc, so the results are the same to the last bit.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/exp.h"
#include "core/simd.h"
#include "tagger/chain.h"

namespace structrank {

namespace {

#ifdef SR_HAS_LANES  // core/simd.h
// The steps for rows of W = R N doubles (W <= 32), N doubles per register: the row being
// summed stays in R registers across the loop over labels.
template <int N, int W>
SR_ALWAYS_INLINE void ForwardRows(int32_t L, const double* SR_RESTRICT prev, const double* SR_RESTRICT t_from,
                                  const double* SR_RESTRICT ei, double* SR_RESTRICT cur) {
  constexpr int R = W / N;
  Vec<N> acc[R];
  for (int r = 0; r < R; ++r) acc[r] = Vec<N>{};
  for (int32_t p = 0; p < L; ++p) {
    const double a = prev[p];
    for (int r = 0; r < R; ++r) {
      Vec<N> t;
      std::memcpy(&t, t_from + static_cast<std::size_t>(p) * W + N * r, sizeof t);
      acc[r] += a * t;
    }
  }
  for (int r = 0; r < R; ++r) {
    Vec<N> e;
    std::memcpy(&e, ei + N * r, sizeof e);
    acc[r] *= e;
    std::memcpy(cur + N * r, &acc[r], sizeof acc[r]);
  }
}

template <int N, int W>
SR_ALWAYS_INLINE void BackwardRows(int32_t L, const double* SR_RESTRICT beta, const double* SR_RESTRICT ei,
                                   double inv, const double* SR_RESTRICT T, const double* SR_RESTRICT ap,
                                   double* SR_RESTRICT prev, double* SR_RESTRICT pair,
                                   double* SR_RESTRICT u) {
  constexpr int R = W / N;
  Vec<N> to_prev[R], alpha[R];
  for (int r = 0; r < R; ++r) {
    Vec<N> b, e;
    std::memcpy(&b, beta + N * r, sizeof b);
    std::memcpy(&e, ei + N * r, sizeof e);
    b = b * e * inv;
    std::memcpy(u + N * r, &b, sizeof b);
    to_prev[r] = Vec<N>{};
    std::memcpy(&alpha[r], ap + N * r, sizeof alpha[r]);
  }
  for (int32_t s = 0; s < L; ++s) {
    const double t = u[s];
    for (int r = 0; r < R; ++r) {
      const std::size_t at = static_cast<std::size_t>(s) * W + N * r;
      Vec<N> ts, ps;
      std::memcpy(&ts, T + at, sizeof ts);
      std::memcpy(&ps, pair + at, sizeof ps);
      to_prev[r] += ts * t;
      ps += alpha[r] * t;
      std::memcpy(pair + at, &ps, sizeof ps);
    }
  }
  for (int r = 0; r < R; ++r) std::memcpy(prev + N * r, &to_prev[r], sizeof to_prev[r]);
}
#endif

// cur[c] = e[c] * sum_p prev[p] T_from[p][c], p < L, c < W.
template <int N>
SR_ALWAYS_INLINE void ForwardStepBody(int32_t L, int32_t W, const double* SR_RESTRICT prev,
                                      const double* SR_RESTRICT t_from, const double* SR_RESTRICT ei,
                                      double* SR_RESTRICT cur) {
#ifdef SR_HAS_LANES
  switch (W) {
    case 8:
      return ForwardRows<N, 8>(L, prev, t_from, ei, cur);
    case 16:
      return ForwardRows<N, 16>(L, prev, t_from, ei, cur);
    case 24:
      return ForwardRows<N, 24>(L, prev, t_from, ei, cur);
    case 32:
      return ForwardRows<N, 32>(L, prev, t_from, ei, cur);
    default:
      break;
  }
#endif
  for (int32_t c = 0; c < W; ++c) cur[c] = 0;
  for (int32_t p = 0; p < L; ++p) {
    const double a = prev[p];
    const double* t = t_from + static_cast<std::size_t>(p) * W;
    for (int32_t c = 0; c < W; c += 8) {
      for (int32_t k = 0; k < 8; ++k) cur[c + k] += a * t[c + k];
    }
  }
  for (int32_t c = 0; c < W; ++c) cur[c] *= ei[c];
}

// From position i to i - 1: u[s] = beta_i[s] e_i[s] / z_i; beta_{i-1}[p] = sum_s T[s][p] u[s];
// and pair[s][p] += alpha_{i-1}[p] u[s] (the edge expectations before their factor
// T[s][p], applied once per sentence).
template <int N>
SR_ALWAYS_INLINE void BackwardStepBody(int32_t L, int32_t W, const double* SR_RESTRICT beta,
                                       const double* SR_RESTRICT ei, double inv, const double* SR_RESTRICT T,
                                       const double* SR_RESTRICT ap, double* SR_RESTRICT prev,
                                       double* SR_RESTRICT pair, double* SR_RESTRICT u) {
#ifdef SR_HAS_LANES
  switch (W) {
    case 8:
      return BackwardRows<N, 8>(L, beta, ei, inv, T, ap, prev, pair, u);
    case 16:
      return BackwardRows<N, 16>(L, beta, ei, inv, T, ap, prev, pair, u);
    case 24:
      return BackwardRows<N, 24>(L, beta, ei, inv, T, ap, prev, pair, u);
    case 32:
      return BackwardRows<N, 32>(L, beta, ei, inv, T, ap, prev, pair, u);
    default:
      break;
  }
#endif
  for (int32_t s = 0; s < W; ++s) u[s] = beta[s] * ei[s] * inv;
  for (int32_t p = 0; p < W; ++p) prev[p] = 0;
  for (int32_t s = 0; s < L; ++s) {
    const double t = u[s];
    const double* Ts = T + static_cast<std::size_t>(s) * W;
    double* ps = pair + static_cast<std::size_t>(s) * W;
    for (int32_t p = 0; p < W; p += 8) {
      for (int32_t k = 0; k < 8; ++k) prev[p + k] += Ts[p + k] * t;
      for (int32_t k = 0; k < 8; ++k) ps[p + k] += ap[p + k] * t;
    }
  }
}

SR_SIMD_DISPATCH(ForwardStep,
                 (int32_t L, int32_t W, const double* SR_RESTRICT prev, const double* SR_RESTRICT t_from,
                  const double* SR_RESTRICT ei, double* SR_RESTRICT cur),
                 (L, W, prev, t_from, ei, cur))
SR_SIMD_DISPATCH(BackwardStep,
                 (int32_t L, int32_t W, const double* SR_RESTRICT beta, const double* SR_RESTRICT ei,
                  double inv, const double* SR_RESTRICT T, const double* SR_RESTRICT ap,
                  double* SR_RESTRICT prev, double* SR_RESTRICT pair, double* SR_RESTRICT u),
                 (L, W, beta, ei, inv, T, ap, prev, pair, u))

}  // namespace

void PadTransitions(const std::vector<double>& T, int32_t L, std::vector<double>& pad,
                    std::vector<double>& from_pad) {
  const int32_t W = PadLanes(L);
  pad.assign(static_cast<std::size_t>(W) * W, 0.0);
  from_pad.assign(static_cast<std::size_t>(W) * W, 0.0);
  for (int32_t c = 0; c < L; ++c) {
    for (int32_t p = 0; p < L; ++p) {
      const double t = T[static_cast<std::size_t>(c) * L + p];
      pad[static_cast<std::size_t>(c) * W + p] = t;
      from_pad[static_cast<std::size_t>(p) * W + c] = t;
    }
  }
}

double ChainDecoder::ForwardBackward1(int32_t n, const double* emissions, const ChainScores& sc,
                                      double* label_marginals, double* edge_expect, double* start_expect) {
  const int32_t L = lat_.L, W = PadLanes(L);
  const std::size_t nW = static_cast<std::size_t>(n) * W;
  // Every row is written whole before it is read (e_'s pads by ShiftedRows): no zero-filling.
  a_.resize(nW);
  b_.resize(nW);
  e_.resize(nW);
  z_.resize(n);
  const double shift = ShiftedRows(n, L, W, emissions, e_.data());
  ExpArray(e_.data(), nW);  // pads: e^-inf = 0
  const double *start_exp = sc.start_exp.data(), *T = sc.edge_pad.data(), *T_from = sc.edge_from_pad.data();
  if (sc.edge_pad.empty()) {  // not precomputed by the caller (ChainScores with_exp)
    start_exp_ = sc.start;
    ExpArray(start_exp_.data(), start_exp_.size());
    edge_exp_ = sc.edge;
    ExpArray(edge_exp_.data(), edge_exp_.size());
    PadTransitions(edge_exp_, L, edge_pad_, edge_from_pad_);
    start_exp = start_exp_.data();
    T = edge_pad_.data();
    T_from = edge_from_pad_.data();
  }
  for (int32_t s = 0; s < W; ++s) a_[s] = s < L ? start_exp[s] * e_[s] : 0.0;  // start state s is label s
  for (int32_t i = 0; i < n; ++i) {
    double* cur = &a_[static_cast<std::size_t>(i) * W];
    if (i > 0) ForwardStep(L, W, cur - W, T_from, &e_[static_cast<std::size_t>(i) * W], cur);
    double z = 0;
    for (int32_t s = 0; s < L; ++s) z += cur[s];
    z_[i] = z;
    double inv = 1.0 / z;
    for (int32_t s = 0; s < L; ++s) cur[s] *= inv;
  }
  double log_z = shift;
  for (int32_t i = 0; i < n; ++i) log_z += std::log(z_[i]);
  if (!label_marginals && !edge_expect && !start_expect) return log_z;

  u_.resize(W);
  pair_sum_.assign(static_cast<std::size_t>(L) * W, 0.0);  // filled even when not asked for
  double* last = &b_[static_cast<std::size_t>(n - 1) * W];
  for (int32_t s = 0; s < W; ++s) last[s] = s < L ? 1.0 : 0.0;
  for (int32_t i = n - 1; i >= 1; --i) {
    const std::size_t at = static_cast<std::size_t>(i) * W;
    BackwardStep(L, W, &b_[at], &e_[at], 1.0 / z_[i], T, &a_[at - W], &b_[at - W], pair_sum_.data(),
                 u_.data());
  }
  if (edge_expect) {
    for (int32_t s = 0; s < L; ++s) {
      for (int32_t p = 0; p < L; ++p) {
        const std::size_t k = static_cast<std::size_t>(s) * W + p;
        edge_expect[static_cast<std::size_t>(s) * L + p] += T[k] * pair_sum_[k];
      }
    }
  }
  if (label_marginals) {
    for (int32_t i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * W;
      double* m = label_marginals + static_cast<std::size_t>(i) * L;
      for (int32_t y = 0; y < L; ++y) m[y] = a_[at + y] * b_[at + y];
    }
  }
  if (start_expect) {
    for (int32_t s = 0; s < L; ++s) start_expect[s] += a_[s] * b_[s];
  }
  return log_z;
}

}  // namespace structrank
