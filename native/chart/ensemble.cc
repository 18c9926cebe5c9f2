#include "chart/ensemble.h"

#include <cmath>
#include <memory>

#include "chart/crf_features.h"
#include "chart/mbr.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// One member's posteriors over its own (masked) chart; false when it covers nothing. Leaves
// the chart cleared and unmasked.
bool MemberPosteriors(const ChartModel& m, const std::vector<Token>& tokens, double prune, Chart& ch,
                      NodePosteriors& post) {
  const int n = static_cast<int>(tokens.size());
  const bool masked = prune > 0 && m.MaskByCoarsePass(tokens, prune, ch);
  ch.Begin(n, m.grammar.num_symbols, true);
  CrfSentence sent;
  sent.Prepare(m.crf, m.grammar, m.lexicon, tokens);
  double log_z = kNegInf;
  post = CollectPosteriors(m.grammar, sent.lex(), sent, ch, log_z);
  ch.Clear();
  if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
  return log_z != kNegInf;
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

SentenceParse ParseOne(const ChartModel& first, const std::vector<EnsembleMember>& others, const Corpus& corpus,
                       int32_t s, double prune, Chart& ch) {
  const std::vector<Token> tokens = first.Tokens(corpus, s);
  const int n = static_cast<int>(tokens.size());
  // The other members first: each leaves the chart as it found it.
  std::vector<NodePosteriors> posts(others.size());
  std::vector<uint8_t> covered(others.size(), 0);
  for (size_t m = 0; m < others.size(); ++m) {
    covered[m] = MemberPosteriors(*others[m].model, others[m].model->Tokens(corpus, s), prune, ch, posts[m]) ? 1 : 0;
  }
  // The first member's posteriors stay on its masked chart, which the decode reuses.
  const bool masked = prune > 0 && first.MaskByCoarsePass(tokens, prune, ch);
  ch.Begin(n, first.grammar.num_symbols, true);
  CrfSentence sent;
  sent.Prepare(first.crf, first.grammar, first.lexicon, tokens);
  double log_z = kNegInf;
  NodePosteriors post = CollectPosteriors(first.grammar, sent.lex(), sent, ch, log_z);
  std::vector<ParseCandidate> best;
  if (log_z != kNegInf) {
    int members = 1;
    for (uint8_t c : covered) members += c;
    const double w = 1.0 / members;
    for (double& v : post.bracket) v *= w;
    for (auto& tags : post.lex)
      for (auto& entry : tags) entry.second *= w;
    for (size_t m = 0; m < others.size(); ++m) {
      if (covered[m]) AddMapped(posts[m], others[m], w, post);
    }
    best = MbrDecode(first.grammar, sent.lex(), sent, post, log_z, ch);
  }
  ch.Clear();
  if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
  if (!best.empty()) {
    SentenceParse out;
    out.candidates = std::move(best);
    return out;
  }
  return first.Parse(tokens, 1, ch, false, INFINITY, prune, true);
}

}  // namespace

std::vector<SentenceParse> ParseEnsemble(const ChartModel& first, const std::vector<EnsembleMember>& others,
                                         const Corpus& corpus, int threads, const std::atomic<bool>* cancel,
                                         double prune, int max_length) {
  for (const EnsembleMember& m : others) {
    if (!m.model || !m.model->use_crf) throw InputError("parser ensemble: every member must be a CRF parser");
    if (m.base_map.size() != static_cast<size_t>(m.model->grammar.num_bases) ||
        m.tag_map.size() != static_cast<size_t>(m.model->grammar.num_symbols))
      throw InputError("parser ensemble: a member's category maps do not fit its grammar");
  }
  if (!first.use_crf) throw InputError("parser ensemble: every member must be a CRF parser");
  std::vector<SentenceParse> out(corpus.size());
  const int nthreads = ResolveThreads(threads);
  std::vector<std::unique_ptr<Chart>> charts(nthreads);
  for (auto& c : charts) {
    c = std::make_unique<Chart>();
    c->cancel = cancel;
  }
  ParallelFor(corpus.size(), nthreads, 1, [&](size_t begin, size_t end, int t) {
    for (size_t s = begin; s < end; ++s) {
      const int32_t id = static_cast<int32_t>(s);
      if (max_length > 0 && corpus.Length(id) > max_length) {
        out[s] = ChartModel::FlatParse(first.PcfgLex(first.Tokens(corpus, id)));
      } else {
        out[s] = ParseOne(first, others, corpus, id, prune, *charts[t]);
      }
    }
  }, cancel);
  return out;
}

}  // namespace structrank
