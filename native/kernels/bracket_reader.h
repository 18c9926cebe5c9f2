// Reads bracketed trees ("(S (NP (D a)) (VP (V b)))", many per file, any layout) straight
// from a file's UTF-8 bytes into the pre-order arrays a TreeBank is built from, with no
// per-node objects. It accepts exactly what lib/trees/bracket-parser.ts accepts (the same
// tokens: '(' , ')' and runs of characters that are neither brackets nor JavaScript
// whitespace) and builds the same symbol table in the same order, so a bank built from its
// output is identical to one built from parsed trees. It only says whether the input is
// well formed: on malformed input the caller re-reads it with the JS parser, whose messages
// name the file, the line and the problem.
#pragma once
#include <string_view>

#include "kernels/tree_bank.h"

namespace structrank {

// Appends the trees of `bytes` to `out` (which should be empty). `unwrap` removes an
// unlabeled outer bracket with a single child: "( (S ...))" -> "(S ...)". Returns false
// (leaving `out` unspecified) if the input is malformed or holds no tree.
bool ReadBracketedTrees(std::string_view bytes, bool unwrap, PreorderTrees* out);

}  // namespace structrank
