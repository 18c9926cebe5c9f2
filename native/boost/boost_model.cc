#include "boost/boost_model.h"

#include <algorithm>

#include "core/errors.h"

namespace structrank {

namespace {
constexpr uint32_t kBoostModelVersion = 1;
}

double BoostModel::Work(int64_t n) const {
  n = std::min(n, rounds());
  double sum = 0;
  for (int64_t t = 0; t < n; ++t) sum += static_cast<double>(costs[t]);
  return total_cost > 0 ? sum / static_cast<double>(total_cost) : 0.0;
}

double BoostModel::Savings(int64_t n) const {
  n = std::min(n, rounds());
  double w = Work(n);
  return w > 0 ? static_cast<double>(n) / w : 0.0;
}

std::vector<double> BoostModel::Weights(int64_t n) const {
  n = std::min(n, rounds());
  std::vector<double> w(num_features, 0.0);
  for (int64_t t = 0; t < n; ++t) w[features[t]] += deltas[t];
  return w;
}

void BoostModel::Serialize(ByteWriter& out) const {
  out.Put<uint32_t>(kBoostModelVersion);
  out.Put<int32_t>(num_features);
  out.Put<double>(a0);
  out.Put<double>(eps);
  out.Put<int32_t>(weighting);
  out.Put<int64_t>(total_cost);
  out.Put<double>(initial_loss);
  out.Put<int64_t>(chosen_rounds);
  out.PutVector(features);
  out.PutVector(deltas);
  out.PutVector(losses);
  out.PutVector(costs);
}

BoostModel BoostModel::Deserialize(ByteReader& in) {
  BoostModel m;
  if (in.Get<uint32_t>() != kBoostModelVersion) throw InputError("unsupported boosting model version");
  m.num_features = in.Get<int32_t>();
  m.a0 = in.Get<double>();
  m.eps = in.Get<double>();
  m.weighting = in.Get<int32_t>();
  m.total_cost = in.Get<int64_t>();
  m.initial_loss = in.Get<double>();
  m.chosen_rounds = in.Get<int64_t>();
  m.features = in.GetVector<int32_t>();
  m.deltas = in.GetVector<double>();
  m.losses = in.GetVector<double>();
  m.costs = in.GetVector<int64_t>();
  const std::size_t n = m.features.size();
  if (m.num_features < 0 || m.deltas.size() != n || m.losses.size() != n || m.costs.size() != n)
    throw InputError("boosting model payload is inconsistent");
  for (int32_t f : m.features)
    if (f < 0 || f >= m.num_features) throw InputError("boosting model has a feature id out of range");
  if (m.chosen_rounds > static_cast<int64_t>(n))
    throw InputError("boosting model: chosen rounds out of range");
  return m;
}

}  // namespace structrank
