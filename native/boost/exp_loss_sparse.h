// The sparse ExpLoss round (Collins & Koo 2005, figure 4): an update of a_k changes only the
// pairs in A+_k u A-_k, so only those pairs' weights and the W+/W- of their features are
// revisited, and the best feature comes from a tournament tree over the gains in which only
// the touched features move. A round costs C_t = sum over the revisited pairs of |B+| + |B-|
// instead of T (the model's Savings).
#pragma once
#include <cstdint>
#include <vector>

#include "boost/exp_loss.h"
#include "boost/tournament_tree.h"

namespace structrank {

class SparseExpLossRounds {
 public:
  // `loss` must outlive the rounds and change only through them.
  explicit SparseExpLossRounds(ExpLoss* loss);
  SparseExpLossRounds(const SparseExpLossRounds&) = delete;
  SparseExpLossRounds& operator=(const SparseExpLossRounds&) = delete;

  // One round; false (and no change) when no feature can lower the loss.
  bool Round();
  // Applies a round of an earlier run (k, delta) as Round did; call Replayed() after the last.
  void Replay(int32_t k, double delta);
  // The gains and the tree, recomputed from the replayed state.
  void Replayed();

 private:
  ExpLoss& loss_;
  std::vector<double> gain_;
  TournamentTree tree_;  // over gain_
  TouchedFeatures touched_;
};

}  // namespace structrank
