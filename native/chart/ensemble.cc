#include "chart/ensemble.h"

#include <cmath>
#include <memory>

#include "chart/crf_features.h"
#include "chart/mbr.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// Masks a member's chart to what the first member's posteriors keep: an entry survives when
// the first member gives its base category (or, for a CRF member's tag, the tag) at that span
// a posterior >= threshold; a category the first member lacks survives where the span has
// that much posterior mass at all. A PCFG member keeps every tag its lexicon gives a word: its
// rare-word classes differ from the CRF's, and a word it cannot tag leaves it no tree. The
// first member's fine posteriors prune far more than each member's own PCFG pass would, and
// they are already computed.
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
          keep = j == i + 1 && (!m.model->use_crf || to < 0 || tag_post[to] >= threshold);
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
// that mask covers nothing, by its own coarse pass (a CRF; a PCFG is then left out: its own
// pass would cost a parse of its whole grammar); exhaustive when prune is 0. False when
// nothing covers the sentence, or when the member's chart would take more than
// `max_chart_bytes`. Leaves the chart cleared and unmasked.
bool MemberPosteriors(const EnsembleMember& m, const NodePosteriors& first, const std::vector<Token>& tokens,
                      double prune, double member_prune, double max_chart_bytes, Chart& ch, CrfSentence& sent,
                      NodePosteriors& post) {
  const ChartModel& model = *m.model;
  const Grammar& g = model.grammar;
  // Inside and outside scores, before and after the unary layer: four doubles per entry.
  const double chart_bytes = 32.0 * Chart::NumCells(static_cast<int>(tokens.size())) * g.num_symbols;
  if (chart_bytes > max_chart_bytes) return false;
  LexScores pcfg_lex;
  if (model.use_crf)
    sent.Prepare(model.crf, g, model.lexicon, tokens);
  else
    pcfg_lex = model.PcfgLex(tokens);
  const PcfgScorer pcfg{model.binary_logp.data(), model.unary_logp.data(), model.root_logp.data()};
  auto run = [&](bool masked) {
    double log_z = kNegInf;
    ch.Begin(static_cast<int>(tokens.size()), g.num_symbols, true);
    if (model.use_crf)
      CollectPosteriors(g, sent.lex(), sent, ch, log_z, post);
    else
      CollectPosteriors(g, pcfg_lex, pcfg, ch, log_z, post);
    ch.Clear();
    if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
    return log_z != kNegInf;
  };
  if (prune <= 0) return run(false);
  MaskByFirst(m, first, member_prune, ch);
  if (run(true)) return true;
  if (!model.use_crf) return false;
  const CoarseOutcome coarse = model.MaskByCoarsePass(tokens, prune, ch);
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
// megabytes for a long sentence. The charts and scorers come from each member's pools.
struct Scratch {
  std::vector<std::unique_ptr<Chart>> charts;
  std::vector<std::unique_ptr<CrfSentence>> sentences;
  std::vector<NodePosteriors> posts;
  NodePosteriors mixed;  // the weighted mean of `posts`
};

// After a long sentence: the buffers that hold more than ChartModel::kKeptBufferBytes are
// freed rather than kept for the next one.
void FreeOversized(Scratch& scratch, const std::atomic<bool>* cancel) {
  for (size_t m = 0; m < scratch.charts.size(); ++m) {
    ChartModel::DropIfOversized(*scratch.charts[m]);
    scratch.charts[m]->cancel = cancel;
    ChartModel::DropIfOversized(*scratch.sentences[m]);
  }
  for (NodePosteriors& p : scratch.posts) ChartModel::DropIfOversized(p);
  ChartModel::DropIfOversized(scratch.mixed);
}

// The weighted mean of the first member's posteriors and those of the others that cover the
// sentence, in the first member's categories.
void MixPosteriors(const NodePosteriors& first, const std::vector<EnsembleMember>& others,
                   const std::vector<NodePosteriors>& posts, const std::vector<uint8_t>& covered,
                   const EnsembleMix& mix, NodePosteriors& out) {
  auto weight = [&](size_t m) { return mix.empty() ? 1.0 : mix[m]; };
  double total = weight(0);
  for (size_t m = 0; m < others.size(); ++m) total += covered[m] ? weight(m + 1) : 0.0;
  const double w = weight(0) / total;
  out.n = first.n, out.B = first.B, out.g = first.g;
  out.bracket.resize(first.bracket.size());
  for (size_t c = 0; c < first.bracket.size(); ++c) out.bracket[c] = w * first.bracket[c];
  out.lex = first.lex;
  for (auto& tags : out.lex)
    for (auto& entry : tags) entry.second *= w;
  for (size_t m = 0; m < others.size(); ++m) {
    if (covered[m] && weight(m + 1) != 0) AddMapped(posts[m + 1], others[m], weight(m + 1) / total, out);
  }
}

// One sentence's k best trees under each of `mixes`; with `viterbi`, also the first member's
// Viterbi viterbi_k-best, as its own Parse gives it.
std::vector<SentenceParse> ParseOne(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                    const Corpus& corpus, int32_t s, int k, double prune, double member_prune,
                                    double max_chart_bytes, bool prune_retry,
                                    const std::vector<EnsembleMix>& mixes, Scratch& scratch, int viterbi_k,
                                    SentenceParse* viterbi) {
  const std::vector<Token> tokens = first.Tokens(corpus, s);
  const int n = static_cast<int>(tokens.size());
  // The first member's posteriors stay on its masked chart, which the decode reuses.
  Chart& ch = *scratch.charts[0];
  const CoarseOutcome coarse =
      prune > 0 ? first.MaskByCoarsePass(tokens, prune, ch) : CoarseOutcome::kUnmasked;
  if (coarse == CoarseOutcome::kNoTree) {
    if (viterbi) *viterbi = first.ParseWithoutTree(tokens, viterbi_k, ch, false, prune, prune_retry);
    return std::vector<SentenceParse>(mixes.size(),
                                      first.ParseWithoutTree(tokens, k, ch, true, prune, prune_retry));
  }
  const bool masked = coarse == CoarseOutcome::kMasked;
  ch.Begin(n, first.grammar.num_symbols, true);
  CrfSentence& sent = *scratch.sentences[0];
  sent.Prepare(first.crf, first.grammar, first.lexicon, tokens);
  double log_z = kNegInf;
  NodePosteriors& post = scratch.posts[0];
  CollectPosteriors(first.grammar, sent.lex(), sent, ch, log_z, post);
  std::vector<SentenceParse> out(mixes.size());
  std::vector<uint8_t> decoded(mixes.size(), 0);
  if (log_z != kNegInf) {
    // Each other member on its own chart, masked by the first.
    std::vector<uint8_t> covered(others.size(), 0);
    for (size_t m = 0; m < others.size(); ++m) {
      covered[m] = MemberPosteriors(others[m], post, others[m].model->Tokens(corpus, s), prune, member_prune,
                                    max_chart_bytes, *scratch.charts[m + 1], *scratch.sentences[m + 1],
                                    scratch.posts[m + 1]);
    }
    for (size_t x = 0; x < mixes.size(); ++x) {
      MixPosteriors(post, others, scratch.posts, covered, mixes[x], scratch.mixed);
      out[x].candidates =
          MbrDecode(first.grammar, sent.lex(), sent, scratch.mixed, log_z, ch, kMbrUnaryCost, k);
      decoded[x] = !out[x].candidates.empty();
      if (decoded[x]) SparseBrackets(scratch.mixed, out[x].brackets);
    }
  }
  // The same prepared sentence and masked chart: what the first member's Parse would compute
  // again. A fallback there takes that Parse's retries instead.
  bool viterbi_done = false;
  if (viterbi && log_z != kNegInf) {
    *viterbi = first.ViterbiOn(sent, viterbi_k, ch, log_z);
    viterbi_done = !viterbi->fallback;
  }
  ch.Clear();
  if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
  for (size_t x = 0; x < mixes.size(); ++x) {
    if (!decoded[x]) out[x] = first.Parse(tokens, k, ch, false, INFINITY, prune, true, prune_retry);
  }
  // The first member's Viterbi list from its own Parse, where the shared chart cannot give it.
  if (viterbi && !viterbi_done)
    *viterbi = first.Parse(tokens, viterbi_k, ch, false, INFINITY, prune, false, prune_retry);
  return out;
}

// Every sentence under every mix (out[mix][sentence]).
std::vector<std::vector<SentenceParse>> ParseAll(
    const ChartModel& first, const std::vector<EnsembleMember>& others, const Corpus& corpus, int threads,
    const std::atomic<bool>* cancel, double prune, int max_length, bool prune_retry, double member_prune,
    int k, const std::vector<EnsembleMix>& mixes, double max_chart_bytes, int viterbi_k = 0,
    std::vector<SentenceParse>* viterbi = nullptr) {
  if (!first.use_crf) throw InputError("parser ensemble: the first member must be a CRF parser");
  for (const EnsembleMember& m : others) {
    if (!m.model) throw InputError("parser ensemble: a member has no model");
    if (m.base_map.size() != static_cast<size_t>(m.model->grammar.num_bases) ||
        m.tag_map.size() != static_cast<size_t>(m.model->grammar.num_symbols))
      throw InputError("parser ensemble: a member's category maps do not fit its grammar");
  }
  for (const EnsembleMix& mix : mixes) {
    if (!mix.empty() && mix.size() != others.size() + 1)
      throw InputError("parser ensemble: a mix needs one weight per member");
    for (double w : mix)
      if (!(w >= 0 && std::isfinite(w))) throw InputError("parser ensemble: weights must be finite and >= 0");
    if (!mix.empty() && !(mix[0] > 0))
      throw InputError("parser ensemble: the first member's weight must be > 0");
  }
  std::vector<std::vector<SentenceParse>> out(mixes.size(), std::vector<SentenceParse>(corpus.size()));
  if (viterbi) viterbi->assign(corpus.size(), SentenceParse());
  const int nthreads = threads;
  auto model_of = [&](size_t m) -> const ChartModel& { return m == 0 ? first : *others[m - 1].model; };
  std::vector<Scratch> scratch(nthreads);
  for (Scratch& t : scratch) {
    for (size_t m = 0; m <= others.size(); ++m) {
      t.charts.push_back(model_of(m).AcquireChart());
      t.charts.back()->cancel = cancel;
      t.sentences.push_back(model_of(m).AcquireSentence());
    }
    t.posts.resize(others.size() + 1);
  }
  ParallelFor(
      corpus.size(), nthreads, 1,
      [&](size_t begin, size_t end, int t) {
        for (size_t s = begin; s < end; ++s) {
          const int32_t id = static_cast<int32_t>(s);
          if (max_length > 0 && corpus.Length(id) > max_length) {
            const SentenceParse flat = ChartModel::FlatParse(first.PcfgLex(first.Tokens(corpus, id)));
            for (auto& parses : out) parses[s] = flat;
            if (viterbi) (*viterbi)[s] = flat;
          } else {
            std::vector<SentenceParse> one =
                ParseOne(first, others, corpus, id, k, prune, member_prune, max_chart_bytes, prune_retry,
                         mixes, scratch[t], viterbi_k, viterbi ? &(*viterbi)[s] : nullptr);
            for (size_t x = 0; x < mixes.size(); ++x) out[x][s] = std::move(one[x]);
          }
          FreeOversized(scratch[t], cancel);
        }
      },
      cancel);
  // On an exception the charts (possibly left mid-sentence) are dropped, not pooled.
  for (Scratch& t : scratch) {
    for (size_t m = 0; m <= others.size(); ++m) {
      t.charts[m]->cancel = nullptr;
      model_of(m).ReleaseChart(std::move(t.charts[m]));
      model_of(m).ReleaseSentence(std::move(t.sentences[m]));
    }
  }
  return out;
}

}  // namespace

std::vector<SentenceParse> ParseEnsemble(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                         const Corpus& corpus, int threads, const std::atomic<bool>* cancel,
                                         double prune, int max_length, bool prune_retry, double member_prune,
                                         int k, const EnsembleMix& mix, double max_chart_bytes, int viterbi_k,
                                         std::vector<SentenceParse>* viterbi) {
  if (viterbi && viterbi_k < 1) throw InputError("parser ensemble: the Viterbi list needs k >= 1");
  return std::move(ParseAll(first, others, corpus, threads, cancel, prune, max_length, prune_retry,
                            member_prune, k, {mix}, max_chart_bytes, viterbi_k, viterbi)[0]);
}

std::vector<std::vector<SentenceParse>> ParseEnsembleMixes(const ChartModel& first,
                                                           const std::vector<EnsembleMember>& others,
                                                           const Corpus& corpus, int threads,
                                                           const std::atomic<bool>* cancel, double prune,
                                                           int max_length, bool prune_retry,
                                                           const std::vector<EnsembleMix>& mixes) {
  return ParseAll(first, others, corpus, threads, cancel, prune, max_length, prune_retry,
                  kEnsembleMemberPrune, 1, mixes, kEnsembleMemberChartBytes);
}

}  // namespace structrank
