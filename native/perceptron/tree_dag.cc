#include "perceptron/tree_dag.h"

#include <algorithm>

namespace structrank {

std::size_t TreeDag::KeyHash::operator()(const std::vector<int32_t>& k) const {
  std::size_t h = 0x9E3779B97F4A7C15ull;
  for (int32_t v : k) h = (h ^ static_cast<std::size_t>(static_cast<uint32_t>(v))) * 0x100000001B3ull;
  return h;
}

void TreeDag::AddTree(const TreeView& t, double weight, bool record) {
  forest_nodes_ += t.size;
  dag_of_.assign(t.size, -1);
  for (int32_t n = 0; n < t.size; ++n) {  // post-order: children first
    key_.clear();
    key_.push_back(t.prod[n]);
    for (int32_t k = t.child_ptr[n]; k < t.child_ptr[n + 1]; ++k) key_.push_back(dag_of_[t.children[k]]);
    auto [it, added] = ids_.emplace(key_, size());
    if (added) {
      const int32_t p = t.prod[n];
      prod_.push_back(p);
      children_.insert(children_.end(), key_.begin() + 1, key_.end());
      child_ptr_.push_back(static_cast<int32_t>(children_.size()));
      weight_.push_back(0.0);
      if (p >= static_cast<int32_t>(groups_.size())) groups_.resize(p + 1);
      rank_.push_back(static_cast<int32_t>(groups_[p].size()));
      groups_[p].push_back(it->second);
    }
    dag_of_[n] = it->second;
    weight_[it->second] += weight;
  }
  if (record) {
    tree_nodes_.insert(tree_nodes_.end(), dag_of_.begin(), dag_of_.end());
    tree_ptr_.push_back(static_cast<int64_t>(tree_nodes_.size()));
  }
}

void TreeDag::KernelColumn(const TreeView& x, double lambda, double* out) const {
  thread_local std::vector<double> delta, sums;
  thread_local std::vector<int32_t> offsets;
  sums.assign(size(), 0.0);
  Score(x, lambda, delta, offsets, sums.data());
  for (int64_t r = 0; r < recorded_trees(); ++r) {
    double k = 0;
    for (int64_t i = tree_ptr_[r]; i < tree_ptr_[r + 1]; ++i) k += sums[tree_nodes_[i]];
    out[r] = k;
  }
}

TreeDag TreeDag::Build(const TreeBank& bank, const std::vector<double>& coef) {
  TreeDag dag;
  for (std::size_t t = 0; t < bank.size() && t < coef.size(); ++t) {
    if (coef[t] != 0) dag.AddTree(bank.Tree(t), coef[t]);
  }
  return dag;
}

double TreeDag::Score(const TreeView& x, double lambda, std::vector<double>& delta,
                      std::vector<int32_t>& offsets, double* node_sums) const {
  // offsets[m]: where node m's Delta values against the DAG nodes of its production start
  // (-1 when the DAG has no node with m's production).
  const auto num_groups = static_cast<int32_t>(groups_.size());
  offsets.assign(x.size, -1);
  int32_t total = 0;
  for (int32_t m = 0; m < x.size; ++m) {
    const int32_t p = x.prod[m];
    if (p < num_groups && !groups_[p].empty()) {
      offsets[m] = total;
      total += static_cast<int32_t>(groups_[p].size());
    }
  }
  if (static_cast<int32_t>(delta.size()) < total) delta.resize(total);
  double sum = 0;
  for (int32_t m = 0; m < x.size; ++m) {  // post-order: children's rows are ready
    if (offsets[m] < 0) continue;
    const std::vector<int32_t>& nodes = groups_[x.prod[m]];
    const auto count = static_cast<int32_t>(nodes.size());
    double* out = delta.data() + offsets[m];
    if (x.IsPreterminal(m)) {
      // Equal preterminal productions: the same tag and word, one DAG node.
      for (int32_t r = 0; r < count; ++r) {
        out[r] = lambda;
        sum += weight_[nodes[r]] * lambda;
        if (node_sums) node_sums[nodes[r]] += lambda;
      }
      continue;
    }
    const int32_t first_child = x.child_ptr[m];
    const int32_t arity = x.child_ptr[m + 1] - first_child;
    for (int32_t r = 0; r < count; ++r) {
      const int32_t u = nodes[r];
      double d = lambda;
      const int32_t* uc = children_.data() + child_ptr_[u];
      for (int32_t j = 0; j < arity; ++j) {
        const int32_t mc = x.children[first_child + j];
        const int32_t c = uc[j];
        // Equal production => the children share labels; their own productions may differ.
        if (prod_[c] == x.prod[mc]) d *= 1.0 + delta[offsets[mc] + rank_[c]];
      }
      out[r] = d;
      sum += weight_[u] * d;
      if (node_sums) node_sums[u] += d;
    }
  }
  return sum;
}

double TreeDagScorer::Score(int32_t candidate) const {
  thread_local std::vector<double> delta;
  thread_local std::vector<int32_t> offsets;
  return dag_->Score(query_->Tree(candidate), lambda_, delta, offsets);
}

double TreeDagTrainer::Score(int32_t candidate) {
  thread_local std::vector<double> delta;
  thread_local std::vector<int32_t> offsets;
  const double g = dag_.Score(bank_->Tree(candidate), lambda_, delta, offsets);
  return beta_ == 0 ? g : g + beta_ * logprob_[candidate] * logprob_sum_;
}

void TreeDagTrainer::Update(int32_t plus, int32_t minus) {
  dag_.AddTree(bank_->Tree(plus), 1.0);
  dag_.AddTree(bank_->Tree(minus), -1.0);
  logprob_sum_ += logprob_[plus] - logprob_[minus];
}

}  // namespace structrank
