// The tagging kernel of Collins (2002), section 5: over all position pairs,
//   Delta(t1,t2) = 0 if the labels differ, else
//                  (1 + w1*Sim1 + w2*Sim2) * (1 + lambda * Delta(t1+1, t2+1)),
// Delta past either end = 0. The plain kernel is w1 = 1, w2 = 0 (1 + lambda*Delta when the
// words differ, 2 + 2*lambda*Delta when equal); the word-feature variant is w1 = w2 = 0.5.
// Fragments: a run of k consecutive labels, each position bare or with its word
// (or word class), weighted lambda^(k-1) times the product of the position weights.
#pragma once

#include "kernels/sequence_bank.h"

namespace structrank {

struct TagKernelWeights {
  double lambda = 0.5;
  double sim1 = 1.0;  // weight of [w1 == w2]
  double sim2 = 0.0;  // weight of [class(w1) == class(w2) != none]
};

// Walks every diagonal t2 - t1 = const from its end, carrying Delta: no memory needed.
double TagKernel(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w);

// Reference: a full |a| x |b| table filled from the ends.
double TagKernelPlain(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w);

}  // namespace structrank
