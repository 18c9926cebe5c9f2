#include "boost/tournament_tree.h"

namespace structrank {

TournamentTree::TournamentTree(const std::vector<double>* gains) : gains_(gains) {
  size_ = static_cast<int32_t>(gains->size());
  while (leaves_ < size_) leaves_ <<= 1;
  node_.assign(2 * leaves_, -1);
  Rebuild();
}

void TournamentTree::Rebuild() {
  for (int32_t f = 0; f < leaves_; ++f) node_[leaves_ + f] = f < size_ ? f : -1;
  for (int32_t n = leaves_ - 1; n >= 1; --n) node_[n] = Winner(node_[2 * n], node_[2 * n + 1]);
}

void TournamentTree::Update(int32_t leaf) {
  for (int32_t n = (leaves_ + leaf) >> 1; n >= 1; n >>= 1) {
    int32_t w = Winner(node_[2 * n], node_[2 * n + 1]);
    node_[n] = w;
  }
}

void TournamentTree::UpdateMany(const std::vector<int32_t>& leaves) {
  if (leaves.size() < 64) {
    for (int32_t f : leaves) Update(f);
    return;
  }
  if (dirty_.size() != node_.size()) dirty_.assign(node_.size(), 0);
  level_.clear();
  for (int32_t f : leaves) {
    int32_t n = (leaves_ + f) >> 1;
    if (!dirty_[n]) dirty_[n] = 1, level_.push_back(n);
  }
  while (!level_.empty()) {
    next_.clear();
    for (int32_t n : level_) {
      dirty_[n] = 0;
      node_[n] = Winner(node_[2 * n], node_[2 * n + 1]);
      int32_t parent = n >> 1;
      if (parent >= 1 && !dirty_[parent]) dirty_[parent] = 1, next_.push_back(parent);
    }
    level_.swap(next_);
  }
}

}  // namespace structrank
