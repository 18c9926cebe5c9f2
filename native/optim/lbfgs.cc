#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace structrank {

namespace {
double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// The gradient test of convergence: |g| <= tol * max(1, |x|).
bool GradientSmall(double gradient_norm, double x_norm, const LbfgsOptions& o) {
  return gradient_norm <= o.gradient_tolerance * std::max(1.0, x_norm);
}

LbfgsState Fresh(std::vector<double> x0, double f0, std::vector<double> g0, const LbfgsOptions& o) {
  LbfgsState st;
  st.x = std::move(x0);
  st.g = std::move(g0);
  st.f = f0;
  st.evaluations = 1;
  // Pair slots are sized when first written: with millions of weights, `memory` zeroed
  // vectors cost their page faults up front, and a short run never uses them all.
  st.s.assign(o.memory, {});
  st.y.assign(o.memory, {});
  st.rho.assign(o.memory, 0);
  st.converged = GradientSmall(std::sqrt(Dot(st.g, st.g)), std::sqrt(Dot(st.x, st.x)), o);
  return st;
}
}  // namespace

Lbfgs::Lbfgs(Objective objective, std::vector<double> x0, LbfgsOptions options)
    : objective_(std::move(objective)), options_(options) {
  std::vector<double> g(x0.size());
  const double f = objective_(x0, g);
  st_ = Fresh(std::move(x0), f, std::move(g), options_);
}

Lbfgs::Lbfgs(std::vector<double> x0, double f0, std::vector<double> g0, LbfgsOptions options)
    : options_(options) {
  if (g0.size() != x0.size()) throw InputError("L-BFGS: the gradient and the point differ in size");
  st_ = Fresh(std::move(x0), f0, std::move(g0), options_);
}

Lbfgs::Lbfgs(Objective objective, LbfgsState state, LbfgsOptions options)
    : objective_(std::move(objective)), options_(options), st_(std::move(state)) {
  const int m = options_.memory;
  if (static_cast<int>(st_.s.size()) != m || static_cast<int>(st_.y.size()) != m) {
    throw ModelError("checkpoint: L-BFGS memory differs");
  }
  bool consistent = st_.g.size() == st_.x.size() && st_.rho.size() == static_cast<std::size_t>(m) &&
                    st_.stored >= 0 && st_.stored <= m && st_.next >= 0 && st_.next < m;
  for (int k = 0; k < m; ++k) {
    // A slot is unwritten (empty) or holds a pair; a saved zero slot counts as either.
    consistent = consistent && st_.s[k].size() == st_.y[k].size() &&
                 (st_.s[k].empty() || st_.s[k].size() == st_.x.size());
  }
  if (!consistent) throw ModelError("checkpoint: inconsistent L-BFGS state");
}

namespace {
LbfgsState ReadState(ByteReader& in, int memory) {
  if (in.Get<int32_t>() != memory) throw ModelError("checkpoint: L-BFGS memory differs");
  LbfgsState st;
  st.x = in.GetVector<double>();
  st.g = in.GetVector<double>();
  st.f = in.Get<double>();
  st.s.resize(memory);
  st.y.resize(memory);
  for (auto& v : st.s) v = in.GetVector<double>();
  for (auto& v : st.y) v = in.GetVector<double>();
  st.rho = in.GetVector<double>();
  st.stored = in.Get<int32_t>();
  st.next = in.Get<int32_t>();
  st.iterations = in.Get<int32_t>();
  st.evaluations = in.Get<int32_t>();
  st.converged = in.Get<uint8_t>() != 0;
  st.history = in.GetVector<double>();
  return st;
}
}  // namespace

Lbfgs::Lbfgs(Objective objective, ByteReader& state, LbfgsOptions options)
    : Lbfgs(std::move(objective), ReadState(state, options.memory), options) {}

void Lbfgs::SaveState(ByteWriter& out) const {
  out.Put<int32_t>(options_.memory);
  out.PutVector(st_.x);
  out.PutVector(st_.g);
  out.Put<double>(st_.f);
  for (const auto& v : st_.s) out.PutVector(v);
  for (const auto& v : st_.y) out.PutVector(v);
  out.PutVector(st_.rho);
  out.Put<int32_t>(st_.stored);
  out.Put<int32_t>(st_.next);
  out.Put<int32_t>(st_.iterations);
  out.Put<int32_t>(st_.evaluations);
  out.Put<uint8_t>(st_.converged ? 1 : 0);
  out.PutVector(st_.history);
}

double Lbfgs::gradient_norm() const { return std::sqrt(Dot(st_.g, st_.g)); }

bool Lbfgs::Iterate() {
  if (!objective_) throw std::logic_error("Lbfgs::Iterate needs an objective");
  if (!BeginIteration()) return false;
  for (;;) {
    switch (EndTrial(objective_(x_new_, g_new_))) {
      case Trial::kRetry:
        break;
      case Trial::kAccepted:
        return !st_.converged;
      case Trial::kFailed:
        return false;
    }
  }
}

bool Lbfgs::BeginIteration() {
  if (st_.converged) return false;
  const std::size_t n = st_.x.size();
  const int m = options_.memory;
  const int K = st_.stored;
  std::vector<double>& d = d_;
  d.resize(n);
  x_new_.resize(n);
  g_new_.resize(n);
  alpha_.assign(m, 0.0);
  const double* g = st_.g.data();
  const double* x = st_.x.data();
  double* dd = d.data();
  double* xn = x_new_.data();
  // Pair k of the recursion, newest (k = 0) to oldest.
  auto pair = [&](int k) { return (st_.next - 1 - k + m) % m; };

  // Two-loop recursion, d = -H g, in 2K + 1 passes over the vectors instead of about 5K:
  // each pass ends one step and takes the next step's dot product on the values it has
  // just written. Every sum runs over i in order, so the results are those of the plain
  // loops (and of the optimizer before this layout) bit for bit; the recursion is
  // memory-bound, and the passes are what it costs.
  slope_ = 0;
  if (K == 0) {
    for (std::size_t i = 0; i < n; ++i) {
      dd[i] = -g[i];
      slope_ += g[i] * dd[i];
    }
  } else {
    int j = pair(0);
    double acc = 0, sy = 0, yy = 0;
    {
      const double* sj = st_.s[j].data();
      const double* yj = st_.y[j].data();
      for (std::size_t i = 0; i < n; ++i) {
        dd[i] = g[i];
        acc += sj[i] * dd[i];
        sy += sj[i] * yj[i];
        yy += yj[i] * yj[i];
      }
    }
    const double gamma = sy / yy;  // the newest pair's scaling of the initial Hessian
    alpha_[j] = st_.rho[j] * acc;
    // First loop: d -= alpha_k y_k, then alpha_{k+1} = rho s_{k+1}.d; after the last step,
    // d *= gamma and the second loop's first dot, y_{K-1}.d.
    for (int k = 0; k < K; ++k) {
      j = pair(k);
      const double a = alpha_[j];
      const double* yj = st_.y[j].data();
      acc = 0;
      if (k + 1 < K) {
        const double* sn = st_.s[pair(k + 1)].data();
        for (std::size_t i = 0; i < n; ++i) {
          dd[i] -= a * yj[i];
          acc += sn[i] * dd[i];
        }
        alpha_[pair(k + 1)] = st_.rho[pair(k + 1)] * acc;
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          dd[i] -= a * yj[i];
          dd[i] *= gamma;
          acc += yj[i] * dd[i];
        }
      }
    }
    // Second loop, oldest to newest: d += s_k (alpha_k - beta_k), then beta of the next;
    // after the newest, d = -d, the slope g.d and the unit step's trial point.
    double beta = st_.rho[pair(K - 1)] * acc;
    for (int k = K - 1; k >= 0; --k) {
      j = pair(k);
      const double c = alpha_[j] - beta;
      const double* sj = st_.s[j].data();
      if (k > 0) {
        const double* yn = st_.y[pair(k - 1)].data();
        acc = 0;
        for (std::size_t i = 0; i < n; ++i) {
          dd[i] += sj[i] * c;
          acc += yn[i] * dd[i];
        }
        beta = st_.rho[pair(k - 1)] * acc;
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          dd[i] += sj[i] * c;
          dd[i] = -dd[i];
          slope_ += g[i] * dd[i];
          xn[i] = x[i] + 1.0 * dd[i];
        }
      }
    }
  }
  if (slope_ >= 0) {  // not a descent direction: restart from steepest descent
    for (std::size_t i = 0; i < n; ++i) dd[i] = -g[i];
    slope_ = -Dot(st_.g, st_.g);
    st_.stored = 0;
  }
  // First iteration: a unit-length step; afterwards the quasi-Newton step of 1 (whose trial
  // point the last pass above already wrote).
  trial_ = 0;
  if (st_.stored == 0) {
    step_ = 1.0 / std::max(1.0, std::sqrt(-slope_));
    for (std::size_t i = 0; i < n; ++i) xn[i] = x[i] + step_ * dd[i];
  } else {
    step_ = 1.0;
  }
  return true;
}

Lbfgs::Trial Lbfgs::EndTrial(double f_new) {
  ++st_.evaluations;
  if (!(std::isfinite(f_new) && f_new <= st_.f + options_.armijo * step_ * slope_)) {
    if (++trial_ >= options_.max_linesearch) {
      st_.converged = true;  // no decrease along d: we are at the limit of precision
      return Trial::kFailed;
    }
    step_ *= 0.5;
    const std::size_t n = st_.x.size();
    for (std::size_t i = 0; i < n; ++i) x_new_[i] = st_.x[i] + step_ * d_[i];
    return Trial::kRetry;
  }

  // The correction pair, its three products and the new point's two norms in one pass.
  const int m = options_.memory;
  std::vector<double>& s = st_.s[st_.next];
  std::vector<double>& y = st_.y[st_.next];
  const std::size_t n = st_.x.size();
  s.resize(n);
  y.resize(n);
  double sy = 0, ss = 0, yy = 0, gg = 0, xx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = x_new_[i] - st_.x[i];
    y[i] = g_new_[i] - st_.g[i];
    sy += s[i] * y[i];
    ss += s[i] * s[i];
    yy += y[i] * y[i];
    gg += g_new_[i] * g_new_[i];
    xx += x_new_[i] * x_new_[i];
  }
  // Store the pair when the curvature condition holds (keeps H positive definite).
  if (sy > 1e-12 * std::sqrt(ss * yy)) {
    st_.rho[st_.next] = 1.0 / sy;
    st_.next = (st_.next + 1) % m;
    st_.stored = std::min(st_.stored + 1, m);
  }
  st_.x.swap(x_new_);
  st_.g.swap(g_new_);
  st_.f = f_new;
  ++st_.iterations;
  st_.history.push_back(st_.f);
  CheckConverged(std::sqrt(gg), std::sqrt(xx));
  return Trial::kAccepted;
}

void Lbfgs::CheckConverged(double gradient_norm, double x_norm) {
  if (GradientSmall(gradient_norm, x_norm, options_)) {
    st_.converged = true;
  } else if (options_.past > 0 && static_cast<int>(st_.history.size()) > options_.past) {
    double past = st_.history[st_.history.size() - 1 - options_.past];
    if ((past - st_.f) / std::max(std::fabs(st_.f), 1e-300) < options_.delta) st_.converged = true;
  }
}

double MinimizeLbfgs(const Objective& objective, std::vector<double>& x, int max_iterations,
                     LbfgsOptions options) {
  Lbfgs lbfgs(objective, x, options);
  while (lbfgs.iterations() < max_iterations && lbfgs.Iterate()) {}
  x = lbfgs.x();
  return lbfgs.value();
}

}  // namespace structrank
