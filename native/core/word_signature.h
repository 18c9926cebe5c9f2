// Unicode-aware word shapes and unknown-word signatures for any language. Character classes
// (case, digits, spaces, punctuation and symbols) follow Unicode in every script
// (core/unicode_classes.inc, generated from Unicode's tables by scripts/unicode-tables.mjs);
// letters without case, marks and format characters are caseless letters. The suffixes that
// a signature may carry are chosen from training words, not from a list for one language.
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
// Simple (one-to-one) lowercasing: Unicode's, where it is one code point.
uint32_t LowerCodepoint(uint32_t cp);
std::string LowerUtf8(std::string_view word);
// Number of code points.
size_t Utf8Length(std::string_view word);

// A combining mark (accents of decomposed text): it belongs to the character before it.
bool IsCombiningMark(uint32_t cp);
// A code point's shape symbol: 'X' upper, 'x' lower, 'L' caseless letter, 'd' digit, '_'
// space; 0 for any other character, which a shape writes as itself.
char ShapeSymbol(uint32_t cp);

// How a shape writes runs of one symbol. kEach: every character ("McCain-22" ->
// "XxXxxx-dd"); kClassRuns: a run of one letter or digit class once ("XxXx-d"); kAllRuns:
// also a run of one other character once ("..." -> ".", which kClassRuns keeps).
enum class ShapeRuns : uint8_t { kEach, kClassRuns, kAllRuns };

// The word's shape, the one definition every feature set uses (parser, taggers, tagging
// kernels, rerankers): "McDonald" -> "XxXx", "1,234.5" -> "d,d.d", "Émile" -> "Xx",
// "東京" -> "L". Combining marks stay with their character. At most max_len symbols (0 = no
// limit).
std::string WordShape(std::string_view word, ShapeRuns runs = ShapeRuns::kClassRuns, size_t max_len = 0);

// The first / last n code points of the word, or "" when it has fewer.
std::string_view FirstCodepoints(std::string_view word, size_t n);
std::string_view LastCodepoints(std::string_view word, size_t n);
// Whether the first code point is an upper-case letter; whether any code point is a digit;
// whether any is a hyphen or dash (ASCII '-', U+2010-U+2014).
bool StartsUpper(std::string_view word);
bool HasDigit(std::string_view word);
bool HasDash(std::string_view word);

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
  void Learn(const std::vector<std::pair<std::string, double>>& word_counts) {
    Learn(word_counts, Options());
  }
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
