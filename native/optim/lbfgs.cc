#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>

namespace structrank {

namespace {
double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

Lbfgs::Lbfgs(Objective objective, std::vector<double> x0, LbfgsOptions options)
    : objective_(std::move(objective)), options_(options), x_(std::move(x0)), g_(x_.size()) {
  f_ = objective_(x_, g_);
  ++evaluations_;
  s_.assign(options_.memory, std::vector<double>(x_.size()));
  y_.assign(options_.memory, std::vector<double>(x_.size()));
  rho_.assign(options_.memory, 0);
  if (gradient_norm() <= options_.gradient_tolerance * std::max(1.0, std::sqrt(Dot(x_, x_)))) {
    converged_ = true;
  }
}

Lbfgs::Lbfgs(Objective objective, ByteReader& state, LbfgsOptions options)
    : objective_(std::move(objective)), options_(options) {
  if (state.Get<int32_t>() != options_.memory) throw ModelError("checkpoint: L-BFGS memory differs");
  x_ = state.GetVector<double>();
  g_ = state.GetVector<double>();
  f_ = state.Get<double>();
  s_.resize(options_.memory);
  y_.resize(options_.memory);
  for (auto& v : s_) v = state.GetVector<double>();
  for (auto& v : y_) v = state.GetVector<double>();
  rho_ = state.GetVector<double>();
  stored_ = state.Get<int32_t>();
  next_ = state.Get<int32_t>();
  iterations_ = state.Get<int32_t>();
  evaluations_ = state.Get<int32_t>();
  converged_ = state.Get<uint8_t>() != 0;
  history_ = state.GetVector<double>();
  bool consistent = g_.size() == x_.size() && rho_.size() == static_cast<std::size_t>(options_.memory) &&
                    stored_ >= 0 && stored_ <= options_.memory && next_ >= 0 && next_ < options_.memory;
  for (std::size_t k = 0; k < s_.size(); ++k) consistent = consistent && s_[k].size() == x_.size() && y_[k].size() == x_.size();
  if (!consistent) throw ModelError("checkpoint: inconsistent L-BFGS state");
}

void Lbfgs::SaveState(ByteWriter& out) const {
  out.Put<int32_t>(options_.memory);
  out.PutVector(x_);
  out.PutVector(g_);
  out.Put<double>(f_);
  for (const auto& v : s_) out.PutVector(v);
  for (const auto& v : y_) out.PutVector(v);
  out.PutVector(rho_);
  out.Put<int32_t>(stored_);
  out.Put<int32_t>(next_);
  out.Put<int32_t>(iterations_);
  out.Put<int32_t>(evaluations_);
  out.Put<uint8_t>(converged_ ? 1 : 0);
  out.PutVector(history_);
}

double Lbfgs::gradient_norm() const { return std::sqrt(Dot(g_, g_)); }

bool Lbfgs::Iterate() {
  if (converged_) return false;
  const std::size_t n = x_.size();
  const int m = options_.memory;

  // Two-loop recursion: d = -H g. The vectors are members, reused by every iteration.
  std::vector<double>& d = d_;
  d = g_;
  std::vector<double>& alpha = alpha_;
  alpha.assign(m, 0.0);
  for (int k = 0; k < stored_; ++k) {
    int j = (next_ - 1 - k + m) % m;
    alpha[j] = rho_[j] * Dot(s_[j], d);
    for (std::size_t i = 0; i < n; ++i) d[i] -= alpha[j] * y_[j][i];
  }
  if (stored_ > 0) {
    int j = (next_ - 1 + m) % m;
    double gamma = Dot(s_[j], y_[j]) / Dot(y_[j], y_[j]);
    for (double& v : d) v *= gamma;
  }
  for (int k = stored_ - 1; k >= 0; --k) {
    int j = (next_ - 1 - k + m) % m;
    double beta = rho_[j] * Dot(y_[j], d);
    for (std::size_t i = 0; i < n; ++i) d[i] += s_[j][i] * (alpha[j] - beta);
  }
  for (double& v : d) v = -v;

  double slope = Dot(g_, d);
  if (slope >= 0) {  // not a descent direction: restart from steepest descent
    for (std::size_t i = 0; i < n; ++i) d[i] = -g_[i];
    slope = -Dot(g_, g_);
    stored_ = 0;
  }
  // First iteration: a unit-length step; afterwards the quasi-Newton step of 1.
  double step = stored_ == 0 ? 1.0 / std::max(1.0, std::sqrt(-slope)) : 1.0;

  std::vector<double>& x_new = x_new_;
  std::vector<double>& g_new = g_new_;
  x_new.resize(n);
  g_new.resize(n);
  double f_new = 0;
  bool accepted = false;
  for (int trial = 0; trial < options_.max_linesearch; ++trial) {
    for (std::size_t i = 0; i < n; ++i) x_new[i] = x_[i] + step * d[i];
    f_new = objective_(x_new, g_new);
    ++evaluations_;
    if (std::isfinite(f_new) && f_new <= f_ + options_.armijo * step * slope) {
      accepted = true;
      break;
    }
    step *= 0.5;
  }
  if (!accepted) {
    converged_ = true;  // no decrease along d: we are at the limit of precision
    return false;
  }

  // Store the correction pair when the curvature condition holds (keeps H positive definite).
  std::vector<double>& s = s_[next_];
  std::vector<double>& y = y_[next_];
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = x_new[i] - x_[i];
    y[i] = g_new[i] - g_[i];
  }
  double sy = Dot(s, y);
  if (sy > 1e-12 * std::sqrt(Dot(s, s) * Dot(y, y))) {
    rho_[next_] = 1.0 / sy;
    next_ = (next_ + 1) % m;
    stored_ = std::min(stored_ + 1, m);
  }
  x_.swap(x_new);
  g_.swap(g_new);
  f_ = f_new;
  ++iterations_;
  history_.push_back(f_);

  if (gradient_norm() <= options_.gradient_tolerance * std::max(1.0, std::sqrt(Dot(x_, x_)))) {
    converged_ = true;
  } else if (options_.past > 0 && static_cast<int>(history_.size()) > options_.past) {
    double past = history_[history_.size() - 1 - options_.past];
    if ((past - f_) / std::max(std::fabs(f_), 1e-300) < options_.delta) converged_ = true;
  }
  return !converged_;
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
