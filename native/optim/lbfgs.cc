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

bool GradientSmall(const LbfgsState& st, const LbfgsOptions& o) {
  return std::sqrt(Dot(st.g, st.g)) <= o.gradient_tolerance * std::max(1.0, std::sqrt(Dot(st.x, st.x)));
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
  st.converged = GradientSmall(st, o);
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
    consistent = consistent && st_.s[k].size() == st_.y[k].size() && (st_.s[k].empty() || st_.s[k].size() == st_.x.size());
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
      case Trial::kRetry: break;
      case Trial::kAccepted: return !st_.converged;
      case Trial::kFailed: return false;
    }
  }
}

bool Lbfgs::BeginIteration() {
  if (st_.converged) return false;
  const std::size_t n = st_.x.size();
  const int m = options_.memory;

  // Two-loop recursion: d = -H g.
  std::vector<double>& d = d_;
  d = st_.g;
  alpha_.assign(m, 0.0);
  for (int k = 0; k < st_.stored; ++k) {
    int j = (st_.next - 1 - k + m) % m;
    alpha_[j] = st_.rho[j] * Dot(st_.s[j], d);
    const std::vector<double>& yj = st_.y[j];
    for (std::size_t i = 0; i < n; ++i) d[i] -= alpha_[j] * yj[i];
  }
  if (st_.stored > 0) {
    int j = (st_.next - 1 + m) % m;
    double gamma = Dot(st_.s[j], st_.y[j]) / Dot(st_.y[j], st_.y[j]);
    for (double& v : d) v *= gamma;
  }
  for (int k = st_.stored - 1; k >= 0; --k) {
    int j = (st_.next - 1 - k + m) % m;
    double beta = st_.rho[j] * Dot(st_.y[j], d);
    const std::vector<double>& sj = st_.s[j];
    for (std::size_t i = 0; i < n; ++i) d[i] += sj[i] * (alpha_[j] - beta);
  }
  for (double& v : d) v = -v;

  slope_ = Dot(st_.g, d);
  if (slope_ >= 0) {  // not a descent direction: restart from steepest descent
    for (std::size_t i = 0; i < n; ++i) d[i] = -st_.g[i];
    slope_ = -Dot(st_.g, st_.g);
    st_.stored = 0;
  }
  // First iteration: a unit-length step; afterwards the quasi-Newton step of 1.
  step_ = st_.stored == 0 ? 1.0 / std::max(1.0, std::sqrt(-slope_)) : 1.0;
  trial_ = 0;
  x_new_.resize(n);
  g_new_.resize(n);
  for (std::size_t i = 0; i < n; ++i) x_new_[i] = st_.x[i] + step_ * d[i];
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

  // Store the correction pair when the curvature condition holds (keeps H positive definite).
  const int m = options_.memory;
  std::vector<double>& s = st_.s[st_.next];
  std::vector<double>& y = st_.y[st_.next];
  s.resize(st_.x.size());
  y.resize(st_.x.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    s[i] = x_new_[i] - st_.x[i];
    y[i] = g_new_[i] - st_.g[i];
  }
  double sy = Dot(s, y);
  if (sy > 1e-12 * std::sqrt(Dot(s, s) * Dot(y, y))) {
    st_.rho[st_.next] = 1.0 / sy;
    st_.next = (st_.next + 1) % m;
    st_.stored = std::min(st_.stored + 1, m);
  }
  st_.x.swap(x_new_);
  st_.g.swap(g_new_);
  st_.f = f_new;
  ++st_.iterations;
  st_.history.push_back(st_.f);
  CheckConverged();
  return Trial::kAccepted;
}

void Lbfgs::CheckConverged() {
  if (GradientSmall(st_, options_)) {
    st_.converged = true;
  } else if (options_.past > 0 && static_cast<int>(st_.history.size()) > options_.past) {
    double past = st_.history[st_.history.size() - 1 - options_.past];
    if ((past - st_.f) / std::max(std::fabs(st_.f), 1e-300) < options_.delta) st_.converged = true;
  }
}

double MinimizeLbfgs(const Objective& objective, std::vector<double>& x, int max_iterations,
                     LbfgsOptions options) {
  Lbfgs lbfgs(objective, x, options);
  while (lbfgs.iterations() < max_iterations && lbfgs.Iterate()) {
  }
  x = lbfgs.x();
  return lbfgs.value();
}

}  // namespace structrank
