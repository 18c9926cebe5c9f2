#include "kernels/tag_suffixes.h"

#include <algorithm>
#include <climits>

#include "core/errors.h"

namespace structrank {

void TagSuffixes::Build(const SequenceBank& bank, int64_t begin, int64_t end) {
  label.clear();
  word.clear();
  word_class.clear();
  next.clear();
  seq_ptr_.assign(1, 0);
  nodes_.clear();
  ids_.clear();
  for (int64_t i = begin; i < end; ++i) {
    const SequenceView x = bank.Sequence(static_cast<std::size_t>(i));
    const std::size_t base = nodes_.size();
    nodes_.resize(base + x.size);
    // From the end, so the rest of each suffix is already a node (hash-consing).
    int32_t rest = -1;
    for (int32_t t = x.size - 1; t >= 0; --t) {
      const auto key = std::make_pair(
          (static_cast<uint64_t>(static_cast<uint32_t>(x.label[t])) << 32) | static_cast<uint32_t>(x.word[t]),
          (static_cast<uint64_t>(static_cast<uint32_t>(x.word_class[t])) << 32) |
              static_cast<uint32_t>(rest));
      auto [it, added] = ids_.emplace(key, static_cast<int32_t>(label.size()));
      if (added) {
        label.push_back(x.label[t]);
        word.push_back(x.word[t]);
        word_class.push_back(x.word_class[t]);
        next.push_back(rest);
      }
      rest = it->second;
      nodes_[base + t] = rest;
    }
    seq_ptr_.push_back(static_cast<int32_t>(nodes_.size()));
  }
  // Label groups (counting sort would need the label range; the groups are few).
  sorted_nodes.resize(label.size());
  for (int32_t v = 0; v < size(); ++v) sorted_nodes[v] = v;
  std::stable_sort(sorted_nodes.begin(), sorted_nodes.end(),
                   [&](int32_t a, int32_t b) { return label[a] < label[b]; });
  group_label.clear();
  group_start.clear();
  for (int32_t k = 0; k < size(); ++k) {
    const int32_t l = label[sorted_nodes[k]];
    if (group_label.empty() || group_label.back() != l) {
      group_label.push_back(l);
      group_start.push_back(k);
    }
  }
  group_start.push_back(size());
}

TagSuffixScratch& TagSuffixScratch::ForThisThread() {
  thread_local TagSuffixScratch scratch;
  return scratch;
}

void TagKernelSuffixSums(const SequenceView& a, const TagSuffixes& q, const TagKernelWeights& w,
                         double weight, TagSuffixScratch& s, double* node_sum) {
  const int32_t n1 = a.size, nodes = q.size();
  if (n1 == 0 || nodes == 0) return;
  const std::size_t cells = static_cast<std::size_t>(n1) * nodes;
  if (cells > (std::size_t{1} << 27)) throw InputError("sequences too long for the kernel table");
  if (s.delta.size() < cells) s.delta.resize(std::max(cells, s.delta.size() * 2));
  if (s.match_begin.size() < static_cast<std::size_t>(n1)) {
    s.match_begin.resize(n1);
    s.match_end.resize(n1);
  }
  // Every position of `a` gets the range of the nodes with its label (empty when none).
  int32_t* __restrict match_begin = s.match_begin.data();
  int32_t* __restrict match_end = s.match_end.data();
  const auto q_groups = static_cast<int32_t>(q.group_label.size());
  bool any = false;
  for (int32_t i = 0, j = 0; i < a.num_groups; ++i) {
    const int32_t la = a.group_label[i];
    while (j < q_groups && q.group_label[j] < la) ++j;
    const bool match = j < q_groups && q.group_label[j] == la;
    const int32_t begin = match ? q.group_start[j] : 0, end = match ? q.group_start[j + 1] : 0;
    any |= match;
    for (int32_t k = a.group_start[i]; k < a.group_start[i + 1]; ++k) {
      match_begin[a.sorted_pos[k]] = begin;
      match_end[a.sorted_pos[k]] = end;
    }
  }
  if (!any) return;
  // As TagKernel, with "the next position of b" replaced by the next node of the suffix:
  // Delta(t1+1, next[v]) is read only when those labels are equal, i.e. only cells
  // written earlier in this call (rows are filled from the end of `a`).
  double* __restrict delta = s.delta.data();
  const int32_t* __restrict sorted = q.sorted_nodes.data();
  const int32_t* __restrict q_label = q.label.data();
  const int32_t* __restrict q_word = q.word.data();
  const int32_t* __restrict q_class = q.word_class.data();
  const int32_t* __restrict q_next = q.next.data();
  const double lambda = w.lambda, sim1 = w.sim1, sim2 = w.sim2;
  for (int32_t t1 = n1 - 1; t1 >= 0; --t1) {
    const int32_t wa = a.word[t1];
    const int32_t ca = sim2 != 0.0 && a.word_class[t1] >= 0 ? a.word_class[t1] : INT32_MIN;
    const int32_t next_label = t1 + 1 < n1 ? a.label[t1 + 1] : INT32_MIN;
    const double* next_row = delta + static_cast<std::size_t>(t1 + 1) * nodes;
    double* row = delta + static_cast<std::size_t>(t1) * nodes;
    for (int32_t k = match_begin[t1], end = match_end[t1]; k < end; ++k) {
      const int32_t v = sorted[k];
      const int32_t nv = q_next[v];
      const double after = nv >= 0 && q_label[nv] == next_label ? next_row[nv] : 0.0;
      const double d =
          (1.0 + (q_word[v] == wa ? sim1 : 0.0) + (q_class[v] == ca ? sim2 : 0.0)) * (1.0 + lambda * after);
      row[v] = d;
      node_sum[v] += weight * d;
    }
  }
}

}  // namespace structrank
