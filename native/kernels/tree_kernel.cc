#include "kernels/tree_kernel.h"

#include <algorithm>

namespace structrank {

void TreeKernelScratch::Reserve(int32_t n1, int32_t n2, int32_t depth) {
  if (match_begin.size() < static_cast<std::size_t>(n1)) {
    match_begin.resize(n1);
    match_end.resize(n1);
  }
  std::size_t cells = static_cast<std::size_t>(n1) * n2 * std::max(depth, 1);
  if (delta.size() < cells) delta.resize(std::max(cells, delta.size() * 2));
}

TreeKernelScratch& TreeKernelScratch::ForThisThread() {
  thread_local TreeKernelScratch scratch;
  return scratch;
}

namespace {

// For every node of `a`, the range of `b`'s sorted list holding the same production.
// Returns false when no production is shared.
bool MatchProductions(const TreeView& a, const TreeView& b, TreeKernelScratch& s) {
  bool any = false;
  int32_t i = 0, j = 0;
  while (i < a.size) {
    const int32_t p = a.sorted_prods[i];
    while (j < b.size && b.sorted_prods[j] < p) ++j;
    int32_t j_end = j;
    while (j_end < b.size && b.sorted_prods[j_end] == p) ++j_end;
    any |= j_end > j;
    for (; i < a.size && a.sorted_prods[i] == p; ++i) {
      s.match_begin[a.sorted_nodes[i]] = j;
      s.match_end[a.sorted_nodes[i]] = j_end;
    }
    j = j_end;
  }
  return any;
}

double UnlimitedDepth(const TreeView& a, const TreeView& b, double lambda, TreeKernelScratch& s) {
  double* delta = s.delta.data();
  const int32_t width = b.size;
  double total = 0;
  // Post-order: a node's children were visited before it, so their cells are ready.
  for (int32_t n1 = 0; n1 < a.size; ++n1) {
    const int32_t begin = s.match_begin[n1], end = s.match_end[n1];
    if (begin == end) continue;
    double* row = delta + static_cast<std::size_t>(n1) * width;
    const int32_t c_begin = a.child_ptr[n1], arity = a.NumChildren(n1);
    if (arity == 0) {
      for (int32_t k = begin; k < end; ++k) row[b.sorted_nodes[k]] = lambda;
      total += lambda * (end - begin);
      continue;
    }
    const int32_t* kids1 = a.children + c_begin;
    for (int32_t k = begin; k < end; ++k) {
      const int32_t n2 = b.sorted_nodes[k];
      const int32_t* kids2 = b.children + b.child_ptr[n2];
      double d = lambda;
      for (int32_t c = 0; c < arity; ++c) {
        const int32_t c1 = kids1[c], c2 = kids2[c];
        // Cells are only read for equal productions: exactly the cells written above.
        if (a.prod[c1] == b.prod[c2]) d *= 1.0 + delta[static_cast<std::size_t>(c1) * width + c2];
      }
      row[n2] = d;
      total += d;
    }
  }
  return total;
}

double LimitedDepth(const TreeView& a, const TreeView& b, double lambda, int depth, TreeKernelScratch& s) {
  double* delta = s.delta.data();
  const std::size_t width = static_cast<std::size_t>(b.size) * depth;
  double total = 0;
  for (int32_t n1 = 0; n1 < a.size; ++n1) {
    const int32_t begin = s.match_begin[n1], end = s.match_end[n1];
    if (begin == end) continue;
    double* row = delta + n1 * width;
    const int32_t arity = a.NumChildren(n1);
    const int32_t* kids1 = a.children + a.child_ptr[n1];
    for (int32_t k = begin; k < end; ++k) {
      const int32_t n2 = b.sorted_nodes[k];
      double* cell = row + static_cast<std::size_t>(n2) * depth;  // cell[d-1] = Delta_d
      cell[0] = lambda;
      if (arity == 0) {
        for (int d = 1; d < depth; ++d) cell[d] = lambda;
      } else {
        const int32_t* kids2 = b.children + b.child_ptr[n2];
        for (int d = 1; d < depth; ++d) cell[d] = lambda;
        for (int32_t c = 0; c < arity; ++c) {
          const int32_t c1 = kids1[c], c2 = kids2[c];
          if (a.prod[c1] != b.prod[c2]) continue;
          const double* below = delta + c1 * width + static_cast<std::size_t>(c2) * depth;
          for (int d = 1; d < depth; ++d) cell[d] *= 1.0 + below[d - 1];
        }
      }
      total += cell[depth - 1];
    }
  }
  return total;
}

}  // namespace

double SubsetTreeKernel(const TreeView& a, const TreeView& b, double lambda, int depth,
                        TreeKernelScratch& scratch) {
  scratch.Reserve(a.size, b.size, depth);
  if (!MatchProductions(a, b, scratch)) return 0.0;
  return depth > 0 ? LimitedDepth(a, b, lambda, depth, scratch) : UnlimitedDepth(a, b, lambda, scratch);
}

double SubsetTreeKernelPlain(const TreeView& a, const TreeView& b, double lambda, int depth) {
  const int levels = depth > 0 ? depth : 1;
  // table[(n1 * |b| + n2) * levels + d]: Delta_{d+1}, or Delta itself when unlimited.
  std::vector<double> table(static_cast<std::size_t>(a.size) * b.size * levels, 0.0);
  auto at = [&](int32_t n1, int32_t n2) { return table.data() + (static_cast<std::size_t>(n1) * b.size + n2) * levels; };
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
