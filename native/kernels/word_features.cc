#include "kernels/word_features.h"

#include "core/errors.h"

namespace structrank {

WordFeature WordFeatureByName(std::string_view name) {
  if (name == "caps") return WordFeature::kCaps;
  if (name == "digits") return WordFeature::kDigits;
  if (name == "suffix2") return WordFeature::kSuffix2;
  if (name == "suffix3") return WordFeature::kSuffix3;
  if (name == "shape") return WordFeature::kShape;
  throw InputError("unknown word feature '" + std::string(name) + "' (caps, digits, suffix2, suffix3, shape)");
}

const char* WordFeatureName(WordFeature f) {
  switch (f) {
    case WordFeature::kCaps: return "caps";
    case WordFeature::kDigits: return "digits";
    case WordFeature::kSuffix2: return "suffix2";
    case WordFeature::kSuffix3: return "suffix3";
    case WordFeature::kShape: return "shape";
    default: return "none";
  }
}

namespace {
bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Lower(char c) { return c >= 'a' && c <= 'z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

std::string WordClass(WordFeature f, std::string_view w) {
  switch (f) {
    case WordFeature::kCaps:
      return !w.empty() && Upper(w[0]) ? "Cap" : "";
    case WordFeature::kDigits:
      for (char c : w)
        if (Digit(c)) return "Digit";
      return "";
    case WordFeature::kSuffix2:
    case WordFeature::kSuffix3: {
      std::size_t k = f == WordFeature::kSuffix2 ? 2 : 3;
      if (w.size() < k + 1) return "";
      std::string s(w.substr(w.size() - k));
      for (char& c : s)
        if (Upper(c)) c = static_cast<char>(c - 'A' + 'a');
      return s;
    }
    case WordFeature::kShape: {
      std::string s;
      for (char c : w) {
        char m = Upper(c) ? 'X' : Lower(c) ? 'x' : Digit(c) ? 'd' : c;
        if (s.empty() || s.back() != m) s.push_back(m);
      }
      return s;
    }
    default:
      return "";
  }
}

}  // namespace structrank
