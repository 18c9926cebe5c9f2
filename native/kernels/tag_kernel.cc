#include "kernels/tag_kernel.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/errors.h"

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

TagKernelScratch& TagKernelScratch::ForThisThread() {
  thread_local TagKernelScratch scratch;
  return scratch;
}

void TagKernelScratch::Reserve(int32_t n1, int32_t n2) {
  if (match_begin.size() < static_cast<std::size_t>(n1)) {
    match_begin.resize(n1);
    match_end.resize(n1);
  }
  const std::size_t cells = static_cast<std::size_t>(n1 + 1) * n2;
  if (cells > (std::size_t{1} << 27)) throw InputError("sequences too long for the kernel table");
  if (delta.size() < cells) delta.resize(std::max(cells, delta.size() * 2));
}

double TagKernel(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w,
                 TagKernelScratch& s) {
  const int32_t n1 = a.size, n2 = b.size;
  s.Reserve(n1, n2);
  // Merge the label groups: every position of `a` gets the range of `b`'s sorted positions
  // with its label (empty when none).
  int32_t* __restrict match_begin = s.match_begin.data();
  int32_t* __restrict match_end = s.match_end.data();
  int32_t i = 0, j = 0;
  bool any = false;
  while (i < a.num_groups) {
    const int32_t la = a.group_label[i];
    while (j < b.num_groups && b.group_label[j] < la) ++j;
    const bool match = j < b.num_groups && b.group_label[j] == la;
    const int32_t begin = match ? b.group_start[j] : 0, end = match ? b.group_start[j + 1] : 0;
    any |= match;
    for (int32_t k = a.group_start[i]; k < a.group_start[i + 1]; ++k) {
      match_begin[a.sorted_pos[k]] = begin;
      match_end[a.sorted_pos[k]] = end;
    }
    ++i;
  }
  if (!any) return 0.0;
  // Equal-label pairs only, from the ends backwards: Delta(t1+1, t2+1) is read only when
  // those labels are equal, i.e. only cells written earlier in this call.
  double* __restrict delta = s.delta.data();
  const double lambda = w.lambda, sim1 = w.sim1, sim2 = w.sim2;
  double total = 0;
  for (int32_t t1 = n1 - 1; t1 >= 0; --t1) {
    const int32_t wa = a.word[t1];
    const int32_t ca = sim2 != 0.0 && a.word_class[t1] >= 0 ? a.word_class[t1] : INT32_MIN;
    const bool has_next = t1 + 1 < n1;
    const int32_t next_label = has_next ? a.label[t1 + 1] : INT32_MIN;
    const double* next_row = delta + static_cast<std::size_t>(t1 + 1) * n2;
    double* row = delta + static_cast<std::size_t>(t1) * n2;
    for (int32_t k = match_begin[t1], end = match_end[t1]; k < end; ++k) {
      const int32_t t2 = b.sorted_pos[k];
      double next = 0.0;
      if (t2 + 1 < n2 && b.label[t2 + 1] == next_label) next = next_row[t2 + 1];
      const double d = (1.0 + (b.word[t2] == wa ? sim1 : 0.0) + (b.word_class[t2] == ca ? sim2 : 0.0)) *
                       (1.0 + lambda * next);
      row[t2] = d;
      total += d;
    }
  }
  return total;
}

double TagKernelPlain(const SequenceView& a, const SequenceView& b, const TagKernelWeights& w) {
  if (static_cast<std::size_t>(a.size + 1) * (b.size + 1) > (std::size_t{1} << 27))
    throw InputError("sequences too long for the kernel table");
  std::vector<double> table(static_cast<std::size_t>(a.size + 1) * (b.size + 1), 0.0);
  auto at = [&](int32_t t1, int32_t t2) -> double& {
    return table[static_cast<std::size_t>(t1) * (b.size + 1) + t2];
  };
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

std::vector<double> TagKernelInverseNorms(const SequenceBank& bank, const TagKernelWeights& w) {
  std::vector<double> inv(bank.size());
  for (std::size_t i = 0; i < bank.size(); ++i) {
    const SequenceView x = bank.Sequence(i);
    inv[i] = 1.0 / std::sqrt(TagKernel(x, x, w));
  }
  return inv;
}

}  // namespace structrank
