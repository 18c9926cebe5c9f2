// Many tagged sequences in flat arrays: per token an interned label id, word id and
// word-class id (for the Sim2 term; -1 when the word has no class), and per sequence its
// positions sorted by label, so kernels can merge two sequences' equal-label positions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/vocabulary.h"
#include "kernels/word_features.h"

namespace structrank {

struct TaggedSequences {
  std::vector<std::string> symbols;  // local symbol table (labels, words, word classes)
  std::vector<int32_t> label;        // per token
  std::vector<int32_t> word;         // per token
  std::vector<int32_t> word_class;   // per token, optional (empty = compute with `feature`)
  std::vector<int32_t> length;       // tokens per sequence
};

struct SequenceView {
  int32_t size = 0;
  const int32_t* label = nullptr;
  const int32_t* word = nullptr;
  const int32_t* word_class = nullptr;  // -1 = no class
  // Positions sorted by (label, position), grouped by distinct label: group g holds
  // sorted_pos[group_start[g] .. group_start[g+1]) and has label group_label[g].
  const int32_t* sorted_pos = nullptr;
  int32_t num_groups = 0;
  const int32_t* group_label = nullptr;
  const int32_t* group_start = nullptr;
};

class SequenceBank {
 public:
  // `feature` names the word-class function (kNone: no Sim2 classes); `feature_name`
  // identifies a caller-supplied function when word_class ids are given.
  SequenceBank(WordFeature feature, std::string feature_name,
               std::shared_ptr<KernelVocabulary> vocabulary = KernelVocabulary::Shared())
      : vocabulary_(std::move(vocabulary)), feature_(feature), feature_name_(std::move(feature_name)) {}

  // Appends sequences; throws InputError for an empty sequence or a bad encoding.
  void Add(const TaggedSequences& in);

  std::size_t size() const { return begin_.size() - 1; }
  SequenceView Sequence(std::size_t i) const;
  std::size_t StorageBytes() const;
  int64_t total_tokens() const { return begin_.back(); }
  const KernelVocabulary* vocabulary() const { return vocabulary_.get(); }
  const std::string& feature_name() const { return feature_name_; }

 private:
  std::shared_ptr<KernelVocabulary> vocabulary_;
  WordFeature feature_;
  std::string feature_name_;
  std::vector<int32_t> begin_{0};
  std::vector<int32_t> label_, word_, word_class_;
  std::vector<int32_t> sorted_pos_;
  std::vector<int32_t> seq_group_begin_{0};  // first group of each sequence
  std::vector<int32_t> group_label_;
  std::vector<int32_t> group_start_;  // per group, then one end entry per sequence
};

}  // namespace structrank
