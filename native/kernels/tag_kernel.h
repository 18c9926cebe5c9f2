// The tagging kernel of Collins (2002), section 5: over all position pairs,
//   Delta(t1,t2) = 0 if the labels differ, else
//                  (1 + w1*Sim1 + w2*Sim2) * (1 + lambda * Delta(t1+1, t2+1)),
// Delta past either end = 0. The plain kernel is w1 = 1, w2 = 0 (1 + lambda*Delta when the
// words differ, 2 + 2*lambda*Delta when equal); the word-feature variant is w1 = w2 = 0.5.
// Fragments: a run of k consecutive labels, each position bare or with its word
// (or word class), weighted lambda^(k-1) times the product of the position weights.
#pragma once
#include <vector>

#include "kernels/sequence_bank.h"

namespace structrank {

struct TagKernelWeights {
  double lambda = 0.5;
  double sim1 = 1.0;  // weight of [w1 == w2]
  double sim2 = 0.0;  // weight of [class(w1) == class(w2) != none]
};

// Per-thread working memory, grown on demand and never cleared: the fast kernel only
// reads cells it wrote during the same call.
struct TagKernelScratch {
  std::vector<int32_t> match_begin, match_end;  // per position of a: its range in b's sorted positions
  std::vector<double> delta;                    // (|a|+1) x |b| table
  void Reserve(int32_t n1, int32_t n2);
  static TagKernelScratch& ForThisThread();
};

// Fast: equal-label position pairs from a merge of the label-sorted position lists, Delta
// evaluated from the ends backwards over those pairs only.
double TagKernel(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w,
                 TagKernelScratch& scratch);
inline double TagKernel(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w) {
  return TagKernel(a, b, w, TagKernelScratch::ForThisThread());
}

// Reference: a full |a| x |b| table filled from the ends.
double TagKernelPlain(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w);

// 1 / sqrt(K(x, x)) for every sequence of `bank`, for the normalized kernel
// K(a, b) / sqrt(K(a, a) K(b, b)). Sequences are never empty, so K(x, x) >= 1.
// On the calling thread: one kernel value per sequence, against the support-size many per
// sequence that scoring the bank costs, and the banks that need it carry no thread count.
std::vector<double> TagKernelInverseNorms(const SequenceBank& bank, const TagKernelWeights& w);

}  // namespace structrank
