#include "boost/exp_loss.h"

#include <algorithm>
#include <cmath>

namespace structrank {

ExpLoss::ExpLoss(const PairProblem* problem, double a0, double eps) : pp_(*problem) {
  const int64_t P = pp_.pairs();
  model_.num_features = pp_.num_features;
  model_.a0 = a0;
  model_.eps = eps;
  model_.total_cost = pp_.total_cost();
  margin_.resize(P);
  w_.resize(P);
  W_.assign(pp_.num_features, FeatureState());
  for (int64_t p = 0; p < P; ++p) {
    margin_[p] = a0 * pp_.logprob_diff[p];
    w_[p] = pp_.weight[p] * std::exp(-margin_[p]);
    Z_ += w_[p];
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) W_[pp_.pair_features[q]].plus += w_[p];
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) W_[pp_.pair_features[q]].minus += w_[p];
  }
  model_.initial_loss = Z_;
  z_summed_ = Z_;
}

double ExpLoss::Gain(int32_t k) const {
  // W+/W- are sums of positive terms kept up to date by adding differences; rounding may
  // leave a tiny negative value where the exact one is 0.
  double a = std::sqrt(std::max(0.0, W_[k].plus));
  double b = std::sqrt(std::max(0.0, W_[k].minus));
  return (a - b) * (a - b);
}

double ExpLoss::Delta(int32_t k) const {
  return 0.5 * std::log((W_[k].plus + model_.eps * Z_) / (W_[k].minus + model_.eps * Z_));
}

void ExpLoss::Resum() {
  for (FeatureState& st : W_) st.plus = st.minus = 0;
  Z_ = 0;
  for (int64_t p = 0; p < pp_.pairs(); ++p) {
    const double w = w_[p];
    Z_ += w;
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) W_[pp_.pair_features[q]].plus += w;
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) W_[pp_.pair_features[q]].minus += w;
  }
  z_summed_ = Z_;
}

void ExpLoss::Update(int32_t k, double delta, TouchedFeatures* touched) {
  int64_t cost = 0;  // C_t: the pair features visited
  if (touched) {
    ++touched->round;
    touched->list.clear();
  }
  auto visit = [&](int32_t p, double d) {
    margin_[p] += d;
    double fresh = pp_.weight[p] * std::exp(-margin_[p]);
    double change = fresh - w_[p];
    w_[p] = fresh;
    Z_ += change;
    cost += pp_.PairCost(p);
    if (!touched) return;
    for (int64_t q = pp_.pair_ptr[p]; q < pp_.pair_split[p]; ++q) {
      FeatureState& st = W_[pp_.pair_features[q]];
      st.plus += change;
      if (st.stamp != touched->round)
        st.stamp = touched->round, touched->list.push_back(pp_.pair_features[q]);
    }
    for (int64_t q = pp_.pair_split[p]; q < pp_.pair_ptr[p + 1]; ++q) {
      FeatureState& st = W_[pp_.pair_features[q]];
      st.minus += change;
      if (st.stamp != touched->round)
        st.stamp = touched->round, touched->list.push_back(pp_.pair_features[q]);
    }
  };
  for (int64_t q = pp_.plus_ptr[k]; q < pp_.plus_ptr[k + 1]; ++q) visit(pp_.plus_pairs[q], delta);
  for (int64_t q = pp_.minus_ptr[k]; q < pp_.minus_ptr[k + 1]; ++q) visit(pp_.minus_pairs[q], -delta);
  // Z and W+/W- are kept by adding differences, so their rounding error stays at the scale of
  // the loss when they were last summed. Once the loss falls far below it (features that
  // separate the pairs they are on), that error would dominate: the sums would stall or turn
  // negative and the next delta become NaN. Sum them afresh then; every feature is touched.
  if (!(Z_ > kResumBelow * z_summed_)) {
    Resum();
    if (touched) {
      touched->list.resize(W_.size());
      for (int32_t f = 0; f < pp_.num_features; ++f) touched->list[f] = f, W_[f].stamp = touched->round;
    }
  }
  model_.features.push_back(k);
  model_.deltas.push_back(delta);
  model_.losses.push_back(Z_);
  model_.costs.push_back(cost);
}

}  // namespace structrank
