#include "kernels/tree_bank.h"

#include <algorithm>
#include <numeric>

#include "core/errors.h"

namespace structrank {

namespace {

// Production key markers: a preterminal's key is (label, kPreterminal, word), an inner
// node's key is (label, kInner, child labels...), so (D a) and (D (a ...)) never collide.
constexpr int32_t kPreterminal = -1;
constexpr int32_t kInner = -2;

}  // namespace

void TreeBank::Add(const PreorderTrees& in) {
  const std::size_t total = in.label.size();
  if (in.word.size() != total || in.arity.size() != total)
    throw InputError("tree encoding: node arrays differ in length");
  std::size_t sum = 0;
  for (int32_t s : in.tree_size) {
    if (s <= 0) throw InputError("empty tree: a tree needs at least one node");
    sum += static_cast<std::size_t>(s);
  }
  if (sum != total) throw InputError("tree encoding: tree sizes do not add up to the node count");
  if (static_cast<int64_t>(total) + total_nodes() > INT32_MAX) throw InputError("tree bank too large");

  const int32_t num_symbols = static_cast<int32_t>(in.symbols.size());
  KernelVocabulary::Batch vocabulary(*vocabulary_);
  std::vector<int32_t> global(in.symbols.size());
  for (std::size_t s = 0; s < in.symbols.size(); ++s) global[s] = vocabulary.Symbol(in.symbols[s]);
  auto symbol = [&](int32_t local) {
    if (local < 0 || local >= num_symbols) throw InputError("tree encoding: symbol id out of range");
    return global[local];
  };

  // Per tree, in flat reused arrays: children lists in pre-order numbering (kid_begin
  // from a prefix sum of the arities), then a post-order renumbering.
  std::vector<int32_t> kid_begin, kids, fill, order, post_of_pre, key;
  std::vector<std::pair<int32_t, int32_t>> stack;  // (pre-order node, children still expected)
  std::size_t offset = 0;
  for (int32_t n : in.tree_size) {
    const int32_t* label = in.label.data() + offset;
    const int32_t* word = in.word.data() + offset;
    const int32_t* arity = in.arity.data() + offset;
    kid_begin.assign(n + 1, 0);
    for (int32_t v = 0; v < n; ++v) {
      if (arity[v] < 0 || arity[v] >= n) throw InputError("tree encoding: bad arity");
      if ((arity[v] == 0) != (word[v] >= 0))
        throw InputError("tree encoding: a node needs a word or children, not both");
      kid_begin[v + 1] = kid_begin[v] + arity[v];
    }
    if (kid_begin[n] != n - 1) throw InputError("tree encoding: arity does not match the node count");
    kids.resize(n);
    fill.assign(kid_begin.begin(), kid_begin.end() - 1);
    stack.clear();
    for (int32_t v = 0; v < n; ++v) {
      if (v > 0) {
        if (stack.empty()) throw InputError("tree encoding: arity does not match the node count");
        kids[fill[stack.back().first]++] = v;
        if (--stack.back().second == 0) stack.pop_back();
      }
      if (arity[v] > 0) stack.emplace_back(v, arity[v]);
    }
    if (!stack.empty()) throw InputError("tree encoding: arity does not match the node count");

    // Post-order numbering by an explicit stack walk: (node, next child slot).
    order.clear();
    stack.assign(1, {0, kid_begin[0]});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < kid_begin[v + 1]) {
        const int32_t c = kids[next++];
        stack.emplace_back(c, kid_begin[c]);
      } else {
        order.push_back(v);
        stack.pop_back();
      }
    }
    post_of_pre.assign(n, 0);
    for (int32_t p = 0; p < n; ++p) post_of_pre[order[p]] = p;

    const int32_t base = static_cast<int32_t>(prod_.size());
    std::vector<int32_t>& height = fill;  // reused: height per pre-order node
    height.assign(n, 1);
    for (int32_t p = 0; p < n; ++p) {
      const int32_t v = order[p];
      for (int32_t k = kid_begin[v]; k < kid_begin[v + 1]; ++k)
        height[v] = std::max(height[v], height[kids[k]] + 1);
    }
    height_.push_back(height[0]);
    for (int32_t p = 0; p < n; ++p) {
      const int32_t v = order[p];
      key.clear();
      key.push_back(symbol(label[v]));
      if (word[v] >= 0) {
        key.push_back(kPreterminal);
        key.push_back(symbol(word[v]));
      } else {
        key.push_back(kInner);
        for (int32_t k = kid_begin[v]; k < kid_begin[v + 1]; ++k) key.push_back(symbol(label[kids[k]]));
      }
      const int32_t id = vocabulary.Production(key.data(), key.size());
      prod_.push_back(id * 2 + (word[v] >= 0 ? 1 : 0));
      for (int32_t k = kid_begin[v]; k < kid_begin[v + 1]; ++k) children_.push_back(post_of_pre[kids[k]]);
      child_ptr_.push_back(static_cast<int32_t>(children_.size()));
    }
    std::vector<int32_t> sorted(n);
    std::iota(sorted.begin(), sorted.end(), 0);
    const int32_t* prod = prod_.data() + base;
    std::sort(sorted.begin(), sorted.end(),
              [&](int32_t a, int32_t b) { return prod[a] != prod[b] ? prod[a] < prod[b] : a < b; });
    for (int32_t k = 0; k < n; ++k) {
      const int32_t v = sorted[k];
      sorted_nodes_.push_back(v);
      if (k == 0 || prod[sorted[k - 1]] != prod[v]) {
        group_prod_.push_back(prod[v]);
        group_start_.push_back(k);
      }
    }
    group_start_.push_back(n);
    tree_group_begin_.push_back(static_cast<int32_t>(group_prod_.size()));
    tree_begin_.push_back(base + n);
    offset += static_cast<std::size_t>(n);
  }
}

TreeView TreeBank::Tree(std::size_t i) const {
  TreeView t;
  const int32_t begin = tree_begin_[i];
  t.size = tree_begin_[i + 1] - begin;
  t.height = height_[i];
  t.prod = prod_.data() + begin;
  t.child_ptr = child_ptr_.data() + begin;
  t.children = children_.data();
  t.sorted_nodes = sorted_nodes_.data() + begin;
  const int32_t g = tree_group_begin_[i];
  t.num_groups = tree_group_begin_[i + 1] - g;
  t.group_prod = group_prod_.data() + g;
  t.group_start = group_start_.data() + g + i;  // each earlier tree added one end entry
  return t;
}

std::size_t TreeBank::StorageBytes() const {
  return sizeof(int32_t) *
         (tree_begin_.size() + height_.size() + prod_.size() + child_ptr_.size() + children_.size() +
          sorted_nodes_.size() + tree_group_begin_.size() + group_prod_.size() + group_start_.size());
}

}  // namespace structrank
