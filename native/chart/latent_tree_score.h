// How probable a given tree is under a latent-annotation PCFG (chart/latent_grammar.h):
// log P(tree, words), summed over every assignment of subsymbols to the tree's nodes (the
// inside pass of EM's E-step, on one fixed tree). A second parser's opinion of a candidate,
// as a reranker's feature: the CRF's posteriors mixed with the PCFG's give how likely each
// bracket is, this gives how likely the candidate is as a whole.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "chart/gold_tree.h"
#include "chart/lexicon.h"

namespace structrank {

class ChartModel;
struct LatentGrammar;

class LatentTreeScorer {
 public:
  // `model` is a latent PCFG's expansion (ChartModel::latent set); it must outlive the scorer.
  explicit LatentTreeScorer(const ChartModel& model);
  // log P(tree, words) for `tree` over the base grammar's symbols and `tokens` (the model's
  // lexicon's, ChartModel::Tokens); -inf when the grammar lacks one of the tree's rules, or
  // gives one of its words no probability under its tag.
  double LogProb(const std::vector<Token>& tokens, const GoldItems& tree) const;

 private:
  // One base rule's entries over subsymbols: positions in its dense block, probabilities.
  struct Block {
    size_t begin = 0, end = 0;  // its entries in positions_ / probs_
  };
  const ChartModel& model_;
  const LatentGrammar& latent_;
  std::vector<Block> binary_, unary_, root_;  // per base rule id (root: per root rule id)
  std::vector<uint32_t> positions_;           // position within the rule's block
  std::vector<double> probs_;
  std::unordered_map<uint64_t, int32_t> binary_id_, unary_id_;
};

}  // namespace structrank
