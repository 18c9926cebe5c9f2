// The symbols (labels, words, word classes) and productions that tree and sequence banks
// share: two banks can only be compared when they intern into the same vocabulary, so
// that equal ids mean equal strings. Interning takes a lock; kernels never touch it.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

#include "core/interner.h"

namespace structrank {

class KernelVocabulary {
 public:
  int32_t Symbol(std::string_view s) {
    std::lock_guard<std::mutex> lock(mutex_);
    return symbols_.Intern(s);
  }
  // A production is a sequence of symbol ids (with a kind marker), interned as bytes.
  int32_t Production(const int32_t* ids, std::size_t count) {
    std::string_view key(reinterpret_cast<const char*>(ids), count * sizeof(int32_t));
    std::lock_guard<std::mutex> lock(mutex_);
    return productions_.Intern(key);
  }
  int32_t num_productions() {
    std::lock_guard<std::mutex> lock(mutex_);
    return productions_.size();
  }

  // The vocabulary the addon uses unless a caller builds its own.
  static std::shared_ptr<KernelVocabulary> Shared() {
    static std::shared_ptr<KernelVocabulary> shared = std::make_shared<KernelVocabulary>();
    return shared;
  }

 private:
  std::mutex mutex_;
  Interner symbols_;
  Interner productions_;
};

}  // namespace structrank
