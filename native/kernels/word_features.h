// Word-feature functions for the Sim2 term of the tagging kernel: each maps a word to a
// class, or to "" when the word has none. Sim2(w1, w2) = 1 iff both have the same
// non-empty class (e.g. "caps": both capitalized).
#pragma once
#include <string>
#include <string_view>

namespace structrank {

enum class WordFeature { kNone, kCaps, kDigits, kSuffix2, kSuffix3, kShape };

// "caps", "digits", "suffix2", "suffix3", "shape"; throws InputError for other names.
WordFeature WordFeatureByName(std::string_view name);
const char* WordFeatureName(WordFeature f);

// In any script (core/word_signature.h): caps: "Cap" when the first character is an
// upper-case letter; digits: "Digit" when the word has a digit; suffix2 / suffix3: the last
// 2 / 3 characters lower-cased (words of at least 3 / 4 characters); shape: the word's shape
// with every run written once.
std::string WordClass(WordFeature f, std::string_view word);

}  // namespace structrank
