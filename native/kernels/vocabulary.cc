#include "kernels/vocabulary.h"

#include <algorithm>

namespace structrank {

namespace {

uint64_t HashIds(const int32_t* ids, std::size_t count) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ count;
  for (std::size_t k = 0; k < count; ++k) {
    h ^= static_cast<uint32_t>(ids[k]);
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return h;
}

}  // namespace

bool SequenceInterner::Equal(int32_t id, const int32_t* ids, std::size_t count) const {
  const int64_t begin = key_begin_[id], end = key_begin_[id + 1];
  return static_cast<std::size_t>(end - begin) == count &&
         std::equal(ids, ids + count, keys_.begin() + begin);
}

void SequenceInterner::Grow() {
  std::vector<int32_t> slots(slots_.size() * 2, -1);
  const std::size_t mask = slots.size() - 1;
  for (int32_t id = 0; id < size(); ++id) {
    std::size_t s = hashes_[id] & mask;
    while (slots[s] >= 0) s = (s + 1) & mask;
    slots[s] = id;
  }
  slots_.swap(slots);
}

int32_t SequenceInterner::Intern(const int32_t* ids, std::size_t count) {
  const uint64_t h = HashIds(ids, count);
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = h & mask;
  for (; slots_[s] >= 0; s = (s + 1) & mask) {
    const int32_t id = slots_[s];
    if (hashes_[id] == h && Equal(id, ids, count)) return id;
  }
  const int32_t id = size();
  keys_.insert(keys_.end(), ids, ids + count);
  key_begin_.push_back(static_cast<int64_t>(keys_.size()));
  hashes_.push_back(h);
  slots_[s] = id;
  if (static_cast<std::size_t>(size()) * 2 > slots_.size()) Grow();
  return id;
}

}  // namespace structrank
