#include "chart/grammar.h"

#include "core/errors.h"

namespace structrank {

namespace {
// Counting sort of rule ids by a key: offsets has num_keys + 1 entries.
template <typename KeyOf>
void GroupBy(int32_t num_keys, int32_t num_items, KeyOf key_of, std::vector<int32_t>& offsets,
             std::vector<int32_t>& items) {
  offsets.assign(num_keys + 1, 0);
  for (int32_t r = 0; r < num_items; ++r) offsets[key_of(r) + 1]++;
  for (int32_t s = 0; s < num_keys; ++s) offsets[s + 1] += offsets[s];
  items.assign(num_items, 0);
  std::vector<int32_t> fill(offsets.begin(), offsets.end() - 1);
  for (int32_t r = 0; r < num_items; ++r) items[fill[key_of(r)]++] = r;
}
}  // namespace

void Grammar::BuildIndexes() {
  const int32_t nb = static_cast<int32_t>(binary.size());
  const int32_t nu = static_cast<int32_t>(unary.size());
  GroupBy(
      num_symbols, nb, [&](int32_t r) { return binary[r].left; }, by_left_offsets, by_left);
  GroupBy(
      num_symbols, nb, [&](int32_t r) { return binary[r].parent; }, by_parent_offsets, by_parent);
  by_pair_offsets.clear(), by_pair.clear();
  if (num_symbols <= kMaxPairIndexSymbols)
    GroupBy(
        num_symbols * num_symbols, nb,
        [&](int32_t r) { return binary[r].left * num_symbols + binary[r].right; }, by_pair_offsets, by_pair);
  GroupBy(
      num_symbols, nu, [&](int32_t r) { return unary[r].child; }, unary_by_child_offsets, unary_by_child);
  GroupBy(
      num_symbols, nu, [&](int32_t r) { return unary[r].parent; }, unary_by_parent_offsets, unary_by_parent);
  root_rule_of.assign(num_symbols, -1);
  for (int32_t r = 0; r < static_cast<int32_t>(root.size()); ++r) root_rule_of[root[r]] = r;
  binary_verb.assign(nb, 0);
  if (is_verb.size() == static_cast<size_t>(num_symbols))
    for (int32_t r = 0; r < nb; ++r)
      binary_verb[r] =
          static_cast<uint8_t>((is_verb[binary[r].left] ? 1 : 0) | (is_verb[binary[r].right] ? 2 : 0));
}

void Grammar::Write(ByteWriter& out) const {
  out.Put<int32_t>(num_symbols);
  out.Put<int32_t>(num_bases);
  out.PutVector(is_tag);
  out.PutVector(base);
  out.PutVector(binary);
  out.PutVector(unary);
  out.PutVector(root);
}

Grammar Grammar::Read(ByteReader& in) {
  Grammar g;
  g.num_symbols = in.Get<int32_t>();
  g.num_bases = in.Get<int32_t>();
  g.is_tag = in.GetVector<uint8_t>();
  g.base = in.GetVector<int32_t>();
  g.binary = in.GetVector<BinaryRule>();
  g.unary = in.GetVector<UnaryRule>();
  g.root = in.GetVector<int32_t>();
  auto bad_symbol = [&](int32_t s) { return s < 0 || s >= g.num_symbols; };
  if (g.num_symbols <= 0 || g.num_bases <= 0 || g.is_tag.size() != static_cast<size_t>(g.num_symbols) ||
      g.base.size() != static_cast<size_t>(g.num_symbols))
    throw InputError("chart model: inconsistent symbol table");
  for (int32_t b : g.base)
    if (b < 0 || b >= g.num_bases) throw InputError("chart model: bad base category");
  for (const auto& r : g.binary)
    if (bad_symbol(r.parent) || bad_symbol(r.left) || bad_symbol(r.right))
      throw InputError("chart model: bad binary rule");
  for (const auto& r : g.unary)
    if (bad_symbol(r.parent) || bad_symbol(r.child)) throw InputError("chart model: bad unary rule");
  for (int32_t s : g.root)
    if (bad_symbol(s)) throw InputError("chart model: bad root rule");
  g.BuildIndexes();
  return g;
}

}  // namespace structrank
