#include "kernels/tag_kernel.h"

#include <vector>

namespace structrank {

namespace {

inline double PositionWeight(const SequenceView& a, int32_t t1, const SequenceView& b, int32_t t2,
                             const TagKernelWeights& w) {
  double s = 1.0;
  if (a.word[t1] == b.word[t2]) s += w.sim1;
  if (w.sim2 != 0.0 && a.word_class[t1] >= 0 && a.word_class[t1] == b.word_class[t2]) s += w.sim2;
  return s;
}

}  // namespace

double TagKernel(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w) {
  double total = 0;
  // Diagonal offset o = t2 - t1 ranges over -(|a|-1) .. |b|-1.
  for (int32_t o = -(a.size - 1); o < b.size; ++o) {
    int32_t t1_end = a.size, t2_end = b.size;  // walk back from the last shared position
    if (t1_end + o < t2_end) t2_end = t1_end + o; else t1_end = t2_end - o;
    double next = 0;
    for (int32_t t1 = t1_end - 1, t2 = t2_end - 1; t1 >= 0 && t2 >= 0; --t1, --t2) {
      if (a.label[t1] != b.label[t2]) {
        next = 0;
        continue;
      }
      next = PositionWeight(a, t1, b, t2, w) * (1.0 + w.lambda * next);
      total += next;
    }
  }
  return total;
}

double TagKernelPlain(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w) {
  std::vector<double> table(static_cast<std::size_t>(a.size + 1) * (b.size + 1), 0.0);
  auto at = [&](int32_t t1, int32_t t2) -> double& { return table[static_cast<std::size_t>(t1) * (b.size + 1) + t2]; };
  double total = 0;
  for (int32_t t1 = a.size - 1; t1 >= 0; --t1) {
    for (int32_t t2 = b.size - 1; t2 >= 0; --t2) {
      if (a.label[t1] != b.label[t2]) continue;
      at(t1, t2) = PositionWeight(a, t1, b, t2, w) * (1.0 + w.lambda * at(t1 + 1, t2 + 1));
      total += at(t1, t2);
    }
  }
  return total;
}

}  // namespace structrank
