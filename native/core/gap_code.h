// Ascending positions stored as LEB128 gaps, each from the position after the previous one
// (the first from 0): sparse model data costs about a byte per entry instead of eight.
#pragma once
#include <cstdint>
#include <vector>

#include "core/errors.h"

namespace structrank {

// Appends the gap to `position` (which must be >= next) and moves next past it.
inline void AppendGap(std::vector<uint8_t>& out, uint64_t position, uint64_t& next) {
  for (uint64_t gap = position - next;; gap >>= 7) {
    const uint8_t low = static_cast<uint8_t>(gap & 0x7f);
    if (gap < 0x80) {
      out.push_back(low);
      break;
    }
    out.push_back(static_cast<uint8_t>(low | 0x80));
  }
  next = position + 1;
}

// The next position from the gaps at `at` (advanced); InputError(`what`) when they end early,
// run past 64 bits or past `limit`.
inline uint64_t ReadGap(const std::vector<uint8_t>& in, size_t& at, uint64_t& next, uint64_t limit,
                        const char* what) {
  uint64_t gap = 0;
  for (int shift = 0;; shift += 7) {
    if (at >= in.size() || shift > 56) throw InputError(what);
    const uint8_t b = in[at++];
    gap |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (next >= limit || gap >= limit - next) throw InputError(what);
  const uint64_t position = next + gap;
  next = position + 1;
  return position;
}

}  // namespace structrank
