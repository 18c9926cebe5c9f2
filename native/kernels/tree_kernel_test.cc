// The subset-tree kernel against a brute-force enumeration of fragments, fast vs plain.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/test_harness.h"
#include "kernels/gram.h"
#include "kernels/tree_bank.h"
#include "kernels/tree_kernel.h"

namespace structrank {
namespace {

struct Node {
  std::string label, word;  // word set <=> preterminal
  std::vector<Node> kids;
};

// "(S (NP (D a) (N b)) (VP (V c)))" -> Node; enough for tests.
Node Parse(const std::string& s, std::size_t& pos) {
  auto skip = [&] {
    while (pos < s.size() && s[pos] == ' ') ++pos;
  };
  auto token = [&] {
    skip();
    std::size_t b = pos;
    while (pos < s.size() && s[pos] != ' ' && s[pos] != '(' && s[pos] != ')') ++pos;
    return s.substr(b, pos - b);
  };
  skip();
  ++pos;  // '('
  Node n;
  n.label = token();
  skip();
  if (s[pos] != '(')
    n.word = token();
  else
    while (skip(), s[pos] == '(') n.kids.push_back(Parse(s, pos));
  skip();
  ++pos;  // ')'
  return n;
}
Node Parse(const std::string& s) {
  std::size_t pos = 0;
  return Parse(s, pos);
}

void Encode(const Node& n, PreorderTrees& out, std::map<std::string, int32_t>& ids) {
  auto id = [&](const std::string& s) {
    auto it = ids.find(s);
    if (it != ids.end()) return it->second;
    out.symbols.push_back(s);
    return ids[s] = static_cast<int32_t>(out.symbols.size() - 1);
  };
  out.label.push_back(id(n.label));
  out.word.push_back(n.word.empty() ? -1 : id(n.word));
  out.arity.push_back(static_cast<int32_t>(n.kids.size()));
  for (const Node& c : n.kids) Encode(c, out, ids);
}
int32_t CountNodes(const Node& n) {
  int32_t c = 1;
  for (const Node& k : n.kids) c += CountNodes(k);
  return c;
}

TreeBank MakeBank(const std::vector<Node>& trees) {
  PreorderTrees in;
  std::map<std::string, int32_t> ids;
  for (const Node& t : trees) {
    Encode(t, in, ids);
    in.tree_size.push_back(CountNodes(t));
  }
  TreeBank bank;
  bank.Add(in);
  return bank;
}

// ---- brute force: every fragment rooted at every node, as a string ----
struct Fragment {
  std::string text;
  int size, depth;
};
std::vector<Fragment> FragmentsAt(const Node& n) {
  if (!n.word.empty()) return {{"(" + n.label + " " + n.word + ")", 1, 1}};
  std::vector<Fragment> partial{{"(" + n.label, 1, 1}};
  for (const Node& c : n.kids) {
    std::vector<Fragment> options{{c.label, 0, 0}};  // the child cut off: a frontier label
    for (Fragment& f : FragmentsAt(c)) options.push_back(f);
    std::vector<Fragment> next;
    for (const Fragment& p : partial)
      for (const Fragment& o : options)
        next.push_back({p.text + " " + o.text, p.size + o.size, std::max(p.depth, o.depth + 1)});
    partial.swap(next);
  }
  for (Fragment& f : partial) f.text += ")";
  return partial;
}
void CollectFragments(const Node& n, std::map<std::string, std::pair<int, Fragment>>& out) {
  for (const Fragment& f : FragmentsAt(n)) {
    auto& slot = out[f.text];
    slot.first++;
    slot.second = f;
  }
  for (const Node& c : n.kids) CollectFragments(c, out);
}
using FragmentCounts = std::map<std::string, std::pair<int, Fragment>>;
FragmentCounts AllFragments(const Node& t) {
  FragmentCounts f;
  CollectFragments(t, f);
  return f;
}
double BruteForce(const FragmentCounts& fa, const FragmentCounts& fb, double lambda, int depth) {
  double k = 0;
  for (const auto& [text, entry] : fa) {
    auto it = fb.find(text);
    if (it == fb.end()) continue;
    if (depth > 0 && entry.second.depth > depth) continue;
    k += std::pow(lambda, entry.second.size) * entry.first * it->second.first;
  }
  return k;
}

Node RandomTree(std::mt19937& rng, int max_depth) {
  static const char* labels[] = {"A", "B", "C"};
  static const char* words[] = {"x", "y"};
  std::uniform_int_distribution<int> label(0, 2), word(0, 1), arity(1, 3), coin(0, 2);
  Node n;
  n.label = labels[label(rng)];
  if (max_depth <= 1 || coin(rng) == 0) {
    n.word = words[word(rng)];
    return n;
  }
  int k = arity(rng);
  for (int i = 0; i < k; ++i) n.kids.push_back(RandomTree(rng, max_depth - 1));
  return n;
}

TEST(tree_kernel_hand_check) {
  Node t = Parse("(S (NP (D a) (N b)) (VP (V c)))");
  TreeBank bank = MakeBank({t});
  CHECK_NEAR(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4), 3.657216, 1e-12);
  CHECK_NEAR(SubsetTreeKernelPlain(bank.Tree(0), bank.Tree(0), 0.4), 3.657216, 1e-12);
  CHECK_NEAR(BruteForce(AllFragments(t), AllFragments(t), 0.4, 0), 3.657216, 1e-12);
  // Depth 1: the six single productions.
  CHECK_NEAR(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4, 1), 6 * 0.4, 1e-12);
}

TEST(tree_kernel_equals_brute_force_on_random_trees) {
  std::mt19937 rng(7);
  std::vector<Node> trees;
  for (int i = 0; i < 24; ++i) trees.push_back(RandomTree(rng, 4));
  TreeBank bank = MakeBank(trees);
  std::vector<FragmentCounts> fragments;
  for (const Node& t : trees) fragments.push_back(AllFragments(t));
  for (double lambda : {1.0, 0.5, 0.3}) {
    for (int depth : {0, 1, 2, 3}) {
      for (std::size_t i = 0; i < trees.size(); ++i) {
        for (std::size_t j = i; j < trees.size(); j += 3) {
          double expect = BruteForce(fragments[i], fragments[j], lambda, depth);
          CHECK_NEAR(SubsetTreeKernel(bank.Tree(i), bank.Tree(j), lambda, depth), expect, 1e-10);
          CHECK_NEAR(SubsetTreeKernelPlain(bank.Tree(i), bank.Tree(j), lambda, depth), expect, 1e-10);
          CHECK_NEAR(SubsetTreeKernel(bank.Tree(j), bank.Tree(i), lambda, depth), expect, 1e-10);
        }
      }
    }
  }
}

TEST(tree_kernel_depth_beyond_height_equals_unlimited) {
  std::mt19937 rng(11);
  std::vector<Node> trees;
  for (int i = 0; i < 10; ++i) trees.push_back(RandomTree(rng, 5));
  TreeBank bank = MakeBank(trees);
  for (std::size_t i = 0; i < trees.size(); ++i)
    CHECK_NEAR(SubsetTreeKernel(bank.Tree(i), bank.Tree(0), 0.4, 9),
               SubsetTreeKernel(bank.Tree(i), bank.Tree(0), 0.4), 1e-12);
}

TEST(tree_bank_heights) {
  TreeBank bank = MakeBank({Parse("(S (NP (D a) (N b)) (VP (V c)))"), Parse("(D a)")});
  CHECK(bank.Tree(0).height == 3);
  CHECK(bank.Tree(1).height == 1);
  // Depth 2 on a height-3 tree differs from unlimited; the plain reference agrees.
  CHECK_NEAR(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4, 2),
             SubsetTreeKernelPlain(bank.Tree(0), bank.Tree(0), 0.4, 2), 1e-12);
  CHECK(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4, 2) <
        SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4));
}

TEST(tree_kernel_refuses_oversized_tables) {
  // A unary chain of 12,000 nodes: 144 M table cells, above the limit; no allocation tried.
  PreorderTrees in;
  in.symbols = {"A", "x"};
  const int32_t n = 12000;
  for (int32_t v = 0; v < n; ++v) {
    in.label.push_back(0);
    in.word.push_back(v == n - 1 ? 1 : -1);
    in.arity.push_back(v == n - 1 ? 0 : 1);
  }
  in.tree_size = {n};
  TreeBank bank;
  bank.Add(in);
  CHECK(bank.Tree(0).height == n);
  CHECK_THROWS(SubsetTreeKernel(bank.Tree(0), bank.Tree(0), 0.4));
  CHECK_THROWS(SubsetTreeKernelPlain(bank.Tree(0), bank.Tree(0), 0.4));
}

TEST(tree_kernel_preterminal_is_not_unary) {
  // (D a) and (D (a z)) have different productions at D.
  TreeBank bank = MakeBank({Parse("(D a)"), Parse("(D (a z))")});
  CHECK(SubsetTreeKernel(bank.Tree(0), bank.Tree(1), 1.0) == 0.0);
}

TEST(tree_bank_rejects_bad_input) {
  TreeBank bank;
  PreorderTrees empty;
  empty.tree_size = {0};
  CHECK_THROWS(bank.Add(empty));
  PreorderTrees bad;  // arity says two children, only one follows
  bad.symbols = {"S", "x"};
  bad.label = {0, 0};
  bad.word = {-1, 1};
  bad.arity = {2, 0};
  bad.tree_size = {2};
  CHECK_THROWS(bank.Add(bad));
  bad.arity = {1, 0};
  bad.word = {-1, 7};  // symbol out of range
  CHECK_THROWS(bank.Add(bad));
  CHECK(bank.size() == 0);
}

TEST(gram_matrix_is_symmetric_and_normalized) {
  std::mt19937 rng(3);
  std::vector<Node> trees;
  for (int i = 0; i < 15; ++i) trees.push_back(RandomTree(rng, 4));
  TreeBank bank = MakeBank(trees);
  PairwiseKernel k;
  k.rows = k.cols = bank.size();
  k.raw = [&](std::size_t i, std::size_t j) { return SubsetTreeKernel(bank.Tree(i), bank.Tree(j), 0.5); };
  k.self_a = k.self_b = [&](std::size_t i) { return SubsetTreeKernel(bank.Tree(i), bank.Tree(i), 0.5); };
  k.same_bank = true;
  std::vector<double> g = GramMatrix(k, 2);
  for (std::size_t i = 0; i < k.rows; ++i)
    for (std::size_t j = 0; j < k.cols; ++j) {
      CHECK(g[i * k.cols + j] == g[j * k.cols + i]);
      CHECK_NEAR(g[i * k.cols + j], KernelValue(k, i, j), 1e-12);
    }
  k.normalize = true;
  std::vector<double> n = GramMatrix(k, 2);
  for (std::size_t i = 0; i < k.rows; ++i) {
    CHECK(n[i * k.cols + i] == 1.0);
    CHECK_NEAR(n[i * k.cols + 3], g[i * k.cols + 3] / std::sqrt(g[i * k.cols + i] * g[3 * k.cols + 3]),
               1e-12);
  }
  k.norms_a = k.norms_b = std::make_shared<NormCache>(k.rows);
  for (int pass = 0; pass < 2; ++pass)  // first computes the norms, second reads them
    for (std::size_t j = 0; j < k.cols; ++j) CHECK_NEAR(KernelValue(k, 2, j), n[2 * k.cols + j], 1e-12);
  std::vector<double> row = KernelRow(k, 4, 2);
  for (std::size_t j = 0; j < k.cols; ++j) CHECK_NEAR(row[j], n[4 * k.cols + j], 1e-12);
  std::vector<double> logprob(k.rows, -2.0);
  k.beta = 0.25;
  k.logprob_a = k.logprob_b = logprob.data();
  CHECK_NEAR(KernelValue(k, 1, 2), n[1 * k.cols + 2] + 1.0, 1e-12);
  CHECK_THROWS(KernelValue(k, 0, k.cols));
  std::atomic<bool> cancel{true};
  bool cancelled = false;
  try {
    GramMatrix(k, 2, &cancel);
  } catch (const Cancelled&) {
    cancelled = true;
  }
  CHECK(cancelled);
}

}  // namespace
}  // namespace structrank
