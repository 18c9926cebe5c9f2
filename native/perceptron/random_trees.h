// Test helper shared by the tree-kernel perceptron tests (tree DAG, summed kernel): random
// small trees in pre-order over few labels and words, so that subtrees repeat across trees.
#pragma once
#include <cstdint>
#include <random>

#include "kernels/tree_bank.h"

namespace structrank {

inline void RandomTree(std::mt19937_64& rng, PreorderTrees& t, int depth, int& nodes) {
  ++nodes;
  if (depth == 0 || rng() % 10 < 3) {
    t.label.push_back(3 + static_cast<int32_t>(rng() % 3));  // DT NN VB
    t.word.push_back(6 + static_cast<int32_t>(rng() % 4));   // a b c d
    t.arity.push_back(0);
    return;
  }
  const int k = 1 + static_cast<int>(rng() % 3);
  t.label.push_back(static_cast<int32_t>(rng() % 3));  // S NP VP
  t.word.push_back(-1);
  t.arity.push_back(k);
  for (int c = 0; c < k; ++c) RandomTree(rng, t, depth - 1, nodes);
}

inline PreorderTrees RandomTrees(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  PreorderTrees t;
  t.symbols = {"S", "NP", "VP", "DT", "NN", "VB", "a", "b", "c", "d"};
  for (int i = 0; i < n; ++i) {
    int nodes = 0;
    RandomTree(rng, t, 4, nodes);
    t.tree_size.push_back(nodes);
  }
  return t;
}

}  // namespace structrank
