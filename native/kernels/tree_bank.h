// Many trees in flat arrays, converted once so that kernel calls do no string work.
// Each tree's nodes are numbered in post-order (children before parents); every node
// carries an interned production id (a preterminal's production includes its word),
// its children's indices, and each tree keeps its nodes sorted by production id, grouped
// by distinct production. A production id's low bit is 1 for preterminals, so kernels
// tell preterminals apart without reading the child arrays.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/vocabulary.h"

namespace structrank {

// Trees as the caller hands them over: nodes in pre-order with their arity.
struct PreorderTrees {
  std::vector<std::string> symbols;  // local symbol table (labels and words)
  std::vector<int32_t> label;        // per node: index into symbols
  std::vector<int32_t> word;         // per node: index into symbols, or -1 if not a preterminal
  std::vector<int32_t> arity;        // per node: number of child nodes (0 for a preterminal)
  std::vector<int32_t> tree_size;    // nodes per tree
};

// A read-only view of one tree inside a bank.
struct TreeView {
  int32_t size = 0;                       // number of nodes
  int32_t height = 0;                     // production levels: a preterminal has height 1
  const int32_t* prod = nullptr;          // production id per node (post-order)
  const int32_t* child_ptr = nullptr;     // children of node n: children[child_ptr[n] .. child_ptr[n+1])
  const int32_t* children = nullptr;      // local node indices
  const int32_t* sorted_nodes = nullptr;  // nodes sorted by (production, index)
  // Distinct productions in increasing order; group g holds
  // sorted_nodes[group_start[g] .. group_start[g+1]).
  int32_t num_groups = 0;
  const int32_t* group_prod = nullptr;
  const int32_t* group_start = nullptr;  // num_groups + 1 entries
  static bool IsPreterminalProduction(int32_t p) { return (p & 1) != 0; }
  bool IsPreterminal(int32_t n) const { return IsPreterminalProduction(prod[n]); }
  int32_t NumChildren(int32_t n) const { return child_ptr[n + 1] - child_ptr[n]; }
};

class TreeBank {
 public:
  explicit TreeBank(std::shared_ptr<KernelVocabulary> vocabulary = KernelVocabulary::Shared())
      : vocabulary_(std::move(vocabulary)) {}

  // Appends trees; throws InputError for an empty tree or an inconsistent encoding.
  void Add(const PreorderTrees& trees);

  std::size_t size() const { return tree_begin_.size() - 1; }
  TreeView Tree(std::size_t i) const;
  int64_t total_nodes() const { return tree_begin_.back(); }
  // Bytes of the flat arrays that hold the trees.
  std::size_t StorageBytes() const;
  const KernelVocabulary* vocabulary() const { return vocabulary_.get(); }

 private:
  std::shared_ptr<KernelVocabulary> vocabulary_;
  std::vector<int32_t> tree_begin_{0};  // first node of each tree, size()+1 entries
  std::vector<int32_t> height_;         // per tree
  std::vector<int32_t> prod_;
  std::vector<int32_t> child_ptr_{0};  // global offsets into children_, total_nodes()+1 entries
  std::vector<int32_t> children_;
  std::vector<int32_t> sorted_nodes_;
  std::vector<int32_t> tree_group_begin_{0};  // first group of each tree
  std::vector<int32_t> group_prod_;
  std::vector<int32_t> group_start_;  // per group, then one end entry per tree
};

}  // namespace structrank
