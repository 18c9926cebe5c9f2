#include "boost/lbfgs.h"

#include <cmath>
#include <deque>

#include "core/errors.h"

namespace structrank {

namespace {
double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

double MinimizeLbfgs(const Objective& f, std::vector<double>& x, const LbfgsOptions& options,
                     const IterationCallback& callback, const std::atomic<bool>* cancel) {
  const std::size_t n = x.size();
  std::vector<double> g(n), d(n), x_new(n), g_new(n);
  double fx = f(x, g);
  std::deque<std::vector<double>> S, Y;
  std::deque<double> rho;
  for (int iter = 1; iter <= options.max_iterations; ++iter) {
    if (cancel && cancel->load()) throw Cancelled();
    double gnorm = std::sqrt(Dot(g, g));
    double xnorm = std::sqrt(Dot(x, x));
    if (gnorm <= options.gradient_tolerance * std::max(1.0, xnorm)) break;
    // Two-loop recursion: d = -H g.
    for (std::size_t i = 0; i < n; ++i) d[i] = -g[i];
    std::vector<double> alpha(S.size());
    for (int j = static_cast<int>(S.size()) - 1; j >= 0; --j) {
      alpha[j] = rho[j] * Dot(S[j], d);
      for (std::size_t i = 0; i < n; ++i) d[i] -= alpha[j] * Y[j][i];
    }
    double gamma = S.empty() ? 1.0 / std::max(gnorm, 1e-300) : Dot(S.back(), Y.back()) / Dot(Y.back(), Y.back());
    for (std::size_t i = 0; i < n; ++i) d[i] *= gamma;
    for (std::size_t j = 0; j < S.size(); ++j) {
      double beta = rho[j] * Dot(Y[j], d);
      for (std::size_t i = 0; i < n; ++i) d[i] += S[j][i] * (alpha[j] - beta);
    }
    double slope = Dot(g, d);
    if (slope >= 0) {  // not a descent direction: restart from steepest descent
      S.clear(), Y.clear(), rho.clear();
      for (std::size_t i = 0; i < n; ++i) d[i] = -g[i] / std::max(gnorm, 1e-300);
      slope = Dot(g, d);
    }
    double step = 1.0, f_new = 0;
    bool accepted = false;
    for (int tries = 0; tries < 40; ++tries) {
      for (std::size_t i = 0; i < n; ++i) x_new[i] = x[i] + step * d[i];
      f_new = f(x_new, g_new);
      if (std::isfinite(f_new) && f_new <= fx + 1e-4 * step * slope) {
        accepted = true;
        break;
      }
      step *= 0.5;
    }
    if (!accepted) break;
    std::vector<double> s(n), y(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = x_new[i] - x[i], y[i] = g_new[i] - g[i];
    double sy = Dot(s, y);
    if (sy > 1e-12) {
      if (static_cast<int>(S.size()) == options.history) S.pop_front(), Y.pop_front(), rho.pop_front();
      S.push_back(std::move(s));
      Y.push_back(std::move(y));
      rho.push_back(1.0 / sy);
    }
    const double decrease = fx - f_new;
    x.swap(x_new);
    g.swap(g_new);
    fx = f_new;
    if (callback && !callback(iter, fx)) break;
    if (decrease <= options.relative_decrease * std::max(1.0, std::fabs(fx))) break;
  }
  return fx;
}

}  // namespace structrank
