// The native bracket reader: pre-order arrays, symbol order, unwrapping, whitespace and
// the malformed inputs it must decline (test/kernels/kernels-tree-loader.test.ts compares it with
// the JS reader on files).
#include <string>
#include <vector>

#include "core/test_harness.h"
#include "kernels/bracket_reader.h"
#include "kernels/tree_bank.h"
#include "kernels/tree_kernel.h"

namespace structrank {
namespace {

TEST(bracket_reader_builds_preorder_arrays) {
  PreorderTrees t;
  CHECK(ReadBracketedTrees("( (S (NP (D a) (N b))\n (VP (V c))))  (X a)", true, &t));
  CHECK((t.symbols == std::vector<std::string>{"S", "NP", "D", "a", "N", "b", "VP", "V", "c", "X"}));
  CHECK((t.label == std::vector<int32_t>{0, 1, 2, 4, 6, 7, 9}));
  CHECK((t.word == std::vector<int32_t>{-1, -1, 3, 5, -1, 8, 3}));
  CHECK((t.arity == std::vector<int32_t>{2, 2, 0, 0, 1, 0, 0}));
  CHECK((t.tree_size == std::vector<int32_t>{6, 1}));
}

TEST(bracket_reader_unwraps_one_unlabeled_single_child_root_only) {
  PreorderTrees kept;
  CHECK(ReadBracketedTrees("((A a) (B b))", true, &kept));
  CHECK((kept.symbols == std::vector<std::string>{"", "A", "a", "B", "b"}));
  CHECK((kept.tree_size == std::vector<int32_t>{3}));
  PreorderTrees once;
  CHECK(ReadBracketedTrees("( ( (A a)))", true, &once));
  CHECK((once.tree_size == std::vector<int32_t>{2}));
  PreorderTrees raw;
  CHECK(ReadBracketedTrees("( (A a))", false, &raw));
  CHECK((raw.tree_size == std::vector<int32_t>{2}));
}

TEST(bracket_reader_splits_on_unicode_whitespace) {
  PreorderTrees t;
  // U+00A0, U+3000, U+FEFF separate tokens; U+0085 does not (as in JavaScript's \s).
  CHECK(
      ReadBracketedTrees("(S\xc2\xa0(A\xe3\x80\x80"
                         "a)\xef\xbb\xbf(B \xc2\x85x))",
                         true, &t));
  CHECK((t.symbols == std::vector<std::string>{"S", "A", "a", "B", "\xc2\x85x"}));
}

TEST(bracket_reader_gives_the_kernel_value_of_the_hand_check) {
  PreorderTrees t;
  CHECK(ReadBracketedTrees("(S (NP (D a) (N b)) (VP (V c)))", true, &t));
  TreeBank bank(std::make_shared<KernelVocabulary>());
  bank.Add(t);
  CHECK_NEAR(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4, 0), 3.657216, 1e-12);
}

TEST(bracket_reader_declines_malformed_input) {
  for (const char* bad : {"", "  \n", "(S (A a)", "(S (A a)))", "(S (A a) b)", "(S (A a b))",
                          "(S (A a (B b)))", "(S ())", "(S (B))", "x (S (A a))"}) {
    PreorderTrees t;
    CHECK(!ReadBracketedTrees(bad, true, &t));
  }
  PreorderTrees deep;
  CHECK(!ReadBracketedTrees(std::string(1001, '(') + "A a" + std::string(1001, ')'), true, &deep));
  PreorderTrees ok;
  CHECK(ReadBracketedTrees(std::string(999, '(') + "A a" + std::string(999, ')'), true, &ok));
}

}  // namespace
}  // namespace structrank
