// An ensemble of chart parsers under minimum-Bayes-risk decoding: every member computes its
// posteriors (expected brackets per span and base category, tag posteriors per word); their
// weighted mean is decoded by the first member's grammar, as MbrParse decodes one model's
// (chart/mbr.h). The first member is a CRF; the others are CRFs or PCFGs (a PCFG's posteriors
// are those of its rule probabilities). The first member's chart is pruned by its coarse pass;
// each other member's by the first member's posteriors, a far tighter mask that costs no extra
// pass. The members may differ in grammar backbone (Markov order, annotation) and features: a
// bracket is a span with a base category, which all members trained on the same treebank
// share. Their bases and tags meet by name: each member after the first maps its ids to the
// first's (TypeScript builds the maps).
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "chart/chart_model.h"

namespace structrank {

struct EnsembleMember {
  const ChartModel* model = nullptr;  // a CRF or a PCFG
  std::vector<int32_t> base_map;      // member base category -> the first member's (-1: none)
  std::vector<int32_t> tag_map;       // member tag symbol -> the first member's (-1: none)
};

// The posterior a category needs under the first member to stay in another member's chart
// (chosen on the dev sets of ptb-sample and floresta-pt: docs/design/parser-defaults.md, "Ensembles").
constexpr double kEnsembleMemberPrune = 1e-3;

// The largest chart a member other than the first may take for one sentence; a longer
// sentence is decoded without that member. A rich grammar's chart (a parent-annotated PCFG
// over hundreds of labels) holds thousands of entries per span.
constexpr double kEnsembleMemberChartBytes = 64.0 * (1 << 20);

// How much each member's posteriors weigh in the mean: the first member's, then the others' in
// order (empty: all alike). The weights of the members that cover a sentence are normalized.
using EnsembleMix = std::vector<double>;

// The ensemble's k best trees (its MBR objective: k = 1 is the MBR tree) for every sentence of `corpus`.
// prune: the first member's coarse pass (0 = every member exhaustive); member_prune: the other members' mask.
// A sentence that the first member cannot cover in its pruned chart, or longer than max_length (> 0), gets
// that member's own Parse (which retries exhaustively, then relaxed, then flat); a member
// other than the first that covers nothing under either mask is left out of that sentence's
// mean, as is one whose chart would take more than max_chart_bytes. prune_retry: the first
// member's retry with every tag (ChartModel::Parse). Each tree's score is its log-probability
// under the first member. With `viterbi`, also the first member's Viterbi viterbi_k-best of
// every sentence (viterbi[s]), exactly its own Parse's (at `prune`, exact beam, prune_retry),
// computed on the chart and sentence scores the posteriors use: one parse where two calls
// would prepare every sentence twice.
std::vector<SentenceParse> ParseEnsemble(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                         const Corpus& corpus, int threads, const std::atomic<bool>* cancel,
                                         double prune, int max_length, bool prune_retry = false,
                                         double member_prune = kEnsembleMemberPrune, int k = 1,
                                         const EnsembleMix& mix = {},
                                         double max_chart_bytes = kEnsembleMemberChartBytes,
                                         int viterbi_k = 0, std::vector<SentenceParse>* viterbi = nullptr);

// Each sentence's MBR tree under each of `mixes` (out[m][s]), every member's posteriors
// computed once: how a mixture weight is chosen on dev.
std::vector<std::vector<SentenceParse>> ParseEnsembleMixes(const ChartModel& first,
                                                           const std::vector<EnsembleMember>& others,
                                                           const Corpus& corpus, int threads,
                                                           const std::atomic<bool>* cancel, double prune,
                                                           int max_length, bool prune_retry,
                                                           const std::vector<EnsembleMix>& mixes);

}  // namespace structrank
