#include "perceptron/candidate_kernel.h"

#include <algorithm>
#include <numeric>

namespace structrank {

void CanonicalizeRows(CsrMatrix& m) {
  const bool valued = !m.binary();
  CsrMatrix out;
  std::vector<int64_t> order;
  std::vector<int32_t> ids;
  std::vector<float> vals;
  for (int64_t r = 0; r < m.rows(); ++r) {
    const int64_t b = m.RowBegin(r), e = m.RowEnd(r);
    order.resize(e - b);
    std::iota(order.begin(), order.end(), b);
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return m.cols[x] < m.cols[y]; });
    ids.clear();
    vals.clear();
    for (int64_t k : order) {
      if (!ids.empty() && ids.back() == m.cols[k]) {
        vals.back() += m.Value(k);
      } else {
        ids.push_back(m.cols[k]);
        vals.push_back(m.Value(k));
      }
    }
    // A binary row with duplicate ids becomes a valued matrix (counts).
    bool need_values = valued || std::any_of(vals.begin(), vals.end(), [](float v) { return v != 1.0f; });
    if (need_values && out.values.size() != out.cols.size()) out.values.assign(out.cols.size(), 1.0f);
    out.AddRow(ids.data(), (need_values || !out.values.empty()) ? vals.data() : nullptr,
               static_cast<int64_t>(ids.size()));
  }
  m = std::move(out);
}

double SparseDot(const CsrMatrix& x, int64_t a, const CsrMatrix& y, int64_t b) {
  int64_t i = x.RowBegin(a), ie = x.RowEnd(a);
  int64_t j = y.RowBegin(b), je = y.RowEnd(b);
  double sum = 0;
  while (i < ie && j < je) {
    int32_t ci = x.cols[i], cj = y.cols[j];
    if (ci < cj) {
      ++i;
    } else if (cj < ci) {
      ++j;
    } else {
      sum += static_cast<double>(x.Value(i)) * static_cast<double>(y.Value(j));
      ++i;
      ++j;
    }
  }
  return sum;
}

CsrMatrix SelectRows(const CsrMatrix& m, const std::vector<int32_t>& rows) {
  CsrMatrix out;
  if (!m.binary()) out.values.reserve(0);
  for (int32_t r : rows) {
    const int64_t b = m.RowBegin(r), e = m.RowEnd(r);
    out.AddRow(m.cols.data() + b, m.binary() ? nullptr : m.values.data() + b, e - b);
  }
  return out;
}

}  // namespace structrank
