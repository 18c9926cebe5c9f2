#include "core/word_signature.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/errors.h"

namespace structrank {

uint32_t NextCodepoint(std::string_view s, size_t& at) {
  const auto byte = [&](size_t q) { return static_cast<unsigned char>(s[q]); };
  const unsigned char c = byte(at);
  int extra = 0;
  uint32_t cp = 0;
  if (c < 0x80) return ++at, c;
  if ((c & 0xE0) == 0xC0)
    extra = 1, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    extra = 2, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    extra = 3, cp = c & 0x07;
  else
    return ++at, 0xFFFD;
  if (at + extra >= s.size()) return ++at, 0xFFFD;
  for (int q = 1; q <= extra; ++q)
    if ((byte(at + q) & 0xC0) != 0x80) return ++at, 0xFFFD;
  for (int q = 1; q <= extra; ++q) cp = (cp << 6) | (byte(at + q) & 0x3F);
  at += extra + 1;
  return cp;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {
struct ClassRange {
  uint32_t first, last;
  int32_t lower_delta;  // a capital's simple lower case minus the capital (0: none)
  uint8_t cls;          // CharClass
};
#include "core/unicode_classes.inc"

// The range holding cp (from U+0100 up), or null for a caseless letter.
const ClassRange* FindClassRange(uint32_t cp) {
  const ClassRange* end = kClassRanges + sizeof(kClassRanges) / sizeof(kClassRanges[0]);
  const ClassRange* r =
      std::upper_bound(kClassRanges, end, cp, [](uint32_t c, const ClassRange& x) { return c < x.first; });
  return r != kClassRanges && cp <= (r - 1)->last ? r - 1 : nullptr;
}

// The classes of the Basic Multilingual Plane, one byte each (64 KiB, built once): every
// script's text is classified without a search; only capitals search, for their lower case.
const uint8_t* BmpClasses() {
  static const std::vector<uint8_t> table = [] {
    std::vector<uint8_t> t(0x10000, static_cast<uint8_t>(CharClass::kLetter));
    for (const ClassRange& r : kClassRanges)
      for (uint32_t cp = r.first; cp <= r.last && cp < 0x10000; ++cp) t[cp] = r.cls;
    return t;
  }();
  return table.data();
}
}  // namespace

CharClass ClassOf(uint32_t cp) {
  if (cp < 0x80) {
    if (cp >= 'A' && cp <= 'Z') return CharClass::kUpper;
    if (cp >= 'a' && cp <= 'z') return CharClass::kLower;
    if (cp >= '0' && cp <= '9') return CharClass::kDigit;
    if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return CharClass::kSpace;
    if (cp < 0x20 || cp == 0x7F) return CharClass::kOther;
    return CharClass::kPunct;
  }
  // Latin-1: the ordinal indicators ª and º count as lower case (as in "1ª", "nº").
  if (cp < 0xC0)
    return cp == 0xAA || cp == 0xB5 || cp == 0xBA ? CharClass::kLower
           : cp == 0xA0                           ? CharClass::kSpace
                                                  : CharClass::kPunct;
  if (cp <= 0xFF) {
    if (cp == 0xD7 || cp == 0xF7) return CharClass::kPunct;
    return cp <= 0xDE ? CharClass::kUpper : CharClass::kLower;
  }
  if (cp < 0x10000) return static_cast<CharClass>(BmpClasses()[cp]);
  const ClassRange* r = FindClassRange(cp);
  return r != nullptr ? static_cast<CharClass>(r->cls) : CharClass::kLetter;
}

uint32_t LowerCodepoint(uint32_t cp) {
  if (ClassOf(cp) != CharClass::kUpper) return cp;
  if (cp <= 0xFF) return cp + 32;  // A-Z and À-Þ
  const ClassRange* r = FindClassRange(cp);
  return r != nullptr ? static_cast<uint32_t>(static_cast<int64_t>(cp) + r->lower_delta) : cp;
}

std::string LowerUtf8(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  for (size_t at = 0; at < word.size();) AppendUtf8(LowerCodepoint(NextCodepoint(word, at)), out);
  return out;
}

size_t Utf8Length(std::string_view word) {
  size_t n = 0;
  for (size_t at = 0; at < word.size(); ++n) NextCodepoint(word, at);
  return n;
}

bool IsCombiningMark(uint32_t cp) {
  return (cp >= 0x300 && cp <= 0x36F) || (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) ||
         (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0xFE20 && cp <= 0xFE2F);
}

char ShapeSymbol(uint32_t cp) {
  switch (ClassOf(cp)) {
    case CharClass::kUpper:
      return 'X';
    case CharClass::kLower:
      return 'x';
    case CharClass::kLetter:
      return 'L';
    case CharClass::kDigit:
      return 'd';
    case CharClass::kSpace:
      return '_';
    default:
      return 0;
  }
}

std::string WordShape(std::string_view word, ShapeRuns runs, size_t max_len) {
  std::string out;
  uint32_t last = 0;  // the previous character's key: its symbol above Unicode's range, or itself
  size_t symbols = 0;
  for (size_t at = 0; at < word.size();) {
    const uint32_t cp = NextCodepoint(word, at);
    if (IsCombiningMark(cp) && !out.empty()) continue;
    const char sym = ShapeSymbol(cp);
    const uint32_t key = sym != 0 ? 0x110000u + static_cast<unsigned char>(sym) : cp;
    const bool merge =
        key == last && (runs == ShapeRuns::kAllRuns || (runs == ShapeRuns::kClassRuns && sym != 0));
    last = key;
    if (merge) continue;
    if (sym != 0)
      out += sym;
    else
      AppendUtf8(cp, out);
    if (max_len > 0 && ++symbols >= max_len) break;
  }
  return out;
}

std::string_view FirstCodepoints(std::string_view word, size_t n) {
  size_t end = 0;
  for (size_t k = 0; k < n; ++k) {
    if (end >= word.size()) return {};
    NextCodepoint(word, end);
  }
  return word.substr(0, end);
}

std::string_view LastCodepoints(std::string_view word, size_t n) {
  size_t start = word.size();
  for (size_t k = 0; k < n; ++k) {
    if (start == 0) return {};
    --start;
    while (start > 0 && (static_cast<unsigned char>(word[start]) & 0xC0) == 0x80) --start;
  }
  return word.substr(start);
}

bool StartsUpper(std::string_view word) {
  size_t at = 0;
  return !word.empty() && ClassOf(NextCodepoint(word, at)) == CharClass::kUpper;
}

namespace {
bool IsDash(uint32_t cp) { return cp == '-' || (cp >= 0x2010 && cp <= 0x2014); }
}  // namespace

bool HasDash(std::string_view word) {
  for (size_t at = 0; at < word.size();)
    if (IsDash(NextCodepoint(word, at))) return true;
  return false;
}

bool HasDigit(std::string_view word) {
  for (size_t at = 0; at < word.size();)
    if (ClassOf(NextCodepoint(word, at)) == CharClass::kDigit) return true;
  return false;
}

void SuffixSet::Learn(const std::vector<std::pair<std::string, double>>& word_counts,
                      const Options& options) {
  std::map<std::string, int> types;
  for (const auto& [word, count] : word_counts) {
    if (count > options.max_count) continue;
    const std::string lower = LowerUtf8(word);
    std::vector<size_t> starts;  // byte offsets of the code points
    for (size_t at = 0; at < lower.size();) {
      starts.push_back(at);
      const uint32_t cp = NextCodepoint(lower, at);
      const CharClass c = ClassOf(cp);
      if (c != CharClass::kLower && c != CharClass::kLetter)
        starts.clear(), starts.push_back(at);  // letters only
    }
    if (!starts.empty() && starts.back() == lower.size()) starts.pop_back();
    const int n = static_cast<int>(starts.size());
    for (int len = 1; len <= options.max_len && len + 2 <= n; ++len) types[lower.substr(starts[n - len])]++;
  }
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& [suffix, count] : types)
    if (count >= options.min_types) ranked.emplace_back(-count, suffix);
  std::sort(ranked.begin(), ranked.end());
  if (ranked.size() > options.max_suffixes) ranked.resize(options.max_suffixes);
  suffixes_.clear();
  for (const auto& r : ranked) suffixes_.push_back(r.second);
  std::sort(suffixes_.begin(), suffixes_.end());
  max_len_ = options.max_len;
}

std::string SuffixSet::Longest(std::string_view lower) const {
  if (suffixes_.empty()) return "";
  std::vector<size_t> starts;
  for (size_t at = 0; at < lower.size();) starts.push_back(at), NextCodepoint(lower, at);
  const int n = static_cast<int>(starts.size());
  for (int len = std::min(max_len_, n - 2); len >= 1; --len) {
    const std::string suffix(lower.substr(starts[n - len]));
    if (std::binary_search(suffixes_.begin(), suffixes_.end(), suffix)) return suffix;
  }
  return "";
}

void SuffixSet::Write(ByteWriter& out) const {
  out.Put<int32_t>(max_len_);
  out.Put<int32_t>(static_cast<int32_t>(suffixes_.size()));
  for (const auto& s : suffixes_) out.PutString(s);
}

SuffixSet SuffixSet::Read(ByteReader& in) {
  SuffixSet s;
  s.max_len_ = in.Get<int32_t>();
  const int32_t n = in.Get<int32_t>();
  if (s.max_len_ < 0 || s.max_len_ > 64 || n < 0 || n > 1000000) throw InputError("suffix set: corrupt");
  for (int32_t a = 0; a < n; ++a) s.suffixes_.push_back(in.GetString());
  if (!std::is_sorted(s.suffixes_.begin(), s.suffixes_.end())) throw InputError("suffix set: corrupt");
  return s;
}

std::string UnknownSignature(std::string_view word, bool sentence_initial, const SuffixSet& suffixes) {
  bool first_upper = false, has_lower = false, has_caseless = false, has_digit = false, has_dash = false,
       all_punct = true;
  bool first = true;
  for (size_t at = 0; at < word.size();) {
    const uint32_t cp = NextCodepoint(word, at);
    const CharClass c = ClassOf(cp);
    if (first && c == CharClass::kUpper) first_upper = true;
    first = false;
    has_lower |= c == CharClass::kLower;
    has_caseless |= c == CharClass::kLetter;
    has_digit |= c == CharClass::kDigit;
    has_dash |= IsDash(cp);
    all_punct &= c == CharClass::kPunct;
  }
  std::string sig = "UNK";
  if (first_upper)
    sig += has_lower ? (sentence_initial ? "-INITC" : "-CAP") : "-CAPS";
  else if (has_lower)
    sig += "-LC";
  else if (has_caseless)
    sig += "-L";
  if (has_digit) sig += "-NUM";
  if (has_dash) sig += "-DASH";
  if (all_punct && !word.empty()) sig += "-PUNCT";
  const std::string suffix = suffixes.Longest(LowerUtf8(word));
  if (!suffix.empty()) sig += "-" + suffix;
  return sig;
}

}  // namespace structrank
