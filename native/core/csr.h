// Compressed sparse rows of int32 column ids with optional float values: the one
// layout every feature matrix in structrank uses (row = candidate / position).
#pragma once
#include <cstdint>
#include <vector>

namespace structrank {

struct CsrMatrix {
  std::vector<int64_t> row_ptr{0};  // size rows()+1; row r is [row_ptr[r], row_ptr[r+1])
  std::vector<int32_t> cols;        // column ids
  std::vector<float> values;        // empty = all ones (binary features)

  int64_t rows() const { return static_cast<int64_t>(row_ptr.size()) - 1; }
  int64_t nnz() const { return static_cast<int64_t>(cols.size()); }
  bool binary() const { return values.empty(); }
  int64_t RowBegin(int64_t r) const { return row_ptr[r]; }
  int64_t RowEnd(int64_t r) const { return row_ptr[r + 1]; }
  float Value(int64_t k) const { return values.empty() ? 1.0f : values[k]; }

  // Appends a row; `vals` may be null for a binary row.
  void AddRow(const int32_t* ids, const float* vals, int64_t count);
  // Throws InputError if offsets are not monotone or a column id is outside [0, num_cols).
  void Validate(int32_t num_cols) const;
};

}  // namespace structrank
