#include "core/attribute_table.h"

#include "core/errors.h"

namespace structrank {

int32_t AttributeTable::Insert(uint64_t key) {
  OwnKeys();
  if ((keys_.size() + 1) * 2 > slots_.size()) Grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = key & mask;
  for (; slots_[i].key != 0; i = (i + 1) & mask) {
    if (slots_[i].key == key) return slots_[i].id;
  }
  const int32_t id = size_;
  slots_.Edit([&](std::vector<Slot>& slots) { slots[i] = Slot{key, id}; });
  keys_.push_back(key);
  size_ = id + 1;
  return id;
}

std::vector<uint64_t> AttributeTable::keys() const {
  if (static_cast<int32_t>(keys_.size()) == size_) return keys_;
  std::vector<uint64_t> keys(size_);
  for (const Slot& s : slots_) {
    if (s.key != 0) keys[s.id] = s.key;
  }
  return keys;
}

void AttributeTable::OwnKeys() {
  if (static_cast<int32_t>(keys_.size()) != size_) keys_ = keys();
}

void AttributeTable::Grow() {
  std::size_t capacity = slots_.empty() ? 1024 : slots_.size() * 2;
  std::vector<Slot> slots(capacity, Slot{0, -1});
  std::size_t mask = capacity - 1;
  for (std::size_t id = 0; id < keys_.size(); ++id) {
    std::size_t i = keys_[id] & mask;
    while (slots[i].key != 0) i = (i + 1) & mask;
    slots[i] = Slot{keys_[id], static_cast<int32_t>(id)};
  }
  slots_ = std::move(slots);
}

void AttributeTable::Rebuild(std::vector<uint64_t> keys) {
  // Sized once for all keys, so loading a model never rehashes; filled to at most 2/3 (not
  // Insert's 1/2): a loaded model is only looked up, and half the memory of a table filled
  // to under 1/3 costs fewer cache misses than the slightly longer probes.
  std::size_t capacity = 1024;
  while (keys.size() * 3 > capacity * 2) capacity *= 2;
  std::vector<Slot> slots(capacity, Slot{0, -1});
  const std::size_t mask = capacity - 1;
  for (std::size_t id = 0; id < keys.size(); ++id) {
    const uint64_t k = keys[id];
    if (k == 0) throw InputError("model payload: duplicate or invalid attribute key");
    std::size_t i = k & mask;
    while (slots[i].key != 0) {
      if (slots[i].key == k) throw InputError("model payload: duplicate or invalid attribute key");
      i = (i + 1) & mask;
    }
    slots[i] = Slot{k, static_cast<int32_t>(id)};
  }
  slots_ = std::move(slots);  // a larger old table is freed
  keys_ = std::move(keys);
  size_ = static_cast<int32_t>(keys_.size());
}

void AttributeTable::UseSlots(FlatArray<Slot> slots, int32_t count) {
  const std::size_t n = slots.size();
  auto bad = [] { throw InputError("model payload: bad attribute slot table"); };
  if (count < 0 || (n == 0 && count > 0) || (n & (n - 1)) != 0 ||
      static_cast<std::size_t>(count) >= n + (n == 0))
    bad();
  // Every key must be found by probing from its home slot: no empty slot lies between the
  // two. Walking once around from an empty slot, `run` is the length of the occupied run
  // ending here; a key further than that from its home would never be found.
  std::size_t start = 0;
  while (start < n && slots[start].key != 0) ++start;
  std::vector<bool> seen(count, false);
  const std::size_t mask = n - 1;
  std::size_t run = 0;
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t i = (start + step) & mask;
    const Slot& s = slots[i];
    if (s.key == 0) {
      if (s.id != -1) bad();
      run = 0;
      continue;
    }
    ++run;
    if (s.id < 0 || s.id >= count || seen[s.id]) bad();
    seen[s.id] = true;
    if (((i - (s.key & mask)) & mask) >= run) bad();
  }
  int32_t found = 0;
  for (bool b : seen) found += b;
  if (found != count) bad();
  slots_ = std::move(slots);
  keys_.clear();
  size_ = count;
}

}  // namespace structrank
