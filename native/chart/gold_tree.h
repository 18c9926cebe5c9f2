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

// Decodes one tree over `num_words` words; throws InputError on a malformed encoding
// (bad arity, bad symbol, word count mismatch, two unaries over one span).
GoldItems DecodeGoldTree(const int32_t* pairs, int32_t num_pairs, int32_t num_words, int32_t num_symbols);

}  // namespace structrank
