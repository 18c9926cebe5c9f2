// The coarse pass of coarse-to-fine parsing: PCFG Viterbi inside and outside over the whole,
// unmasked chart. The generic passes (chart.h) test each rule's right child and the parent's
// mask with a branch, which on a full chart mispredicts often; with no mask, a rule can be
// applied branch-free (a -inf child makes a -inf candidate, which a max ignores), reading its
// right child, parent and score from one stream. The scores are the generic passes' to the
// bit: the same sums in the same order. (Passing outside scores down only from the entries
// that survive the threshold, rules grouped by parent, was slower on both dev treebanks: too
// many survive a PCFG threshold of 1e-4.)
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "chart/chart.h"

namespace structrank {

// A PCFG's rules as the coarse pass reads them: binary rules grouped by left child
// (Grammar::by_left's order) as parallel arrays, and the unary and root scores.
struct CoarseRules {
  std::vector<int32_t> right_by_left, parent_by_left;
  std::vector<double> score_by_left;
  const double* unary = nullptr;
  const double* root = nullptr;

  CoarseRules(const Grammar& g, const double* binary_logp, const double* unary_logp, const double* root_logp);
};

// Viterbi inside over `ch` (Begin'd, no masks): returns the best tree's score, -inf when
// nothing covers the sentence. Equals Inside<MaxSemiring> with a PcfgScorer.
// beam < infinity: a cell keeps only the post entries at most `beam` below its best (then
// the passes are no longer exact).
double CoarseInside(const Grammar& g, const CoarseRules& rules, const LexScores& lex, Chart& ch,
                    double beam = std::numeric_limits<double>::infinity());

// Viterbi outside after CoarseInside (ch Begin'd with outside rows): every entry's best
// outside score. Equals Outside<MaxSemiring> with a PcfgScorer.
void CoarseOutside(const Grammar& g, const CoarseRules& rules, Chart& ch);

}  // namespace structrank
