// Feature templates over a token's history, expanded into attribute ids.
// A template is a conjunction of atoms (a column's value at an offset, its lowercase,
// prefix, suffix, shape, a flag or a word cluster). Each expanded attribute is a 64-bit
// hash of (template, atom values), interned once into a dense int32 id, so the training
// loops only ever see int arrays.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/byte_io.h"
#include "core/attribute_table.h"
#include "core/flat_array.h"

namespace structrank {

enum class AtomKind : int32_t {
  kBias = 0,
  kField = 1,       // the column's text
  kLower = 2,       // lowercased (Unicode-aware: Latin, Greek, Cyrillic, Armenian, ...)
  kPrefix = 3,      // first `param` code points
  kSuffix = 4,      // last `param` code points
  kShape = 5,       // X upper, x lower, L caseless letter (CJK, Arabic, ...), d digit, ASCII
                    // punctuation kept, other symbols ~: "McCain-2" -> "XxXxxx-d"
  kShortShape = 6,  // shape with runs collapsed: "XxXx-d"
  kInitCap = 7,     // flags: present only when true
  kAllCap = 8,
  kHasDigit = 9,
  kHasHyphen = 10,
  kAllDigit = 11,
  kCluster = 12,  // cluster of the column's text; param > 0 keeps a prefix of that length
  kPrevTag = 13,  // marks an edge template: conjoined with the (previous tag, tag) pair
  kTagSet = 14,   // ambiguity class: the labels seen with the lowercased text in training,
                  // for texts seen at least `param` times (rarer and unseen texts share one
                  // value, so training words look like test words: no label leakage)
  kCount = 15,
};

struct TemplateAtom {
  AtomKind kind;
  int32_t column;
  int32_t offset;
  int32_t param;
};

struct FeatureTemplate {
  std::vector<TemplateAtom> atoms;
  // Edge template: its attributes pair with (previous tag, tag) instead of the tag alone
  // (CRF++'s "B" templates with observations, e.g. previous tag x current word).
  bool edge = false;
};

struct SentenceFields;

struct FeatureConfig {
  int32_t num_columns = 1;  // input columns per token (the label is not among them)
  std::vector<FeatureTemplate> templates;
  std::unordered_map<std::string, std::string> clusters;  // word -> cluster bit string
  // Tag dictionary for kTagSet atoms: "column<TAB>lowercased text" -> its training count and
  // the sorted labels seen with it, joined by '|'. Built from the training labels.
  struct TagSet {
    int32_t count = 0;
    std::string tags;
  };
  using TagSets = std::unordered_map<std::string, TagSet>;
  TagSets tagsets;

  bool UsesTagSets() const;
  // A tag dictionary from training sentences and their labels (one column each); with
  // `skip_fold` >= 0, sentence s is left out when s % folds == skip_fold (jackknifing).
  TagSets BuildTagSets(const std::vector<SentenceFields>& sentences,
                       const std::vector<SentenceFields>& labels, int32_t folds = 1,
                       int32_t skip_fold = -1) const;
  void SerializeTagSets(ByteWriter& w) const;
  void DeserializeTagSets(ByteReader& r);

  // Flat encoding used by the binding: [count, (atoms, (kind, column, offset, param)*)*].
  static FeatureConfig FromInts(const int32_t* data, std::size_t size, int32_t num_columns);
  void Serialize(ByteWriter& w) const;
  static FeatureConfig Deserialize(ByteReader& r);
};

// One sentence's input: fields[token * num_columns + column].
struct SentenceFields {
  int32_t length = 0;
  std::vector<std::string_view> fields;
};

// Calls emit(token, key, edge) for every attribute of every token of the sentence.
class FeatureExtractor {
 public:
  explicit FeatureExtractor(const FeatureConfig& config) : config_(config), tagsets_(&config.tagsets) {}
  // Uses another tag dictionary (a training fold's jackknifed one) for kTagSet atoms.
  void UseTagSets(const FeatureConfig::TagSets* tagsets) { tagsets_ = tagsets ? tagsets : &config_.tagsets; }
  template <typename Emit>
  void Extract(const SentenceFields& s, Emit&& emit) {
    // Keys are computed template by template over the sentence, then given token by token:
    // one template's keys at consecutive tokens take the same branches, so the CPU runs the
    // next key's hash chain while the current one waits on its multiplies.
    const std::size_t T = config_.templates.size();
    keys_.resize(T * static_cast<std::size_t>(s.length));
    found_.resize(keys_.size());
    for (std::size_t t = 0; t < T; ++t) {
      for (int32_t i = 0; i < s.length; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * T + t;
        found_[at] = Key(s, i, static_cast<int32_t>(t), keys_[at]);
      }
    }
    for (int32_t i = 0; i < s.length; ++i) {
      for (std::size_t t = 0; t < T; ++t) {
        const std::size_t at = static_cast<std::size_t>(i) * T + t;
        if (found_[at]) emit(i, keys_[at], config_.templates[t].edge);
      }
    }
  }

 private:
  bool Key(const SentenceFields& s, int32_t i, int32_t t, uint64_t& key);
  const FeatureConfig& config_;
  const FeatureConfig::TagSets* tagsets_;
  std::string buffer_;
  std::vector<uint64_t> keys_;  // [token * templates + template]
  std::vector<uint8_t> found_;
};

// Parses text of token lines (fields separated by tabs) with a blank line after each
// sentence. The views point into `text`.
std::vector<SentenceFields> SplitSentences(std::string_view text, int32_t num_columns);

}  // namespace structrank
