#include "kernels/sequence_bank.h"

#include <algorithm>
#include <numeric>

#include "core/errors.h"

namespace structrank {

void SequenceBank::Add(const TaggedSequences& in) {
  const std::size_t total = in.label.size();
  if (in.word.size() != total) throw InputError("sequence encoding: label and word arrays differ in length");
  if (!in.word_class.empty() && in.word_class.size() != total)
    throw InputError("sequence encoding: word-class array has the wrong length");
  std::size_t sum = 0;
  for (int32_t n : in.length) {
    if (n <= 0) throw InputError("empty sequence: a sequence needs at least one token");
    sum += static_cast<std::size_t>(n);
  }
  if (sum != total) throw InputError("sequence encoding: lengths do not add up to the token count");
  if (static_cast<int64_t>(total) + total_tokens() > INT32_MAX) throw InputError("sequence bank too large");

  const int32_t num_symbols = static_cast<int32_t>(in.symbols.size());
  KernelVocabulary::Batch vocabulary(*vocabulary_);
  std::vector<int32_t> global(in.symbols.size()), klass(in.symbols.size(), -1);
  for (int32_t s = 0; s < num_symbols; ++s) global[s] = vocabulary.Symbol(in.symbols[s]);
  auto symbol = [&](int32_t local) {
    if (local < 0 || local >= num_symbols) throw InputError("sequence encoding: symbol id out of range");
    return global[local];
  };
  // Word classes live in their own namespace of the vocabulary (a \x1f prefix).
  auto class_id = [&](const std::string& c) { return c.empty() ? -1 : vocabulary.Symbol("\x1f" + c); };
  if (in.word_class.empty() && feature_ != WordFeature::kNone)
    for (int32_t s = 0; s < num_symbols; ++s) klass[s] = class_id(WordClass(feature_, in.symbols[s]));

  for (std::size_t t = 0; t < total; ++t) {
    label_.push_back(symbol(in.label[t]));
    word_.push_back(symbol(in.word[t]));
    if (!in.word_class.empty()) {
      const int32_t c = in.word_class[t];
      if (c >= num_symbols) throw InputError("sequence encoding: word-class id out of range");
      word_class_.push_back(c < 0 ? -1 : class_id(in.symbols[c]));
    } else
      word_class_.push_back(klass[in.word[t]]);
  }
  std::vector<int32_t> order;
  for (int32_t n : in.length) {
    const int32_t base = begin_.back();
    const int32_t* label = label_.data() + base;
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int32_t x, int32_t y) { return label[x] != label[y] ? label[x] < label[y] : x < y; });
    for (int32_t k = 0; k < n; ++k) {
      sorted_pos_.push_back(order[k]);
      if (k == 0 || label[order[k - 1]] != label[order[k]]) {
        group_label_.push_back(label[order[k]]);
        group_start_.push_back(k);
      }
    }
    group_start_.push_back(n);
    seq_group_begin_.push_back(static_cast<int32_t>(group_label_.size()));
    begin_.push_back(base + n);
  }
}

SequenceView SequenceBank::Sequence(std::size_t i) const {
  SequenceView v;
  v.size = begin_[i + 1] - begin_[i];
  v.label = label_.data() + begin_[i];
  v.word = word_.data() + begin_[i];
  v.word_class = word_class_.data() + begin_[i];
  v.sorted_pos = sorted_pos_.data() + begin_[i];
  const int32_t g = seq_group_begin_[i];
  v.num_groups = seq_group_begin_[i + 1] - g;
  v.group_label = group_label_.data() + g;
  v.group_start = group_start_.data() + g + i;  // each earlier sequence added one end entry
  return v;
}

std::size_t SequenceBank::StorageBytes() const {
  return sizeof(int32_t) *
         (begin_.size() + label_.size() + word_.size() + word_class_.size() + sorted_pos_.size() +
          seq_group_begin_.size() + group_label_.size() + group_start_.size());
}

}  // namespace structrank
