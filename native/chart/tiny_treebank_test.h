// The chart tests' tiny treebank: five binarized trees over seven categories, with a unary
// over a tag, a root unary and an ambiguous word (test code only).
#pragma once
#include <string>
#include <vector>

#include "chart/chart_model.h"

namespace structrank {

// Symbols: 0 S, 1 NP, 2 VP, 3 @S, 4 D, 5 N, 6 V, 7 S+VP (a collapsed unary state)
// bases: S=0 NP=1 VP=2 @S=3 D=4 N=5 V=6
struct Tiny {
  SymbolInfo symbols;
  Corpus corpus;
  std::vector<int32_t> pairs, offsets;
};

inline void AddTree(Tiny& t, std::vector<std::string> words, std::vector<int32_t> pairs) {
  t.corpus.tokens.insert(t.corpus.tokens.end(), words.begin(), words.end());
  t.corpus.offsets.push_back(static_cast<int32_t>(t.corpus.tokens.size()));
  t.pairs.insert(t.pairs.end(), pairs.begin(), pairs.end());
  t.offsets.push_back(static_cast<int32_t>(t.pairs.size() / 2));
}

inline Tiny MakeTiny() {
  Tiny t;
  t.symbols.num_bases = 7;
  t.symbols.is_tag = {0, 0, 0, 0, 1, 1, 1, 0};
  t.symbols.base = {0, 1, 2, 3, 4, 5, 6, 0};
  t.corpus.offsets = {0};
  t.offsets = {0};
  // (S (NP (D the) (N dog)) (VP (V saw) (NP (D a) (N cat))))
  AddTree(t, {"the", "dog", "saw", "a", "cat"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 2, 6, 0, 1, 2, 4, 0, 5, 0});
  // (S (NP (N dogs)) (VP (V saw) (NP (N cats))))  NP unary over N
  AddTree(t, {"dogs", "saw", "cats"}, {0, 2, 1, 1, 5, 0, 2, 2, 6, 0, 1, 1, 5, 0});
  // (S+VP (V run)) root unary over a tag
  AddTree(t, {"run"}, {7, 1, 6, 0});
  // (S (NP (N dog)) (@S (VP (V saw)) (NP (N saw))))  ternary S binarized; "saw" ambiguous
  AddTree(t, {"dog", "saw", "saw"}, {0, 2, 1, 1, 5, 0, 3, 2, 2, 1, 6, 0, 1, 1, 5, 0});
  // (S (NP (D the) (N cat)) (VP (V run)))
  AddTree(t, {"the", "cat", "run"}, {0, 2, 1, 2, 4, 0, 5, 0, 2, 1, 6, 0});
  return t;
}

}  // namespace structrank
