// Bit tricks with one portable spelling: GCC and clang builtins, MSVC intrinsics.
#pragma once
#include <cstdint>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

namespace structrank {

// Index of the lowest set bit; `bits` must not be 0.
inline int CountTrailingZeros(uint64_t bits) {
#if defined(_MSC_VER) && !defined(__clang__)
  unsigned long index;
  _BitScanForward64(&index, bits);
  return static_cast<int>(index);
#else
  return __builtin_ctzll(bits);
#endif
}

}  // namespace structrank
