#include "kernels/bracket_reader.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace structrank {

namespace {

// Deepest nesting accepted, as MAX_TREE_DEPTH in lib/trees/bracket-parser.ts.
constexpr std::size_t kMaxDepth = 1000;

// Length of the whitespace character at bytes[i] (JavaScript's \s: ASCII tab, line feed,
// vertical tab, form feed, carriage return and space, U+00A0, U+1680, U+2000-U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), or 0 if there is none.
std::size_t WhitespaceLength(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<uint8_t>(s[i + k]) : 0; };
  const uint8_t c = b(0);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d)) return 1;
  if (c < 0x80) return 0;
  if (c == 0xc2) return b(1) == 0xa0 ? 2 : 0;
  if (c == 0xe1) return b(1) == 0x9a && b(2) == 0x80 ? 3 : 0;
  if (c == 0xe2) {
    if (b(1) == 0x80) {
      const uint8_t d = b(2);
      return (d >= 0x80 && d <= 0x8a) || d == 0xa8 || d == 0xa9 || d == 0xaf ? 3 : 0;
    }
    return b(1) == 0x81 && b(2) == 0x9f ? 3 : 0;
  }
  if (c == 0xe3) return b(1) == 0x80 && b(2) == 0x80 ? 3 : 0;
  if (c == 0xef) return b(1) == 0xbb && b(2) == 0xbf ? 3 : 0;
  return 0;
}

// One node of the tree being read, in pre-order.
struct Node {
  std::string_view label;  // empty: no label token (the label is then "")
  std::string_view word;
  bool has_label = false, has_word = false;
  int32_t children = 0;
};

class Reader {
 public:
  Reader(bool unwrap, PreorderTrees* out) : unwrap_(unwrap), out_(out) {}

  bool Read(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '(') {
        if (!open_.empty() && tree_[open_.back()].has_word) return false;  // a bracket after a word
        if (open_.size() >= kMaxDepth) return false;
        if (!open_.empty()) ++tree_[open_.back()].children;
        open_.push_back(static_cast<int32_t>(tree_.size()));
        tree_.emplace_back();
        ++i;
      } else if (c == ')') {
        if (open_.empty()) return false;  // no matching '('
        const Node& n = tree_[open_.back()];
        if (!n.has_word && n.children == 0) return false;  // "()" or "(X)"
        open_.pop_back();
        if (open_.empty()) EndTree();
        ++i;
      } else if (std::size_t w = WhitespaceLength(s, i); w > 0) {
        i += w;
      } else {
        std::size_t end = i + 1;
        while (end < s.size() && s[end] != '(' && s[end] != ')' && WhitespaceLength(s, end) == 0) ++end;
        if (open_.empty()) return false;  // text outside brackets
        Node& top = tree_[open_.back()];
        const std::string_view token = s.substr(i, end - i);
        if (!top.has_label && top.children == 0) {
          top.label = token;
          top.has_label = true;
        } else if (top.children > 0 || top.has_word) {
          return false;  // a word beside subtrees, or two words
        } else {
          top.word = token;
          top.has_word = true;
        }
        i = end;
      }
    }
    return open_.empty() && !out_->tree_size.empty();
  }

 private:
  // Interns a tree's labels and words in pre-order (label before word), as
  // lib/kernels/tree-bank.ts does, so that symbol ids come out in the same order.
  void EndTree() {
    std::size_t first = 0;
    const Node& root = tree_[0];
    if (unwrap_ && !root.has_label && !root.has_word && root.children == 1) first = 1;
    for (std::size_t v = first; v < tree_.size(); ++v) {
      const Node& n = tree_[v];
      out_->label.push_back(Symbol(n.label));
      out_->word.push_back(n.has_word ? Symbol(n.word) : -1);
      out_->arity.push_back(n.children);
    }
    out_->tree_size.push_back(static_cast<int32_t>(tree_.size() - first));
    tree_.clear();
  }

  int32_t Symbol(std::string_view s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<int32_t>(out_->symbols.size()));
    if (added) out_->symbols.emplace_back(s);
    return it->second;
  }

  bool unwrap_;
  PreorderTrees* out_;
  std::vector<Node> tree_;     // the current tree's nodes in pre-order
  std::vector<int32_t> open_;  // indices of open nodes in tree_
  std::unordered_map<std::string_view, int32_t> ids_;
};

}  // namespace

bool ReadBracketedTrees(std::string_view bytes, bool unwrap, PreorderTrees* out) {
  return Reader(unwrap, out).Read(bytes);
}

}  // namespace structrank
