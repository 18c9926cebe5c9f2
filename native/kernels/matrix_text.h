// Matrix rows as text, numbers written exactly as JavaScript writes them (Number's
// toString: the shortest digits that read back to the same double, plain notation for
// exponents -7 < e < 21, else "1.5e+21" / "1e-7"), so the kernel commands can print a large
// Gram matrix without making a JS string per number.
#pragma once
#include <cstddef>
#include <string>

namespace structrank {

// Appends x as JavaScript's String(x) would ("NaN", "Infinity", "-0" -> "0"); with `json`,
// as JSON.stringify would (NaN and infinities -> "null").
void AppendJsNumber(double x, bool json, std::string* out);

// Appends rows [first, end) of a row-major matrix with `cols` columns: as lines of
// space-separated numbers, or with `json` as JSON arrays "[a,b]" joined by ',' (a ','
// before every row but row 0), the rows of {"rows":[...]}.
void AppendMatrixRows(const double* matrix, std::size_t cols, std::size_t first, std::size_t end, bool json,
                      std::string* out);

}  // namespace structrank
