// The hash table of the tagger's attributes and of the chart CRF's sparse features.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/flat_array.h"

namespace structrank {

// Open-addressing map from 64-bit attribute keys to dense ids (linear probing; keys are
// hashes already, so a key's low bits are its home slot; 0 is no key). Its slot
// table is stored as such in model files (tagger payload version 3) and used in place when a
// model loads, so loading hashes nothing; the id -> key list is then derived only when
// needed (saving, growing the table).
class AttributeTable {
 public:
  // 12 bytes, 4-byte aligned: no padding after the id, which was a quarter of a tagger
  // model file's table (the table is most of such a file).
#pragma pack(push, 4)
  struct Slot {
    uint64_t key;  // 0 = empty
    int32_t id;    // -1 when empty
  };
#pragma pack(pop)
  static_assert(sizeof(Slot) == 12 && alignof(Slot) == 4, "a slot is 12 bytes in model files");

  int32_t Find(uint64_t key) const {  // the key's id, -1 if absent
    if (slots_.empty()) return -1;
    const Slot* slots = slots_.data();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = key & mask;; i = (i + 1) & mask) {
      if (slots[i].key == key) return slots[i].id;
      if (slots[i].key == 0) return -1;
    }
  }
  int32_t Insert(uint64_t key);  // returns the existing or a new id
  void Prefetch(uint64_t key) const {
#if defined(__GNUC__) || defined(__clang__)
    if (!slots_.empty()) __builtin_prefetch(&slots_[key & (slots_.size() - 1)]);
#endif
  }
  int32_t size() const { return size_; }
  std::vector<uint64_t> keys() const;        // id -> key
  void Rebuild(std::vector<uint64_t> keys);  // ids = positions in `keys`
  const FlatArray<Slot>& slots() const { return slots_; }
  // Uses a stored slot table (as slots() gave it) for `count` ids; throws InputError
  // unless it is one Find() answers correctly: a power-of-two size with an empty slot,
  // ids 0..count-1 once each, every key reachable from its home slot.
  void UseSlots(FlatArray<Slot> slots, int32_t count);

 private:
  void Grow();
  void OwnKeys();               // fills keys_ from the slots (after UseSlots)
  FlatArray<Slot> slots_;       // key and id side by side: one cache line per probe
  std::vector<uint64_t> keys_;  // id -> key; empty after UseSlots until needed
  int32_t size_ = 0;
};

}  // namespace structrank
