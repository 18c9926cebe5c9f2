#include "chart/gold_tree.h"

#include <string>

#include "core/errors.h"

namespace structrank {

namespace {
struct Decoder {
  const int32_t* pairs;
  int32_t num_pairs, num_symbols;
  int32_t next = 0, word = 0;
  GoldItems items;

  // Returns the label of the node read; `end` receives the span end.
  int32_t Read(int depth, bool under_unary, int32_t& end) {
    if (next >= num_pairs) throw InputError("chart tree encoding is truncated");
    if (depth > 100000) throw InputError("chart tree is too deep");
    const int32_t label = pairs[2 * next], arity = pairs[2 * next + 1];
    ++next;
    if (label < 0 || label >= num_symbols)
      throw InputError("chart tree has a bad symbol id " + std::to_string(label));
    const int32_t start = word;
    if (arity == 0) {
      items.lex.push_back({label, word});
      ++word;
    } else if (arity == 1) {
      if (under_unary) throw InputError("chart tree has two unary rules over one span");
      int32_t child_end;
      const int32_t child = Read(depth + 1, true, child_end);
      items.unary.push_back({label, child, start, child_end});
    } else if (arity == 2) {
      int32_t mid, right_end;
      const int32_t left = Read(depth + 1, false, mid);
      const int32_t right = Read(depth + 1, false, right_end);
      items.binary.push_back({label, left, right, start, mid, right_end});
    } else {
      throw InputError("chart tree node has arity " + std::to_string(arity));
    }
    end = word;
    return label;
  }
};
}  // namespace

GoldItems DecodeGoldTree(const int32_t* pairs, int32_t num_pairs, int32_t num_words, int32_t num_symbols) {
  Decoder d{pairs, num_pairs, num_symbols, 0, 0, {}};
  int32_t end;
  d.items.root = d.Read(0, false, end);
  if (d.next != num_pairs) throw InputError("chart tree encoding has trailing nodes");
  if (d.word != num_words)
    throw InputError("chart tree has " + std::to_string(d.word) + " words, sentence has " +
                     std::to_string(num_words));
  return std::move(d.items);
}

}  // namespace structrank
