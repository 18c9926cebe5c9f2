#include "kernels/tree_kernel.h"

#include <algorithm>
#include <string>

#include "core/bits.h"
#include "core/errors.h"

namespace structrank {

void TreeKernelScratch::Reserve(int32_t n1, int32_t n2, int32_t depth) {
  if (match_begin.size() < static_cast<std::size_t>(n1)) {
    match_begin.resize(n1);
    match_end.resize(n1);
  }
  const std::size_t pairs = 2 * (static_cast<std::size_t>(std::min(n1, n2)) + 1);
  if (group_pairs.size() < pairs) group_pairs.resize(pairs);
  const std::size_t words = (static_cast<std::size_t>(n1) + 63) / 64;
  if (matched.size() < words) matched.resize(words);
  std::fill(matched.begin(), matched.begin() + words, 0);
  std::size_t cells = static_cast<std::size_t>(n1) * n2 * std::max(depth, 1);
  if (cells > kMaxTableCells)
    throw InputError("trees too large for the kernel table (" + std::to_string(n1) + " x " +
                     std::to_string(n2) + " nodes)");
  if (delta.size() < cells) delta.resize(std::max(cells, delta.size() * 2));
}

TreeKernelScratch& TreeKernelScratch::ForThisThread() {
  thread_local TreeKernelScratch scratch;
  return scratch;
}

namespace {

// Merges the two trees' distinct-production lists. Equal preterminal productions are only
// counted (their Delta is lambda whatever the depth); for every inner node of `a` with a
// match, records the range of `b`'s sorted list holding its production and marks it.
// Returns the number of equal preterminal pairs.
int64_t MatchProductions(const TreeView& a, const TreeView& b, TreeKernelScratch& s) {
  // Pass 1: a branch-free merge that writes every step's group pair and keeps it only when
  // the productions are equal (the write index advances on equality).
  const int32_t* __restrict pa = a.group_prod;
  const int32_t* __restrict pb = b.group_prod;
  const int32_t na = a.num_groups, nb = b.num_groups;
  int32_t* __restrict gi = s.group_pairs.data();
  int32_t* __restrict gj = gi + (std::min(na, nb) + 1);
  int32_t i = 0, j = 0, m = 0;
  while (i < na && j < nb) {
    const int32_t x = pa[i], y = pb[j];
    gi[m] = i;
    gj[m] = j;
    m += x == y;
    i += x <= y;
    j += y <= x;
  }
  // Pass 2: equal preterminal groups only count; inner groups mark their nodes.
  int64_t preterminal_pairs = 0;
  int32_t* __restrict match_begin = s.match_begin.data();
  int32_t* __restrict match_end = s.match_end.data();
  uint64_t* __restrict matched = s.matched.data();
  for (int32_t k = 0; k < m; ++k) {
    const int32_t ga = gi[k], gb = gj[k];
    const int32_t a_begin = a.group_start[ga], a_end = a.group_start[ga + 1];
    const int32_t b_begin = b.group_start[gb], b_end = b.group_start[gb + 1];
    if (TreeView::IsPreterminalProduction(pa[ga])) {
      preterminal_pairs += static_cast<int64_t>(a_end - a_begin) * (b_end - b_begin);
      continue;
    }
    for (int32_t q = a_begin; q < a_end; ++q) {
      const int32_t n1 = a.sorted_nodes[q];
      match_begin[n1] = b_begin;
      match_end[n1] = b_end;
      matched[n1 >> 6] |= uint64_t{1} << (n1 & 63);
    }
  }
  return preterminal_pairs;
}

// Calls body(n1) for every marked node in increasing (post-order) index: children first.
template <typename Body>
inline void ForEachMatched(const TreeView& a, const TreeKernelScratch& s, Body body) {
  const int32_t words = (a.size + 63) / 64;
  for (int32_t w = 0; w < words; ++w) {
    for (uint64_t bits = s.matched[w]; bits != 0; bits &= bits - 1) body(w * 64 + CountTrailingZeros(bits));
  }
}

double UnlimitedDepth(const TreeView& a, const TreeView& b, double lambda, TreeKernelScratch& s) {
  double* delta = s.delta.data();
  const std::size_t width = static_cast<std::size_t>(b.size);
  double total = 0;
  ForEachMatched(a, s, [&](int32_t n1) {
    double* row = delta + n1 * width;
    const int32_t arity = a.NumChildren(n1);
    const int32_t* kids1 = a.children + a.child_ptr[n1];
    for (int32_t k = s.match_begin[n1], end = s.match_end[n1]; k < end; ++k) {
      const int32_t n2 = b.sorted_nodes[k];
      const int32_t* kids2 = b.children + b.child_ptr[n2];
      double d = lambda;
      for (int32_t c = 0; c < arity; ++c) {
        const int32_t c1 = kids1[c], c2 = kids2[c];
        const int32_t p = a.prod[c1];
        if (p != b.prod[c2]) continue;
        // Inner children's cells were written earlier in this call (post-order); the
        // table is only ever read for equal productions, i.e. for written cells.
        d *= 1.0 + (TreeView::IsPreterminalProduction(p) ? lambda : delta[c1 * width + c2]);
      }
      row[n2] = d;
      total += d;
    }
  });
  return total;
}

double LimitedDepth(const TreeView& a, const TreeView& b, double lambda, int depth, TreeKernelScratch& s) {
  double* delta = s.delta.data();
  const std::size_t width = static_cast<std::size_t>(b.size) * depth;
  double total = 0;
  ForEachMatched(a, s, [&](int32_t n1) {
    double* row = delta + n1 * width;
    const int32_t arity = a.NumChildren(n1);
    const int32_t* kids1 = a.children + a.child_ptr[n1];
    for (int32_t k = s.match_begin[n1], end = s.match_end[n1]; k < end; ++k) {
      const int32_t n2 = b.sorted_nodes[k];
      const int32_t* kids2 = b.children + b.child_ptr[n2];
      double* cell = row + static_cast<std::size_t>(n2) * depth;  // cell[d-1] = Delta_d
      for (int d = 0; d < depth; ++d) cell[d] = lambda;
      for (int32_t c = 0; c < arity; ++c) {
        const int32_t c1 = kids1[c], c2 = kids2[c];
        const int32_t p = a.prod[c1];
        if (p != b.prod[c2]) continue;
        if (TreeView::IsPreterminalProduction(p)) {
          for (int d = 1; d < depth; ++d) cell[d] *= 1.0 + lambda;
        } else {
          const double* below = delta + c1 * width + static_cast<std::size_t>(c2) * depth;
          for (int d = 1; d < depth; ++d) cell[d] *= 1.0 + below[d - 1];
        }
      }
      total += cell[depth - 1];
    }
  });
  return total;
}

}  // namespace

double SubsetTreeKernel(const TreeView& a, const TreeView& b, double lambda, int depth,
                        TreeKernelScratch& scratch) {
  // No common fragment is deeper than the shallower tree: deeper limits change nothing.
  if (depth >= std::min(a.height, b.height)) depth = 0;
  scratch.Reserve(a.size, b.size, depth);
  const int64_t preterminal_pairs = MatchProductions(a, b, scratch);
  const double inner =
      depth > 0 ? LimitedDepth(a, b, lambda, depth, scratch) : UnlimitedDepth(a, b, lambda, scratch);
  return lambda * static_cast<double>(preterminal_pairs) + inner;
}

double SubsetTreeKernelPlain(const TreeView& a, const TreeView& b, double lambda, int depth) {
  if (depth >= std::min(a.height, b.height)) depth = 0;
  const int levels = depth > 0 ? depth : 1;
  if (static_cast<std::size_t>(a.size) * b.size * levels > kMaxTableCells)
    throw InputError("trees too large for the kernel table");
  // table[(n1 * |b| + n2) * levels + d]: Delta_{d+1}, or Delta itself when unlimited.
  std::vector<double> table(static_cast<std::size_t>(a.size) * b.size * levels, 0.0);
  auto at = [&](int32_t n1, int32_t n2) {
    return table.data() + (static_cast<std::size_t>(n1) * b.size + n2) * levels;
  };
  double total = 0;
  for (int32_t n1 = 0; n1 < a.size; ++n1) {
    for (int32_t n2 = 0; n2 < b.size; ++n2) {
      if (a.prod[n1] != b.prod[n2]) continue;
      double* cell = at(n1, n2);
      const int32_t arity = a.NumChildren(n1);
      const int32_t* kids1 = a.children + a.child_ptr[n1];
      const int32_t* kids2 = b.children + b.child_ptr[n2];
      if (depth > 0) {
        for (int d = 0; d < depth; ++d) {
          double v = lambda;
          if (d > 0)
            for (int32_t c = 0; c < arity; ++c) v *= 1.0 + at(kids1[c], kids2[c])[d - 1];
          cell[d] = v;
        }
        total += cell[depth - 1];
      } else {
        double v = lambda;
        for (int32_t c = 0; c < arity; ++c) v *= 1.0 + at(kids1[c], kids2[c])[0];
        cell[0] = v;
        total += v;
      }
    }
  }
  return total;
}

}  // namespace structrank
