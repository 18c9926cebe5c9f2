#include "perceptron/candidate_bank.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "core/errors.h"

namespace structrank {

LinearBank::LinearBank(CsrMatrix rows) : rows_(std::move(rows)) {
  rows_.Validate(std::numeric_limits<int32_t>::max());
  CanonicalizeRows(rows_);
}

std::unique_ptr<CandidateBank> LinearBank::Select(const std::vector<int32_t>& ids) const {
  return std::make_unique<LinearBank>(SelectRows(rows_, ids));
}

std::unique_ptr<CandidateKernel> LinearBank::KernelWith(const CandidateBank& right) const {
  if (right.kind() != KernelKind::kLinear)
    throw InputError("linear kernel: query candidates have no feature rows");
  return std::make_unique<LinearKernel>(&rows_, &static_cast<const LinearBank&>(right).rows_);
}

int32_t LinearBank::num_features() const {
  int32_t n = 0;
  for (int32_t c : rows_.cols) n = std::max(n, c + 1);
  return n;
}

std::vector<int32_t> LinearBank::CompactFeatures() {
  std::unordered_map<int32_t, int32_t> remap;
  std::vector<int32_t> old_ids;
  for (int32_t& c : rows_.cols) {
    auto [it, added] = remap.emplace(c, static_cast<int32_t>(old_ids.size()));
    if (added) old_ids.push_back(c);
    c = it->second;
  }
  CanonicalizeRows(rows_);
  return old_ids;
}

void LinearBank::Save(ByteWriter& out) const {
  out.PutVector(rows_.row_ptr);
  out.PutVector(rows_.cols);
  out.PutVector(rows_.values);
}

std::unique_ptr<LinearBank> LinearBank::Load(ByteReader& in) {
  CsrMatrix m;
  m.row_ptr = in.GetVector<int64_t>();
  m.cols = in.GetVector<int32_t>();
  m.values = in.GetVector<float>();
  if (m.row_ptr.empty() || m.row_ptr.front() != 0 || m.row_ptr.back() != m.nnz() ||
      (!m.values.empty() && m.values.size() != m.cols.size())) {
    throw InputError("perceptron model: inconsistent feature rows");
  }
  return std::make_unique<LinearBank>(std::move(m));
}

}  // namespace structrank
