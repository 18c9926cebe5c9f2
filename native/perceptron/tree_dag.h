// The compressed dual tree-kernel model of Collins & Duffy (2002b), section 5. A dual model scores
//   G(x) = sum_s c_s K(T_s, x) = sum_s c_s sum_{n in T_s} sum_{m in x} Delta(n, m),
// and Delta(n, m) depends only on the subtree rooted at n. Merging equal subtrees of all
// support trees (hash-consing bottom-up) gives a DAG whose node u stands for one distinct
// subtree with weight W_u = the sum of c_s over its occurrences, so
//   G(x) = sum_u W_u sum_{m in x} Delta(u, m),
// one generalized kernel evaluation between x and the DAG: Delta(u, m) is computed once
// per distinct subtree instead of once per occurrence. The DAG grows by adding trees
// with a weight, so training can keep one up to date as it makes mistakes.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "kernels/tree_bank.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_train.h"

namespace structrank {

class TreeDag {
 public:
  // Adds `weight` x every subtree of `t` (new distinct subtrees become nodes). With
  // `record`, the tree's DAG nodes are kept so KernelColumn can sum over them.
  void AddTree(const TreeView& t, double weight, bool record = false);

  // sum_u W_u sum_{m in x} Delta(u, m) with the subset-tree kernel's decay lambda.
  // `delta` and `offsets` are the caller's scratch. With `node_sums` (size() entries),
  // also node_sums[u] = sum_{m in x} Delta(u, m).
  double Score(const TreeView& x, double lambda, std::vector<double>& delta, std::vector<int32_t>& offsets,
               double* node_sums = nullptr) const;

  // K(T_r, x) for every recorded tree r: sum over T_r's nodes n of node_sums[dag(n)],
  // so all kernel values against x cost one DAG pass plus one add per recorded node.
  void KernelColumn(const TreeView& x, double lambda, double* out) const;
  int64_t recorded_trees() const { return static_cast<int64_t>(tree_ptr_.size()) - 1; }

  // The DAG of the trees of `bank` with coefficient coef[i] != 0.
  static TreeDag Build(const TreeBank& bank, const std::vector<double>& coef);

  int32_t size() const { return static_cast<int32_t>(prod_.size()); }
  int64_t forest_nodes() const { return forest_nodes_; }  // tree nodes added (with repeats)

 private:
  struct KeyHash {
    std::size_t operator()(const std::vector<int32_t>& k) const;
  };
  std::vector<int32_t> prod_;                 // per DAG node (children come before parents)
  std::vector<int32_t> child_ptr_{0};         // children of u: children_[child_ptr_[u] .. child_ptr_[u+1])
  std::vector<int32_t> children_;             // DAG node ids
  std::vector<double> weight_;                // W_u
  std::vector<int32_t> rank_;                 // u's position in groups_[prod_[u]]
  std::vector<std::vector<int32_t>> groups_;  // production id -> its DAG nodes
  std::unordered_map<std::vector<int32_t>, int32_t, KeyHash> ids_;  // (prod, child ids) -> u
  int64_t forest_nodes_ = 0;
  std::vector<int32_t> dag_of_, key_;  // AddTree scratch
  std::vector<int64_t> tree_ptr_{0};   // recorded tree r: tree_nodes_[tree_ptr_[r] .. tree_ptr_[r+1])
  std::vector<int32_t> tree_nodes_;
};

// All kernel values K(T_s, x) between the support trees and a query tree, via the DAG.
class TreeDagColumns : public SupportColumns {
 public:
  TreeDagColumns(std::shared_ptr<const TreeDag> dag, const TreeBank* query, double lambda)
      : dag_(std::move(dag)), query_(query), lambda_(lambda) {}
  void Column(int32_t candidate, double* out) const override {
    dag_->KernelColumn(query_->Tree(candidate), lambda_, out);
  }

 private:
  std::shared_ptr<const TreeDag> dag_;
  const TreeBank* query_;
  double lambda_;
};

class TreeDagScorer : public CandidateScorer {
 public:
  TreeDagScorer(std::shared_ptr<const TreeDag> dag, const TreeBank* query, double lambda)
      : dag_(std::move(dag)), query_(query), lambda_(lambda) {}
  double Score(int32_t candidate) const override;
  const TreeDag& dag() const { return *dag_; }

 private:
  std::shared_ptr<const TreeDag> dag_;
  const TreeBank* query_;
  double lambda_;
};

// Dual training against a growing DAG: each mistake adds +1 x T_plus and -1 x T_minus;
// each training candidate is scored in one DAG evaluation (plus beta L(x) sum c_s L(s)).
class TreeDagTrainer : public ChunkScorer {
 public:
  TreeDagTrainer(const TreeBank* bank, double lambda, double beta, const double* logprob)
      : bank_(bank), lambda_(lambda), beta_(beta), logprob_(logprob) {}
  double Score(int32_t candidate) override;
  void Update(int32_t plus, int32_t minus) override;

 private:
  const TreeBank* bank_;
  double lambda_, beta_;
  const double* logprob_;
  double logprob_sum_ = 0;
  TreeDag dag_;
};

}  // namespace structrank
