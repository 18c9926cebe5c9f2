#include "kernels/matrix_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace structrank {

void AppendJsNumber(double x, bool json, std::string* out) {
  if (std::isnan(x) || std::isinf(x)) {
    if (json) out->append("null");
    else out->append(std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (x == 0) {
    out->push_back('0');
    return;
  }
  if (x < 0) {
    out->push_back('-');
    x = -x;
  }
  // Shortest round-trip digits (closest to x among the shortest, as ECMAScript asks) in
  // scientific form "d.ddde+XX": digits s (k of them) and exponent n - 1.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  char digits[32];
  int k = 0;
  const char* p = buf;
  for (; p < r.ptr && *p != 'e'; ++p)
    if (*p != '.') digits[k++] = *p;
  int exponent = 0;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), r.ptr, exponent);
  const int n = exponent + 1;
  if (k <= n && n <= 21) {
    out->append(digits, k);
    out->append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out->append(digits, n);
    out->push_back('.');
    out->append(digits + n, k - n);
  } else if (-6 < n && n <= 0) {
    out->append("0.");
    out->append(static_cast<std::size_t>(-n), '0');
    out->append(digits, k);
  } else {
    out->push_back(digits[0]);
    if (k > 1) {
      out->push_back('.');
      out->append(digits + 1, k - 1);
    }
    out->push_back('e');
    out->push_back(n - 1 < 0 ? '-' : '+');
    out->append(std::to_string(std::abs(n - 1)));
  }
}

void AppendMatrixRows(const double* matrix, std::size_t cols, std::size_t first, std::size_t end, bool json,
                      std::string* out) {
  for (std::size_t r = first; r < end; ++r) {
    const double* row = matrix + r * cols;
    if (json) {
      if (r > 0) out->push_back(',');
      out->push_back('[');
    }
    for (std::size_t c = 0; c < cols; ++c) {
      if (c > 0) out->push_back(json ? ',' : ' ');
      AppendJsNumber(row[c], json, out);
    }
    out->push_back(json ? ']' : '\n');
  }
}

}  // namespace structrank
