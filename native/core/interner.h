// Maps strings to dense int32 ids, once; the id is the index into names().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace structrank {

class Interner {
 public:
  // Returns the id of `s`, adding it if new.
  int32_t Intern(std::string_view s);
  // Returns the id of `s`, or -1 if it was never interned.
  int32_t Find(std::string_view s) const;
  const std::string& Name(int32_t id) const { return names_[id]; }
  int32_t size() const { return static_cast<int32_t>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  // The map owns its own copy of each key: names_ may reallocate and move its strings.
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> names_;
};

}  // namespace structrank
