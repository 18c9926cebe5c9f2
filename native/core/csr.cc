#include "core/csr.h"

#include <string>

#include "core/errors.h"

namespace structrank {

void CsrMatrix::AddRow(const int32_t* ids, const float* vals, int64_t count) {
  if (vals != nullptr && values.size() != cols.size()) {
    throw InputError("CsrMatrix: cannot mix binary and valued rows");
  }
  cols.insert(cols.end(), ids, ids + count);
  if (vals != nullptr) values.insert(values.end(), vals, vals + count);
  row_ptr.push_back(static_cast<int64_t>(cols.size()));
}

void CsrMatrix::Validate(int32_t num_cols) const {
  if (row_ptr.empty() || row_ptr[0] != 0) throw InputError("CSR: row offsets must start at 0");
  for (std::size_t r = 1; r < row_ptr.size(); ++r) {
    if (row_ptr[r] < row_ptr[r - 1]) {
      throw InputError("CSR: row offsets decrease at row " + std::to_string(r - 1));
    }
  }
  if (row_ptr.back() != static_cast<int64_t>(cols.size())) {
    throw InputError("CSR: last row offset does not equal the number of entries");
  }
  if (!values.empty() && values.size() != cols.size()) {
    throw InputError("CSR: values and column ids differ in length");
  }
  for (int32_t c : cols) {
    if (c < 0 || c >= num_cols) {
      throw InputError("CSR: column id " + std::to_string(c) + " outside [0, " + std::to_string(num_cols) +
                       ")");
    }
  }
}

}  // namespace structrank
