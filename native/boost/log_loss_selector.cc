#include "boost/log_loss_selector.h"

#include <cmath>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {
double Value(const std::vector<FeatureSentenceMass>& groups, double a, double l2, double d) {
  double f = l2 * ((a + d) * (a + d) - a * a);
  const double ed = std::exp(d);
  for (const auto& g : groups) f += std::log(std::max(0.0, 1.0 - g.q) + g.q * ed) - (g.on_best ? d : 0.0);
  return f;
}
}  // namespace

double BestLogLossUpdate(const std::vector<FeatureSentenceMass>& groups, double a, double l2,
                         double* change) {
  double d = 0, fd = 0;
  for (int iter = 0; iter < 100; ++iter) {
    const double ed = std::exp(d);
    double g = 2 * l2 * (a + d), h = 2 * l2;
    for (const auto& s : groups) {
      const double r = s.q * ed / (std::max(0.0, 1.0 - s.q) + s.q * ed);
      g += r - (s.on_best ? 1.0 : 0.0);
      h += r * (1 - r);
    }
    if (std::fabs(g) < 1e-13 * (1 + groups.size())) break;
    double step = h > 1e-300 ? -g / h : (g > 0 ? -1.0 : 1.0);
    step = std::max(-1.0, std::min(1.0, step));
    // Safeguard: halve until the (convex) objective decreases.
    double next = d + step, fn = Value(groups, a, l2, next);
    int halvings = 0;
    while (!(fn <= fd) && halvings < 60)
      step *= 0.5, next = d + step, fn = Value(groups, a, l2, next), ++halvings;
    if (!(fn <= fd)) break;
    const bool converged = std::fabs(step) <= 1e-12 * (1 + std::fabs(d));
    d = next, fd = fn;
    if (converged || std::fabs(d) > 30) break;
  }
  *change = fd;
  return d;
}

LogLossSelector::LogLossSelector(const RerankData* data, double l2, int threads)
    : data_(*data), l2_(l2), threads_(threads) {
  data_.Validate(true);
  const int64_t S = data_.sentences(), C = data_.candidates();
  const int32_t m = data_.num_features;
  model_.num_features = m;
  model_.a0 = 1.0;
  best_.resize(S);
  sentence_of_.resize(C);
  for (int64_t i = 0; i < S; ++i) {
    best_[i] = data_.sentence_ptr[i] == data_.sentence_ptr[i + 1] ? -1 : BestCandidate(data_, i);
    for (int64_t c = data_.sentence_ptr[i]; c < data_.sentence_ptr[i + 1]; ++c)
      sentence_of_[c] = static_cast<int32_t>(i);
  }
  inv_ptr_.assign(m + 1, 0);
  for (int32_t k : data_.features.cols) inv_ptr_[k + 1]++;
  for (int32_t k = 0; k < m; ++k) inv_ptr_[k + 1] += inv_ptr_[k];
  inv_cands_.resize(inv_ptr_[m]);
  std::vector<int64_t> fill(inv_ptr_.begin(), inv_ptr_.end() - 1);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t q = data_.features.row_ptr[c]; q < data_.features.row_ptr[c + 1]; ++q)
      inv_cands_[fill[data_.features.cols[q]]++] = static_cast<int32_t>(c);
  a_.assign(m, 0.0);
  F_.resize(C);
  for (int64_t c = 0; c < C; ++c) F_[c] = data_.logprob[c];
  p_.resize(C);
  model_.total_cost = data_.features.nnz();
  Refresh();
  model_.initial_loss = loss_;
}

void LogLossSelector::Refresh() {
  const int64_t S = data_.sentences();
  std::vector<double> sent_loss(S, 0.0);
  ParallelFor(S, threads_, 1024, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t i = b; i < e; ++i) {
      const int64_t c0 = data_.sentence_ptr[i], c1 = data_.sentence_ptr[i + 1];
      if (c0 == c1) continue;
      double mx = -INFINITY;
      for (int64_t c = c0; c < c1; ++c) mx = std::max(mx, F_[c]);
      double z = 0;
      for (int64_t c = c0; c < c1; ++c) z += std::exp(F_[c] - mx);
      const double logz = mx + std::log(z);
      for (int64_t c = c0; c < c1; ++c) p_[c] = std::exp(F_[c] - logz);
      sent_loss[i] = logz - F_[best_[i]];
    }
  });
  double loss = 0;
  for (double v : sent_loss) loss += v;
  for (double a : a_) loss += l2_ * a * a;
  loss_ = loss;
}

void LogLossSelector::Replay(const BoostModel& done, const std::atomic<bool>* cancel) {
  if (model_.rounds() != 0) throw InputError("LogLoss selection: replay needs a fresh selector");
  if (done.num_features != data_.num_features || done.deltas.size() != done.features.size()) {
    throw ModelError("LogLoss checkpoint does not fit this training problem");
  }
  for (std::size_t t = 0; t < done.features.size(); ++t) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    const int32_t k = done.features[t];
    if (k < 0 || k >= data_.num_features) throw ModelError("LogLoss checkpoint names a feature out of range");
    Apply(k, done.deltas[t]);
  }
}

void LogLossSelector::Apply(int32_t k, double d) {
  a_[k] += d;
  for (int64_t q = inv_ptr_[k]; q < inv_ptr_[k + 1]; ++q) F_[inv_cands_[q]] += d;
  Refresh();
  model_.features.push_back(k);
  model_.deltas.push_back(d);
  model_.losses.push_back(loss_);
  model_.costs.push_back(data_.features.nnz());  // every round reads every candidate's features
}

int64_t LogLossSelector::Run(int64_t n, const std::atomic<bool>* cancel) {
  const int32_t m = data_.num_features;
  std::vector<double> change(m), update(m);
  int64_t done = 0;
  for (; done < n; ++done) {
    ParallelFor(
        m, threads_, 64,
        [&](std::size_t b, std::size_t e, int) {
          std::vector<FeatureSentenceMass> groups;
          for (std::size_t k = b; k < e; ++k) {
            groups.clear();
            int32_t current = -1;
            for (int64_t q = inv_ptr_[k]; q < inv_ptr_[k + 1]; ++q) {
              const int32_t c = inv_cands_[q];
              const int32_t i = sentence_of_[c];
              if (i != current) groups.push_back({0.0, false}), current = i;
              groups.back().q += p_[c];
              if (c == best_[i]) groups.back().on_best = true;
            }
            double ch = 0;
            update[k] = groups.empty() ? 0.0 : BestLogLossUpdate(groups, a_[k], l2_, &ch);
            change[k] = ch;
          }
        },
        cancel);
    int32_t k = -1;
    for (int32_t f = 0; f < m; ++f)
      if (k < 0 || change[f] < change[k]) k = f;
    if (k < 0 || !(change[k] < -1e-12 * std::max(1.0, loss_))) break;
    Apply(k, update[k]);
  }
  return done;
}

}  // namespace structrank
