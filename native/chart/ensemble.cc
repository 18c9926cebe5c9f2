#include "chart/ensemble.h"

#include <cmath>
#include <memory>

#include "chart/crf_features.h"
#include "chart/mbr.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// Masks a member's chart to what the first member's posteriors keep: an entry survives when
// the first member gives its base category (or, for a tag, the tag) at that span a posterior
// >= threshold; a category the first member lacks survives where the span has that much
// posterior mass at all. The first member's fine posteriors prune far more than each member's
// own PCFG pass would, and they are already computed.
void MaskByFirst(const EnsembleMember& m, const NodePosteriors& first, double threshold, Chart& ch) {
  const Grammar& g = m.model->grammar;
  const int n = first.n, S = g.num_symbols;
  ch.mask_pre.assign(static_cast<size_t>(Chart::NumCells(n)) * S, 0);
  ch.mask_post.assign(ch.mask_pre.size(), 0);
  std::vector<double> tag_post;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j <= n; ++j) {
      const size_t cell = static_cast<size_t>(Chart::CellOf(n, i, j));
      const double* bracket = &first.bracket[cell * first.B];
      double mass = 0;
      for (int b = 0; b < first.B; ++b) mass += bracket[b];
      if (j == i + 1) {
        tag_post.assign(static_cast<size_t>(first.g->num_symbols), 0.0);
        for (const auto& [tag, p] : first.lex[i]) tag_post[tag] += p;
      }
      uint8_t* pre = &ch.mask_pre[cell * S];
      uint8_t* post = &ch.mask_post[cell * S];
      for (int32_t x = 0; x < S; ++x) {
        bool keep;
        if (g.is_tag[x]) {
          const int32_t to = m.tag_map[x];
          keep = j == i + 1 && (to < 0 || tag_post[to] >= threshold);
        } else {
          const int32_t to = m.base_map[g.base[x]];
          keep = (to < 0 ? mass : bracket[to]) >= threshold;
        }
        pre[x] = post[x] = keep ? 1 : 0;
      }
    }
  }
}

// One member's posteriors over its chart: masked by the first member's posteriors, or, when
// that mask covers nothing, by its own coarse pass; exhaustive when prune is 0. False when
// nothing covers the sentence. Leaves the chart cleared and unmasked.
bool MemberPosteriors(const EnsembleMember& m, const NodePosteriors& first, const std::vector<Token>& tokens,
                      double prune, double member_prune, Chart& ch, CrfSentence& sent, NodePosteriors& post) {
  const Grammar& g = m.model->grammar;
  sent.Prepare(m.model->crf, g, m.model->lexicon, tokens);
  auto run = [&](bool masked) {
    double log_z = kNegInf;
    ch.Begin(static_cast<int>(tokens.size()), g.num_symbols, true);
    CollectPosteriors(g, sent.lex(), sent, ch, log_z, post);
    ch.Clear();
    if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
    return log_z != kNegInf;
  };
  if (prune <= 0) return run(false);
  MaskByFirst(m, first, member_prune, ch);
  if (run(true)) return true;
  const CoarseOutcome coarse = m.model->MaskByCoarsePass(tokens, prune, ch);
  return coarse != CoarseOutcome::kNoTree && run(coarse == CoarseOutcome::kMasked);
}

// into += weight * `from`, its bases and tags mapped to `into`'s.
void AddMapped(const NodePosteriors& from, const EnsembleMember& m, double weight, NodePosteriors& into) {
  const int cells = Chart::NumCells(into.n);
  for (int c = 0; c < cells; ++c) {
    for (int b = 0; b < from.B; ++b) {
      const double v = from.bracket[static_cast<size_t>(c) * from.B + b];
      const int32_t to = m.base_map[b];
      if (v != 0 && to >= 0) into.bracket[static_cast<size_t>(c) * into.B + to] += weight * v;
    }
  }
  for (int i = 0; i < into.n; ++i) {
    for (const auto& [tag, p] : from.lex[i]) {
      const int32_t to = m.tag_map[tag];
      if (to < 0) continue;
      bool found = false;
      for (auto& entry : into.lex[i]) {
        if (entry.first == to) entry.second += weight * p, found = true;
      }
      if (!found) into.lex[i].emplace_back(to, weight * p);
    }
  }
}

// One thread's buffers, one per member (the first member's at 0), reused from sentence to
// sentence so that none allocates (and faults in) fresh rows: a member's scorer alone holds
// megabytes for a long sentence. The charts come from each member's pool.
struct Scratch {
  std::vector<std::unique_ptr<Chart>> charts;
  std::vector<CrfSentence> sentences;
  std::vector<NodePosteriors> posts;
};

SentenceParse ParseOne(const ChartModel& first, const std::vector<EnsembleMember>& others,
                       const Corpus& corpus, int32_t s, int k, double prune, double member_prune,
                       bool prune_retry, Scratch& scratch) {
  const std::vector<Token> tokens = first.Tokens(corpus, s);
  const int n = static_cast<int>(tokens.size());
  // The first member's posteriors stay on its masked chart, which the decode reuses.
  Chart& ch = *scratch.charts[0];
  const CoarseOutcome coarse =
      prune > 0 ? first.MaskByCoarsePass(tokens, prune, ch) : CoarseOutcome::kUnmasked;
  if (coarse == CoarseOutcome::kNoTree)
    return first.ParseWithoutTree(tokens, k, ch, true, prune, prune_retry);
  const bool masked = coarse == CoarseOutcome::kMasked;
  ch.Begin(n, first.grammar.num_symbols, true);
  CrfSentence& sent = scratch.sentences[0];
  sent.Prepare(first.crf, first.grammar, first.lexicon, tokens);
  double log_z = kNegInf;
  NodePosteriors& post = scratch.posts[0];
  CollectPosteriors(first.grammar, sent.lex(), sent, ch, log_z, post);
  std::vector<ParseCandidate> best;
  if (log_z != kNegInf) {
    // Each other member on its own chart, masked by the first.
    std::vector<uint8_t> covered(others.size(), 0);
    int members = 1;
    for (size_t m = 0; m < others.size(); ++m) {
      covered[m] = MemberPosteriors(others[m], post, others[m].model->Tokens(corpus, s), prune, member_prune,
                                    *scratch.charts[m + 1], scratch.sentences[m + 1], scratch.posts[m + 1]);
      members += covered[m];
    }
    const double w = 1.0 / members;
    for (double& v : post.bracket) v *= w;
    for (auto& tags : post.lex)
      for (auto& entry : tags) entry.second *= w;
    for (size_t m = 0; m < others.size(); ++m) {
      if (covered[m]) AddMapped(scratch.posts[m + 1], others[m], w, post);
    }
    best = MbrDecode(first.grammar, sent.lex(), sent, post, log_z, ch, kMbrUnaryCost, k);
  }
  ch.Clear();
  if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
  if (!best.empty()) {
    SentenceParse out;
    out.candidates = std::move(best);
    SparseBrackets(post, out.brackets);
    return out;
  }
  return first.Parse(tokens, k, ch, false, INFINITY, prune, true, prune_retry);
}

}  // namespace

std::vector<SentenceParse> ParseEnsemble(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                         const Corpus& corpus, int threads, const std::atomic<bool>* cancel,
                                         double prune, int max_length, bool prune_retry, double member_prune,
                                         int k) {
  for (const EnsembleMember& m : others) {
    if (!m.model || !m.model->use_crf) throw InputError("parser ensemble: every member must be a CRF parser");
    if (m.base_map.size() != static_cast<size_t>(m.model->grammar.num_bases) ||
        m.tag_map.size() != static_cast<size_t>(m.model->grammar.num_symbols))
      throw InputError("parser ensemble: a member's category maps do not fit its grammar");
  }
  if (!first.use_crf) throw InputError("parser ensemble: every member must be a CRF parser");
  std::vector<SentenceParse> out(corpus.size());
  const int nthreads = threads;
  auto model_of = [&](size_t m) -> const ChartModel& { return m == 0 ? first : *others[m - 1].model; };
  std::vector<Scratch> scratch(nthreads);
  for (Scratch& t : scratch) {
    for (size_t m = 0; m <= others.size(); ++m) {
      t.charts.push_back(model_of(m).AcquireChart());
      t.charts.back()->cancel = cancel;
    }
    t.sentences.resize(others.size() + 1);
    t.posts.resize(others.size() + 1);
  }
  ParallelFor(
      corpus.size(), nthreads, 1,
      [&](size_t begin, size_t end, int t) {
        for (size_t s = begin; s < end; ++s) {
          const int32_t id = static_cast<int32_t>(s);
          if (max_length > 0 && corpus.Length(id) > max_length) {
            out[s] = ChartModel::FlatParse(first.PcfgLex(first.Tokens(corpus, id)));
          } else {
            out[s] = ParseOne(first, others, corpus, id, k, prune, member_prune, prune_retry, scratch[t]);
          }
        }
      },
      cancel);
  // On an exception the charts (possibly left mid-sentence) are dropped, not pooled.
  for (Scratch& t : scratch) {
    for (size_t m = 0; m <= others.size(); ++m) {
      t.charts[m]->cancel = nullptr;
      model_of(m).ReleaseChart(std::move(t.charts[m]));
    }
  }
  return out;
}

}  // namespace structrank
