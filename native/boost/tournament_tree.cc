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

}  // namespace structrank
