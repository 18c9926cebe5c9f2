// Unicode-aware word shapes and unknown-word signatures for any language. Letters are
// classified from UTF-8 code points (case for Latin, Greek, Cyrillic, Armenian and the
// other bicameral blocks below; every other letter is caseless), and the suffixes that a
// signature may carry are chosen from training words, not from a list for one language.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

enum class CharClass : uint8_t { kUpper, kLower, kLetter, kDigit, kPunct, kSpace, kOther };

// Decodes the code point at s[at] and advances `at`; a malformed byte is U+FFFD (one byte).
uint32_t NextCodepoint(std::string_view s, size_t& at);
void AppendUtf8(uint32_t cp, std::string& out);
CharClass ClassOf(uint32_t cp);
// Simple (one-to-one) lowercasing of the bicameral blocks ClassOf knows.
uint32_t LowerCodepoint(uint32_t cp);
std::string LowerUtf8(std::string_view word);
// Number of code points.
size_t Utf8Length(std::string_view word);

// The word's shape: X upper, x lower, L caseless letter, d digit, _ space, any other
// character as itself; a run of one class is one symbol: "McDonald" -> "XxXx",
// "1,234.5" -> "d,d.d", "Émile" -> "Xx". At most max_len symbols (0 = no limit).
std::string WordShape(std::string_view word, size_t max_len = 0);

// Suffixes (1 .. max_len code points, lowercased) seen on at least min_types distinct
// words, learned from (word, count) pairs; only words of at most max_count tokens vote,
// i.e. the rare words that unknown words resemble.
class SuffixSet {
 public:
  struct Options {
    int max_len = 3;
    int min_types = 20;
    double max_count = 5;
    size_t max_suffixes = 300;
  };
  void Learn(const std::vector<std::pair<std::string, double>>& word_counts, const Options& options);
  // Learn with the default options.
  void Learn(const std::vector<std::pair<std::string, double>>& word_counts) { Learn(word_counts, Options()); }
  // The longest learned suffix of the lowercased word that leaves at least two code
  // points before it, or "" if none.
  std::string Longest(std::string_view lower) const;
  bool empty() const { return suffixes_.empty(); }
  const std::vector<std::string>& suffixes() const { return suffixes_; }
  void Write(ByteWriter& out) const;
  static SuffixSet Read(ByteReader& in);

 private:
  std::vector<std::string> suffixes_;  // sorted, for binary search
  int max_len_ = 0;
};

// An unknown-word signature: "UNK", the capitalisation ("-INITC" for a capitalised first
// word of a sentence, "-CAP", "-CAPS", "-LC", "-L" caseless letters), "-NUM" if it has a
// digit, "-DASH" if it has a dash, "-PUNCT" if it is punctuation only, and the longest
// learned suffix.
std::string UnknownSignature(std::string_view word, bool sentence_initial, const SuffixSet& suffixes);

}  // namespace structrank
