// The subset-tree (all-subtrees) kernel of Collins & Duffy:
//   K(T1,T2) = sum_{n1,n2} Delta(n1,n2)
//   Delta = 0 if the productions differ; lambda at equal preterminals;
//   lambda * prod_j (1 + Delta(ch_j(n1), ch_j(n2))) at equal inner productions.
// Equivalently sum_f lambda^{size(f)} h_f(T1) h_f(T2) over fragments f (whole productions,
// size = number of productions). With depth d > 0 only fragments of depth <= d count
// (a single production has depth 1): Delta_1 = lambda, Delta_d uses Delta_{d-1} below.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/tree_bank.h"

namespace structrank {

// Kernel tables above this many cells (1 GiB of doubles) are refused with InputError.
constexpr std::size_t kMaxTableCells = std::size_t{1} << 27;

// Per-thread working memory, grown on demand and never cleared: the fast kernel only
// reads table cells it wrote during the same call.
struct TreeKernelScratch {
  std::vector<int32_t> match_begin, match_end;  // per inner node of T1: its range in T2's sorted list
  std::vector<int32_t> group_pairs;             // equal-production group pairs from the merge
  std::vector<uint64_t> matched;                // bit set of inner nodes of T1 with a match
  std::vector<double> delta;                    // |T1| x |T2| (x depth) table
  void Reserve(int32_t n1, int32_t n2, int32_t depth);
  // One scratch per thread, reused by every call on that thread.
  static TreeKernelScratch& ForThisThread();
};

// Fast: equal-production pairs from a merge of the sorted node lists, Delta bottom-up.
double SubsetTreeKernel(const TreeView& a, const TreeView& b, double lambda, int depth,
                        TreeKernelScratch& scratch);
inline double SubsetTreeKernel(const TreeView& a, const TreeView& b, double lambda, int depth = 0) {
  return SubsetTreeKernel(a, b, lambda, depth, TreeKernelScratch::ForThisThread());
}

// Reference: every node pair, |T1| x |T2| dynamic programming table.
double SubsetTreeKernelPlain(const TreeView& a, const TreeView& b, double lambda, int depth = 0);

}  // namespace structrank
