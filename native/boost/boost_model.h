// A trained boosting reranker: a_0 and every round's (k*, delta*, loss, cost), so that any
// prefix of N rounds is a model of its own (Collins & Koo 2005: N is chosen on development data).
#pragma once
#include <cstdint>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

struct BoostModel {
  int32_t num_features = 0;
  double a0 = 0;
  double eps = 0;
  int32_t weighting = 0;          // PairWeighting
  int64_t total_cost = 0;         // T
  double initial_loss = 0;        // ExpLoss with only a_0
  std::vector<int32_t> features;  // k* of each round
  std::vector<double> deltas;     // delta* of each round
  std::vector<double> losses;     // ExpLoss after each round
  std::vector<int64_t> costs;     // C_t of each round
  int64_t chosen_rounds = -1;     // N picked on dev (-1: all)

  int64_t rounds() const { return static_cast<int64_t>(features.size()); }
  // Work(n) = sum_{t<=n} C_t / T and Savings(n) = n / Work(n) (Collins & Koo 2005).
  double Work(int64_t n) const;
  double Savings(int64_t n) const;
  // Dense a_1..a_m after the first n rounds.
  std::vector<double> Weights(int64_t n) const;

  void Serialize(ByteWriter& out) const;
  static BoostModel Deserialize(ByteReader& in);
};

}  // namespace structrank
