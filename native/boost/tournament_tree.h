// A tournament (winner) tree over per-feature gains: the root holds the feature with the
// largest gain, ties going to the lower feature id. Changing one feature's gain replays
// only its path to the root (O(log m)), so a boosting round that touches a few features
// never scans all m of them. Chosen over a binary heap because gains move both up and
// down, which a heap handles only with position maps or lazy deletion, and the tree's
// fixed-shape flat array gives the same deterministic tie-breaking as a linear scan.
#pragma once
#include <cstdint>
#include <vector>

namespace structrank {

class TournamentTree {
 public:
  explicit TournamentTree(const std::vector<double>* gains);
  // Rebuilds every internal node from the gains (O(m)).
  void Rebuild();
  // Replays the path of `leaf` after its gain changed.
  void Update(int32_t leaf);
  // Replays the paths of many changed leaves, each internal node once, level by level
  // (paths of thousands of leaves share most nodes near the root).
  void UpdateMany(const std::vector<int32_t>& leaves);
  // The feature with the largest gain (lowest id among ties); -1 when there are none.
  int32_t Best() const { return size_ == 0 ? -1 : node_[1]; }

 private:
  int32_t Winner(int32_t a, int32_t b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    const double ga = (*gains_)[a], gb = (*gains_)[b];
    if (ga > gb || (ga == gb && a < b)) return a;
    return b;
  }
  const std::vector<double>* gains_;
  int32_t size_ = 0;           // number of features
  int32_t leaves_ = 1;         // power of two >= size_
  std::vector<int32_t> node_;  // node_[leaves_ + f] = f (or -1 for padding)
  std::vector<char> dirty_;    // scratch for UpdateMany
  std::vector<int32_t> level_, next_;
};

}  // namespace structrank
