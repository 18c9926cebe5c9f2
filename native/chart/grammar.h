// A binarized CFG with at most one unary per span, as int arrays: binary rules indexed by
// left child and by parent, unary rules indexed by child and by parent, root rules
// (ROOT -> X over the whole sentence). Symbols are dense ids chosen by the caller; each
// symbol has a base category id (for features) and a flag saying whether it is a POS tag.
#pragma once
#include <cstdint>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

struct BinaryRule {
  int32_t parent, left, right;
};
struct UnaryRule {
  int32_t parent, child;
};

struct Grammar {
  int32_t num_symbols = 0;
  int32_t num_bases = 0;
  std::vector<uint8_t> is_tag;  // symbol -> 1 for POS tags
  std::vector<int32_t> base;    // symbol -> base category id
  std::vector<BinaryRule> binary;
  std::vector<UnaryRule> unary;
  std::vector<int32_t> root;  // root rule id -> symbol
  // symbol -> 1 for verb tags (VB*), for the verb-lexicalized rule features; may be empty.
  // Serialized by ChartModel with the other optional extras.
  std::vector<uint8_t> is_verb;

  // Indexes rebuilt by BuildIndexes() (not serialized).
  std::vector<int32_t> by_left_offsets, by_left;      // binary rule ids grouped by left child
  std::vector<int32_t> by_parent_offsets, by_parent;  // binary rule ids grouped by parent
  // Binary rule ids grouped by (left, right) child pair: the rules of (L, R) are
  // by_pair[by_pair_offsets[L * num_symbols + R] .. by_pair_offsets[L * num_symbols + R + 1]).
  // Lets the chart passes visit only the right children present in a sparse cell instead of
  // testing every rule of L. The table is quadratic in the symbols, so it stays empty above
  // kMaxPairIndexSymbols (the passes then walk by_left).
  static constexpr int32_t kMaxPairIndexSymbols = 2048;  // a table of at most 16 MB
  std::vector<int32_t> by_pair_offsets, by_pair;
  std::vector<int32_t> unary_by_child_offsets, unary_by_child;
  std::vector<int32_t> unary_by_parent_offsets, unary_by_parent;
  std::vector<int32_t> root_rule_of;  // symbol -> root rule id or -1
  std::vector<uint8_t> binary_verb;   // binary rule -> bit 1: left child is a verb tag, bit 2: right child

  void BuildIndexes();
  void Write(ByteWriter& out) const;
  static Grammar Read(ByteReader& in);
};

}  // namespace structrank
