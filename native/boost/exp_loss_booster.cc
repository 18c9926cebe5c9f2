#include "boost/exp_loss_booster.h"

#include <cmath>

#include "core/errors.h"

namespace structrank {

ExpLossBooster::ExpLossBooster(const PairProblem* problem, double a0, double eps, bool naive)
    : pp_(*problem), naive_(naive), tree_(&gain_) {
  const int64_t P = pp_.pairs();
  const int32_t m = pp_.num_features;
  model_.num_features = m;
  model_.a0 = a0;
  model_.eps = eps;
  model_.total_cost = pp_.total_cost();
  margin_.resize(P);
  w_.resize(P);
  W_.assign(m, FeatureState());
  Z_ = 0;
  for (int64_t p = 0; p < P; ++p) {
    margin_[p] = a0 * pp_.logprob_diff[p];
    w_[p] = pp_.weight[p] * std::exp(-margin_[p]);
    Z_ += w_[p];
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) W_[pp_.pair_features[q]].plus += w_[p];
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) W_[pp_.pair_features[q]].minus += w_[p];
  }
  model_.initial_loss = Z_;
  gain_.resize(m);
  for (int32_t k = 0; k < m; ++k) gain_[k] = Gain(k);
  tree_ = TournamentTree(&gain_);
}

double ExpLossBooster::Gain(int32_t k) const {
  // W+/W- are sums of positive terms kept up to date by adding differences; rounding may
  // leave a tiny negative value where the exact one is 0.
  double a = std::sqrt(std::max(0.0, W_[k].plus));
  double b = std::sqrt(std::max(0.0, W_[k].minus));
  return (a - b) * (a - b);
}

int64_t ExpLossBooster::Run(int64_t n, const std::atomic<bool>* cancel) {
  int64_t done = 0;
  for (; done < n; ++done) {
    if (cancel && (done & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    if (!(naive_ ? NaiveRound() : SparseRound())) break;
  }
  return done;
}

void ExpLossBooster::Replay(const BoostModel& done, const std::atomic<bool>* cancel) {
  if (model_.rounds() != 0) throw InputError("boosting: replay needs a fresh booster");
  if (done.num_features != model_.num_features || done.a0 != model_.a0 || done.eps != model_.eps ||
      done.deltas.size() != done.features.size()) {
    throw ModelError("boosting checkpoint does not fit this training problem (features, a0 or eps differ)");
  }
  for (std::size_t t = 0; t < done.features.size(); ++t) {
    if (cancel && (t & 63) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    const int32_t k = done.features[t];
    if (k < 0 || k >= model_.num_features)
      throw ModelError("boosting checkpoint names a feature out of range");
    // As SparseRound / NaiveRound: naive rounds first re-sum Z and W+/W- from the weights.
    if (naive_) {
      for (FeatureState& st : W_) st.plus = st.minus = 0;
      Z_ = 0;
      for (int64_t p = 0; p < pp_.pairs(); ++p) Z_ += w_[p];
    }
    ++stamp_;
    touched_.clear();
    const int64_t cost = Apply(k, done.deltas[t], !naive_);
    RecordRound(k, done.deltas[t], cost);
  }
  if (!naive_) {
    for (int32_t k = 0; k < model_.num_features; ++k) gain_[k] = Gain(k);
    tree_.Rebuild();
  }
}

void ExpLossBooster::RecordRound(int32_t k, double delta, int64_t cost) {
  model_.features.push_back(k);
  model_.deltas.push_back(delta);
  model_.losses.push_back(Z_);
  model_.costs.push_back(cost);
}

// Adds delta to a_k: margins of A+_k pairs grow, those of A-_k shrink. When `track`, the
// change of each pair's weight is pushed into W+/W- of the features of B+/B- (figure 4).
int64_t ExpLossBooster::Apply(int32_t k, double delta, bool track) {
  int64_t cost = 0;
  auto visit = [&](int32_t p, double d) {
    margin_[p] += d;
    double fresh = pp_.weight[p] * std::exp(-margin_[p]);
    double change = fresh - w_[p];
    w_[p] = fresh;
    Z_ += change;
    cost += pp_.PairCost(p);
    if (!track) return;
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) {
      FeatureState& st = W_[pp_.pair_features[q]];
      st.plus += change;
      if (st.stamp != stamp_) st.stamp = stamp_, touched_.push_back(pp_.pair_features[q]);
    }
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) {
      FeatureState& st = W_[pp_.pair_features[q]];
      st.minus += change;
      if (st.stamp != stamp_) st.stamp = stamp_, touched_.push_back(pp_.pair_features[q]);
    }
  };
  for (int64_t q = pp_.plus_ptr[k]; q < pp_.plus_ptr[k + 1]; ++q) visit(pp_.plus_pairs[q], delta);
  for (int64_t q = pp_.minus_ptr[k]; q < pp_.minus_ptr[k + 1]; ++q) visit(pp_.minus_pairs[q], -delta);
  return cost;
}

bool ExpLossBooster::SparseRound() {
  int32_t k = tree_.Best();
  if (k < 0 || !(gain_[k] > 0)) return false;
  const double delta = 0.5 * std::log((W_[k].plus + model_.eps * Z_) / (W_[k].minus + model_.eps * Z_));
  ++stamp_;
  touched_.clear();
  const int64_t cost = Apply(k, delta, true);
  for (int32_t f : touched_) gain_[f] = Gain(f);
  tree_.UpdateMany(touched_);
  RecordRound(k, delta, cost);
  return true;
}

bool ExpLossBooster::NaiveRound() {
  const int64_t P = pp_.pairs();
  const int32_t m = pp_.num_features;
  for (FeatureState& st : W_) st.plus = st.minus = 0;
  Z_ = 0;
  for (int64_t p = 0; p < P; ++p) {
    const double w = w_[p];
    Z_ += w;
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) W_[pp_.pair_features[q]].plus += w;
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) W_[pp_.pair_features[q]].minus += w;
  }
  int32_t k = -1;
  double best = 0;
  for (int32_t f = 0; f < m; ++f) {
    gain_[f] = Gain(f);
    if (k < 0 || gain_[f] > best) k = f, best = gain_[f];
  }
  if (k < 0 || !(best > 0)) return false;
  const double delta = 0.5 * std::log((W_[k].plus + model_.eps * Z_) / (W_[k].minus + model_.eps * Z_));
  const int64_t cost = Apply(k, delta, false);
  RecordRound(k, delta, cost);
  return true;
}

}  // namespace structrank
