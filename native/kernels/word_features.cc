#include "kernels/word_features.h"

#include "core/errors.h"
#include "core/word_signature.h"

namespace structrank {

WordFeature WordFeatureByName(std::string_view name) {
  if (name == "caps") return WordFeature::kCaps;
  if (name == "digits") return WordFeature::kDigits;
  if (name == "suffix2") return WordFeature::kSuffix2;
  if (name == "suffix3") return WordFeature::kSuffix3;
  if (name == "shape") return WordFeature::kShape;
  throw InputError("unknown word feature '" + std::string(name) +
                   "' (caps, digits, suffix2, suffix3, shape)");
}

const char* WordFeatureName(WordFeature f) {
  switch (f) {
    case WordFeature::kCaps:
      return "caps";
    case WordFeature::kDigits:
      return "digits";
    case WordFeature::kSuffix2:
      return "suffix2";
    case WordFeature::kSuffix3:
      return "suffix3";
    case WordFeature::kShape:
      return "shape";
    default:
      return "none";
  }
}

std::string WordClass(WordFeature f, std::string_view w) {
  switch (f) {
    case WordFeature::kCaps:
      return StartsUpper(w) ? "Cap" : "";
    case WordFeature::kDigits:
      return HasDigit(w) ? "Digit" : "";
    case WordFeature::kSuffix2:
    case WordFeature::kSuffix3: {
      const std::size_t k = f == WordFeature::kSuffix2 ? 2 : 3;
      if (Utf8Length(w) < k + 1) return "";
      return LowerUtf8(LastCodepoints(w, k));
    }
    case WordFeature::kShape:
      return WordShape(w, ShapeRuns::kAllRuns);
    default:
      return "";
  }
}

}  // namespace structrank
