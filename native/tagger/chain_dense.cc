// Forward-backward of a first-order chain without position-dependent pair scores (the
// CRF's training loop): dense L x L transitions, every row padded to W = PadLanes(L)
// doubles so the inner loops are whole vector registers. Sums run in the same order as
// the generic loop in chain.cc, so the results are the same to the last bit.
#include <algorithm>
#include <cmath>

#include "core/simd.h"
#include "tagger/chain.h"

namespace structrank {

namespace {

// cur[c] = e[c] * sum_p prev[p] T_from[p][c], p < L, c < W.
SR_VECTOR_CLONES void ForwardStep(int32_t L, int32_t W, const double* SR_RESTRICT prev,
                                  const double* SR_RESTRICT t_from, const double* SR_RESTRICT ei,
                                  double* SR_RESTRICT cur) {
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

// From position i to i - 1: u[s] = beta_i[s] e_i[s] / z_i; beta_{i-1}[p] += T[s][p] u[s];
// and pair[s][p] += alpha_{i-1}[p] u[s] (the edge expectations before their factor
// T[s][p], applied once per sentence).
SR_VECTOR_CLONES void BackwardStep(int32_t L, int32_t W, const double* SR_RESTRICT beta,
                                   const double* SR_RESTRICT ei, double inv, const double* SR_RESTRICT T,
                                   const double* SR_RESTRICT ap, double* SR_RESTRICT prev,
                                   double* SR_RESTRICT pair, double* SR_RESTRICT u) {
  for (int32_t s = 0; s < W; ++s) u[s] = beta[s] * ei[s] * inv;
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

}  // namespace

void PadTransitions(const std::vector<double>& T, int32_t L, std::vector<double>& pad, std::vector<double>& from_pad) {
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
  a_.assign(nW, 0.0);
  b_.assign(nW, 0.0);
  e_.assign(nW, 0.0);
  z_.resize(n);
  double shift = 0;
  // exp(emission - row max): keeps every factor <= 1 so nothing overflows.
  for (int32_t i = 0; i < n; ++i) {
    const double* em = emissions + static_cast<int64_t>(i) * L;
    double m = *std::max_element(em, em + L);
    shift += m;
    double* ei = &e_[static_cast<std::size_t>(i) * W];
    for (int32_t y = 0; y < L; ++y) ei[y] = std::exp(em[y] - m);
  }
  const double *start_exp = sc.start_exp.data(), *T = sc.edge_pad.data(), *T_from = sc.edge_from_pad.data();
  if (sc.edge_pad.empty()) {  // not precomputed by the caller (ChainScores with_exp)
    start_exp_.resize(sc.start.size());
    for (std::size_t q = 0; q < sc.start.size(); ++q) start_exp_[q] = std::exp(sc.start[q]);
    edge_exp_.resize(sc.edge.size());
    for (std::size_t e = 0; e < sc.edge.size(); ++e) edge_exp_[e] = std::exp(sc.edge[e]);
    PadTransitions(edge_exp_, L, edge_pad_, edge_from_pad_);
    start_exp = start_exp_.data();
    T = edge_pad_.data();
    T_from = edge_from_pad_.data();
  }
  for (int32_t s = 0; s < L; ++s) a_[s] = start_exp[s] * e_[s];  // start state s is label s
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
  for (int32_t s = 0; s < L; ++s) last[s] = 1.0;
  for (int32_t i = n - 1; i >= 1; --i) {
    const std::size_t at = static_cast<std::size_t>(i) * W;
    BackwardStep(L, W, &b_[at], &e_[at], 1.0 / z_[i], T, &a_[at - W], &b_[at - W],
                 pair_sum_.data(), u_.data());
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
