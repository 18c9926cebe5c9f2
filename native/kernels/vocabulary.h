// The symbols (labels, words, word classes) and productions that tree and sequence banks
// share: two banks can only be compared when they intern into the same vocabulary, so
// that equal ids mean equal strings. Interning takes the vocabulary's lock (hold a Batch
// while interning many); kernels never touch the vocabulary.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/interner.h"

namespace structrank {

// Sequences of int32 ids -> dense ids, in an open-addressing table over flat key storage
// (no allocation per lookup).
class SequenceInterner {
 public:
  int32_t Intern(const int32_t* ids, std::size_t count);
  int32_t size() const { return static_cast<int32_t>(key_begin_.size()) - 1; }

 private:
  bool Equal(int32_t id, const int32_t* ids, std::size_t count) const;
  void Grow();
  std::vector<int32_t> keys_;                                    // all keys, concatenated
  std::vector<int64_t> key_begin_{0};                            // key id -> offset into keys_
  std::vector<uint64_t> hashes_;                                 // key id -> hash
  std::vector<int32_t> slots_ = std::vector<int32_t>(1024, -1);  // open addressing, -1 = empty
};

class KernelVocabulary {
 public:
  // Holds the lock for a run of Symbol/Production calls.
  class Batch {
   public:
    explicit Batch(KernelVocabulary& v) : v_(v), lock_(v.mutex_) {}
    int32_t Symbol(std::string_view s) { return v_.symbols_.Intern(s); }
    // A production is a sequence of symbol ids (with a kind marker).
    int32_t Production(const int32_t* ids, std::size_t count) { return v_.productions_.Intern(ids, count); }

   private:
    KernelVocabulary& v_;
    std::lock_guard<std::mutex> lock_;
  };

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
  SequenceInterner productions_;
};

}  // namespace structrank
