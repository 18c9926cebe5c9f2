// An ensemble of CRF parsers under minimum-Bayes-risk decoding: every member computes its
// posteriors (expected brackets per span and base category, tag posteriors per word); their
// mean is decoded by the first member's grammar, as MbrParse decodes one model's
// (chart/mbr.h). The first member's chart is pruned by its coarse pass; each other member's
// by the first member's posteriors, a far tighter mask that costs no extra pass. The members may differ in
// grammar backbone (Markov order, annotation) and features: a bracket is a span with a base category, which
// all members trained on the same treebank share. Their bases and tags meet by name: each member after the
// first maps its ids to the first's (TypeScript builds the maps).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "chart/chart_model.h"

namespace structrank {

struct EnsembleMember {
  const ChartModel* model = nullptr;
  std::vector<int32_t> base_map;  // member base category -> the first member's (-1: none)
  std::vector<int32_t> tag_map;   // member tag symbol -> the first member's (-1: none)
};

// The posterior a category needs under the first member to stay in another member's chart
// (chosen on the dev sets of ptb-sample and floresta-pt: docs/design/parser-defaults.md, "Ensembles").
constexpr double kEnsembleMemberPrune = 1e-3;

// The ensemble's k best trees (its MBR objective: k = 1 is the MBR tree) for every sentence of `corpus`.
// prune: the first member's coarse pass (0 = every member exhaustive); member_prune: the other members' mask.
// A sentence that the first member cannot cover in its pruned chart, or longer than max_length (> 0), gets
// that member's own Parse (which retries exhaustively, then relaxed, then flat); a member
// other than the first that covers nothing under either mask is left out of that sentence's
// mean. prune_retry: the first member's retry with every tag (ChartModel::Parse). Each tree's
// score is its log-probability under the first member.
std::vector<SentenceParse> ParseEnsemble(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                         const Corpus& corpus, int threads, const std::atomic<bool>* cancel,
                                         double prune, int max_length, bool prune_retry = false,
                                         double member_prune = kEnsembleMemberPrune, int k = 1);

}  // namespace structrank
