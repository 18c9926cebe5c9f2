#include "chart/gold_tree.h"

#include <algorithm>
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

std::vector<GoldNode> BottomUp(const GoldItems& items, int32_t num_words) {
  const int n = num_words;
  std::vector<GoldNode> nodes;
  std::vector<int32_t> top(static_cast<size_t>(n) * (n + 1), -1);  // span (i, j) -> its top node
  auto at = [&](int i, int j) -> int32_t& { return top[static_cast<size_t>(i) * (n + 1) + j]; };
  auto below = [&](int i, int j, int32_t sym) {
    const int32_t k = i >= 0 && i < j && j <= n ? at(i, j) : -1;
    if (k < 0 || nodes[k].sym != sym) throw InputError("chart tree has a rule without its children");
    return k;
  };
  for (size_t x = 0; x < items.lex.size(); ++x) {
    const auto& lx = items.lex[x];
    if (lx.i < 0 || lx.i >= n) throw InputError("chart tree has a word outside its sentence");
    at(lx.i, lx.i + 1) = static_cast<int32_t>(nodes.size());
    nodes.push_back({lx.tag, 0, static_cast<int32_t>(x), -1, -1});
  }
  std::vector<int32_t> binaries(items.binary.size()), unaries(items.unary.size());
  for (size_t x = 0; x < binaries.size(); ++x) binaries[x] = static_cast<int32_t>(x);
  for (size_t x = 0; x < unaries.size(); ++x) unaries[x] = static_cast<int32_t>(x);
  auto length = [](const auto& item) { return item.j - item.i; };
  std::sort(binaries.begin(), binaries.end(),
            [&](int32_t a, int32_t b) { return length(items.binary[a]) < length(items.binary[b]); });
  std::sort(unaries.begin(), unaries.end(),
            [&](int32_t a, int32_t b) { return length(items.unary[a]) < length(items.unary[b]); });
  size_t bi = 0, ui = 0;
  for (int len = 1; len <= n; ++len) {
    for (; bi < binaries.size() && length(items.binary[binaries[bi]]) == len; ++bi) {
      const auto& b = items.binary[binaries[bi]];
      const int32_t left = below(b.i, b.k, b.left), right = below(b.k, b.j, b.right);
      at(b.i, b.j) = static_cast<int32_t>(nodes.size());
      nodes.push_back({b.parent, 2, binaries[bi], left, right});
    }
    for (; ui < unaries.size() && length(items.unary[unaries[ui]]) == len; ++ui) {
      const auto& u = items.unary[unaries[ui]];
      const int32_t child = below(u.i, u.j, u.child);
      at(u.i, u.j) = static_cast<int32_t>(nodes.size());
      nodes.push_back({u.parent, 1, unaries[ui], child, -1});
    }
  }
  if (n == 0 || at(0, n) != static_cast<int32_t>(nodes.size()) - 1 || nodes.back().sym != items.root)
    throw InputError("chart tree does not cover its sentence");
  return nodes;
}

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
