// Training trees as they cross from TypeScript: binarized, annotated, in pre-order as
// (label, arity) pairs, arity 0 = preterminal (one word), 1 = unary, 2 = binary.
// Decoded into the rule applications the grammar, the PCFG counts and the CRF use.
#pragma once
#include <cstdint>
#include <vector>

namespace structrank {

struct GoldItems {
  struct Binary {
    int32_t parent, left, right, i, k, j;
  };
  struct Unary {
    int32_t parent, child, i, j;
  };
  struct Lex {
    int32_t tag, i;
  };
  std::vector<Binary> binary;
  std::vector<Unary> unary;
  std::vector<Lex> lex;
  int32_t root = -1;  // symbol of the top node
};

// A tree's nodes in the order an inside pass visits them: its words' tags (in `lex` order),
// then by span from the shortest, at each span its binary rule, then the unary rule above it;
// the last is the top. `item` indexes GoldItems::lex, unary or binary (by `kind`), `left` and
// `right` are the children's positions in the order (-1: none).
struct GoldNode {
  int32_t sym;
  int32_t kind;  // 0: a tag over one word, 1: a unary rule, 2: a binary rule
  int32_t item;
  int32_t left, right;
};
// Throws InputError when a word is outside the sentence, a rule's children are not the nodes
// below it, or the top is not `items.root` over all `num_words` words.
std::vector<GoldNode> BottomUp(const GoldItems& items, int32_t num_words);

// Decodes one tree over `num_words` words; throws InputError on a malformed encoding
// (bad arity, bad symbol, word count mismatch, two unaries over one span).
GoldItems DecodeGoldTree(const int32_t* pairs, int32_t num_pairs, int32_t num_words, int32_t num_symbols);

}  // namespace structrank
