// The coarse pass of coarse-to-fine parsing: PCFG Viterbi inside and outside over the whole,
// unmasked chart. The generic passes (chart.h) test each rule's right child and the parent's
// mask with a branch, which on a full chart mispredicts often; with no mask, a rule can be
// applied branch-free (a -inf child makes a -inf candidate, which a max ignores), reading its
// right child, parent and score from one stream. The scores are the generic passes' to the
// bit: the same sums in the same order. The outside pass skips whole cells in which nothing
// reaches the threshold (most long spans of a long sentence). (Passing scores down from just
// the surviving entries, rules grouped by parent, was slower: too many survive in the cells
// that have any.)
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
  std::vector<double> best_score_of_left;  // symbol -> its best binary rule score as left child
  double best_score = -std::numeric_limits<double>::infinity();  // the best binary rule score
  bool all_finite = true;  // every binary, unary and root rule has a finite score
  const double* unary = nullptr;
  const double* root = nullptr;

  CoarseRules(const Grammar& g, const double* binary_logp, const double* unary_logp, const double* root_logp);
  double Unary(int32_t u, int, int) const { return unary[u]; }  // as a scorer of the unary layer
};

// Viterbi inside over `ch` (Begin'd, no masks): returns the best tree's score, -inf when
// nothing covers the sentence. Equals Inside<MaxSemiring> with a PcfgScorer.
// beam < infinity: a cell keeps only the entries at most `beam` below its best (its post
// entries; above one word its pre entries too), and the pass skips the applications bound
// to fall below that (then the passes are no longer exact).
double CoarseInside(const Grammar& g, const CoarseRules& rules, const LexScores& lex, Chart& ch,
                    double beam = std::numeric_limits<double>::infinity());

// Viterbi outside after CoarseInside (ch Begin'd with outside rows): the best outside score
// of every entry whose max-marginal (inside + outside: the best tree through it) is >= floor,
// as Outside<MaxSemiring> with a PcfgScorer gives it, bit for bit; the other entries' scores
// are at most theirs, so they stay below floor (floor = -inf: every entry's). It skips the
// cells with no entry >= floor: every ancestor of an entry on a tree >= floor is on it too.
// For the same reason it skips the splits and left children whose rule applications are
// all on trees < floor, bounding them by the cell's best outside score, the children's
// inside scores and the best rule score: an entry >= floor gets its outside score from an
// application >= floor.
void CoarseOutside(const Grammar& g, const CoarseRules& rules, double floor, Chart& ch);

}  // namespace structrank
