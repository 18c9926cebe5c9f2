#include "kernels/matrix_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace structrank {

namespace {

// Writes x > 0 (finite) as JavaScript does into `out` (at least 32 bytes); returns the end.
char* WritePositive(double x, char* out) {
  // Shortest round-trip digits (closest to x among the shortest, as ECMAScript asks) in
  // scientific form "d.ddde+XX": digits s (k of them) and exponent n - 1.
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  char digits[20];
  int k = 0;
  const char* p = buf;
  for (; p < r.ptr && *p != 'e'; ++p)
    if (*p != '.') digits[k++] = *p;
  int exponent = 0;
  std::from_chars(p + (p[1] == '+' ? 2 : 1), r.ptr, exponent);
  const int n = exponent + 1;
  char* o = out;
  auto put = [&](const char* from, int count) {
    std::memcpy(o, from, static_cast<std::size_t>(count));
    o += count;
  };
  if (k <= n && n <= 21) {
    put(digits, k);
    for (int z = k; z < n; ++z) *o++ = '0';
  } else if (0 < n && n <= 21) {
    put(digits, n);
    *o++ = '.';
    put(digits + n, k - n);
  } else if (-6 < n && n <= 0) {
    *o++ = '0';
    *o++ = '.';
    for (int z = n; z < 0; ++z) *o++ = '0';
    put(digits, k);
  } else {
    *o++ = digits[0];
    if (k > 1) {
      *o++ = '.';
      put(digits + 1, k - 1);
    }
    *o++ = 'e';
    *o++ = n - 1 < 0 ? '-' : '+';
    o = std::to_chars(o, o + 8, std::abs(n - 1)).ptr;
  }
  return o;
}

}  // namespace

void AppendJsNumber(double x, bool json, std::string* out) {
  if (std::isnan(x) || std::isinf(x)) {
    if (json)
      out->append("null");
    else
      out->append(std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (x == 0) {
    out->push_back('0');
    return;
  }
  char text[40];
  char* o = text;
  if (x < 0) *o++ = '-';
  o = WritePositive(std::fabs(x), o);
  out->append(text, static_cast<std::size_t>(o - text));
}

void AppendMatrixRows(const double* matrix, std::size_t cols, std::size_t first, std::size_t end, bool json,
                      std::string* out) {
  // Kernel matrices repeat values a lot (500 ptb-sample trees: 7,000 distinct among 250,000,
  // the mirrored half included), so each row batch keeps the text of recent values in a
  // small direct-mapped cache keyed by the double's bits.
  struct Cached {
    uint64_t bits = 0;
    uint8_t length = 0;  // 0: empty
    char text[39];
  };
  constexpr int kCacheBits = 12;
  std::vector<Cached> cache(std::size_t{1} << kCacheBits);
  out->reserve(out->size() + (end - first) * cols * 20);  // typical numbers take 18-20 bytes
  std::string one;
  for (std::size_t r = first; r < end; ++r) {
    const double* row = matrix + r * cols;
    if (json) {
      if (r > 0) out->push_back(',');
      out->push_back('[');
    }
    for (std::size_t c = 0; c < cols; ++c) {
      if (c > 0) out->push_back(json ? ',' : ' ');
      uint64_t bits;
      std::memcpy(&bits, &row[c], sizeof bits);
      Cached& e = cache[(bits * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits)];
      if (e.length == 0 || e.bits != bits) {
        one.clear();
        AppendJsNumber(row[c], json, &one);
        e.bits = bits;
        e.length = static_cast<uint8_t>(one.size());
        std::memcpy(e.text, one.data(), one.size());
      }
      out->append(e.text, e.length);
    }
    out->push_back(json ? ']' : '\n');
  }
}

}  // namespace structrank
