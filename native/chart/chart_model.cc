#include "chart/chart_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "chart/mbr.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {
// Version 2 appends the optional extras (verb tags, word clusters, verb features);
// version 3 writes the CRF's surface hash bits before its weights and appends the
// lexicon's signature scheme (learned suffixes); version 4 appends the shape back-off of
// the unknown-word model; version 5 stores only the CRF's non-zero weights (most of a hashed surface table is
// empty); version 6 appends whether the CRF's surface features see tag sets; version 7 whether
// its surface table is laid out in rows (CrfWeights::surface_rows); version 8 whether its surface
// features see word clusters (CrfWeights::surface_clusters); version 9 says after the version
// whether the model is a latent PCFG, stored as its LatentGrammar and lexicon (the rules are
// expanded on reading).
constexpr uint32_t kPayloadVersion = 9;
}  // namespace

std::unique_ptr<ChartModel> ChartModel::BuildPcfg(const SymbolInfo& symbols, const Corpus& corpus,
                                                  const std::vector<int32_t>& pairs,
                                                  const std::vector<int32_t>& tree_offsets,
                                                  const PcfgOptions& options,
                                                  std::vector<GoldItems>* gold_out) {
  const int rare_threshold = options.rare_threshold;
  const int32_t S = static_cast<int32_t>(symbols.is_tag.size());
  if (S == 0 || symbols.base.size() != static_cast<size_t>(S) || symbols.num_bases <= 0)
    throw InputError("chart grammar: empty or inconsistent symbol table");
  if (tree_offsets.size() != corpus.offsets.size())
    throw InputError("chart grammar: tree and sentence counts differ");
  if (corpus.size() == 0) throw InputError("chart grammar: no training trees");
  auto model = std::make_unique<ChartModel>();
  Grammar& g = model->grammar;
  g.num_symbols = S;
  g.num_bases = symbols.num_bases;
  g.is_tag = symbols.is_tag;
  g.base = symbols.base;
  for (int32_t b : g.base)
    if (b < 0 || b >= g.num_bases) throw InputError("chart grammar: bad base category id");
  if (!symbols.is_verb.empty()) {
    if (symbols.is_verb.size() != static_cast<size_t>(S))
      throw InputError("chart grammar: verb flags do not match the symbols");
    g.is_verb = symbols.is_verb;
  }
  if (options.relax && symbols.relax_group.size() != static_cast<size_t>(S))
    throw InputError("chart grammar: relaxation needs a group per symbol");
  if (!(options.relax_weight > 0 && options.relax_weight < 1))
    throw InputError("chart grammar: relax weight must be in (0, 1)");

  std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> binary_ids;
  std::map<std::pair<int32_t, int32_t>, int32_t> unary_ids;
  std::map<int32_t, int32_t> root_ids;
  std::vector<double> binary_count, unary_count, root_count, node_count(S, 0.0);
  std::vector<GoldItems> gold(corpus.size());
  Lexicon& lex = model->lexicon;
  lex.num_tags_symbols = S;
  lex.rare_threshold = rare_threshold;
  lex.shape_backoff = options.shape_backoff;
  if (!options.cluster_words.empty()) lex.SetClusters(options.cluster_words, options.cluster_ids);
  for (int32_t s = 0; s < corpus.size(); ++s) {
    const int32_t begin = tree_offsets[s], end = tree_offsets[s + 1];
    if (begin < 0 || end < begin || static_cast<size_t>(end) * 2 > pairs.size())
      throw InputError("chart grammar: bad tree offsets");
    gold[s] = DecodeGoldTree(&pairs[2 * static_cast<size_t>(begin)], end - begin, corpus.Length(s), S);
    const GoldItems& it = gold[s];
    for (const auto& b : it.binary) {
      if (g.is_tag[b.parent]) throw InputError("chart grammar: a POS tag has children");
      auto [pos, fresh] = binary_ids.emplace(std::make_tuple(b.parent, b.left, b.right),
                                             static_cast<int32_t>(g.binary.size()));
      if (fresh) g.binary.push_back({b.parent, b.left, b.right}), binary_count.push_back(0);
      binary_count[pos->second] += 1;
      node_count[b.parent] += 1;
    }
    for (const auto& u : it.unary) {
      if (g.is_tag[u.parent]) throw InputError("chart grammar: a POS tag has children");
      auto [pos, fresh] =
          unary_ids.emplace(std::make_pair(u.parent, u.child), static_cast<int32_t>(g.unary.size()));
      if (fresh) g.unary.push_back({u.parent, u.child}), unary_count.push_back(0);
      unary_count[pos->second] += 1;
      node_count[u.parent] += 1;
    }
    for (const auto& l : it.lex) {
      if (!g.is_tag[l.tag]) throw InputError("chart grammar: a word under a symbol that is not a POS tag");
      lex.Add(corpus.tokens[corpus.offsets[s] + l.i], l.i == 0, l.tag);
    }
    auto [pos, fresh] = root_ids.emplace(it.root, static_cast<int32_t>(g.root.size()));
    if (fresh) g.root.push_back(it.root), root_count.push_back(0);
    root_count[pos->second] += 1;
  }
  lex.Finish();
  for (int32_t s = 0; s < corpus.size(); ++s)
    for (const auto& l : gold[s].lex) lex.AddRare(corpus.tokens[corpus.offsets[s] + l.i], l.i == 0, l.tag);
  lex.FinishRare();
  // Relaxation: pool each group's rules over its members' parent annotations.
  std::vector<int32_t> group(S, -1);
  std::vector<double> group_count;
  std::map<std::tuple<int32_t, int32_t, int32_t>, double> pooled_binary;  // (group, left, right)
  std::map<std::pair<int32_t, int32_t>, double> pooled_unary;             // (group, child)
  if (options.relax) {
    int32_t groups = 0;
    for (int32_t x = 0; x < S; ++x) {
      // Only phrasal states that head some rule can be relaxed.
      if (symbols.relax_group[x] >= 0 && !g.is_tag[x] && node_count[x] > 0) group[x] = symbols.relax_group[x];
      groups = std::max(groups, group[x] + 1);
    }
    group_count.assign(groups, 0.0);
    std::vector<std::vector<int32_t>> members(groups);
    for (int32_t x = 0; x < S; ++x)
      if (group[x] >= 0) members[group[x]].push_back(x), group_count[group[x]] += node_count[x];
    for (size_t r = 0; r < g.binary.size(); ++r)
      if (group[g.binary[r].parent] >= 0)
        pooled_binary[std::make_tuple(group[g.binary[r].parent], g.binary[r].left, g.binary[r].right)] +=
            binary_count[r];
    for (size_t r = 0; r < g.unary.size(); ++r)
      if (group[g.unary[r].parent] >= 0)
        pooled_unary[std::make_pair(group[g.unary[r].parent], g.unary[r].child)] += unary_count[r];
    for (const auto& [key, count] : pooled_binary) {
      const auto [gr, left, right] = key;
      for (int32_t q : members[gr]) {
        auto [pos, fresh] =
            binary_ids.emplace(std::make_tuple(q, left, right), static_cast<int32_t>(g.binary.size()));
        if (fresh) g.binary.push_back({q, left, right}), binary_count.push_back(0), ++model->relaxed_binary;
      }
    }
    for (const auto& [key, count] : pooled_unary) {
      const auto [gr, child] = key;
      for (int32_t q : members[gr]) {
        if (q == child) continue;  // never a repeated unary state
        auto [pos, fresh] = unary_ids.emplace(std::make_pair(q, child), static_cast<int32_t>(g.unary.size()));
        if (fresh) g.unary.push_back({q, child}), unary_count.push_back(0), ++model->relaxed_unary;
      }
    }
  }
  g.BuildIndexes();
  model->binary_logp.resize(g.binary.size());
  model->unary_logp.resize(g.unary.size());
  model->root_logp.resize(g.root.size());
  const double lambda = options.relax_weight;
  auto rule_logp = [&](int32_t parent, double count, double pooled) {
    const double ml = count / node_count[parent];
    if (group[parent] < 0) return std::log(ml);
    return std::log((1 - lambda) * ml + lambda * pooled / group_count[group[parent]]);
  };
  for (size_t r = 0; r < g.binary.size(); ++r) {
    const BinaryRule& b = g.binary[r];
    const double pooled =
        group[b.parent] >= 0 ? pooled_binary[std::make_tuple(group[b.parent], b.left, b.right)] : 0.0;
    model->binary_logp[r] = rule_logp(b.parent, binary_count[r], pooled);
  }
  for (size_t r = 0; r < g.unary.size(); ++r) {
    const UnaryRule& u = g.unary[r];
    const double pooled = group[u.parent] >= 0 ? pooled_unary[std::make_pair(group[u.parent], u.child)] : 0.0;
    model->unary_logp[r] = rule_logp(u.parent, unary_count[r], pooled);
  }
  for (size_t r = 0; r < g.root.size(); ++r) model->root_logp[r] = std::log(root_count[r] / corpus.size());
  if (gold_out) *gold_out = std::move(gold);
  return model;
}

std::vector<Token> ChartModel::Tokens(const Corpus& corpus, int32_t s) const {
  std::vector<Token> tokens;
  const int32_t n = corpus.Length(s);
  tokens.reserve(n);
  for (int32_t i = 0; i < n; ++i)
    tokens.push_back(lexicon.Lookup(corpus.tokens[corpus.offsets[s] + i], i == 0));
  if (latent)
    for (Token& token : tokens) ExpandTags(token);
  return tokens;
}

void ChartModel::ExpandTags(Token& token) const {
  std::vector<int32_t> subs;
  for (int32_t t : token.tags)
    for (int32_t a = 0; a < latent->num_subs[t]; ++a) subs.push_back(latent->first_sub[t] + a);
  token.tags = std::move(subs);
}

LexScores ChartModel::PcfgLex(const std::vector<Token>& tokens) const {
  LexScores lex(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (latent) {
      const int32_t word_class = latent->ClassOf(lexicon, tokens[i]);
      for (int32_t x : tokens[i].tags)
        lex[i].emplace_back(
            x, lexicon.LogProb(tokens[i], latent->symbol_of[x]) + latent->SplitScore(word_class, x));
    } else {
      for (int32_t t : tokens[i].tags) lex[i].emplace_back(t, lexicon.LogProb(tokens[i], t));
    }
  }
  return lex;
}

namespace {
template <typename Scorer>
SentenceParse ParseWith(const Grammar& g, const LexScores& lex, const Scorer& scorer, int k, Chart& ch,
                        double log_z, double beam) {
  SentenceParse out;
  ch.beam = beam;
  const double best = Inside<MaxSemiring>(g, lex, scorer, ch);
  ch.beam = INFINITY;
  if (best != kNegInf) {
    KBest<Scorer> kbest(g, lex, scorer, ch);
    out.candidates = kbest.Run(k);
    for (auto& c : out.candidates) c.score -= log_z;
  } else {
    out = ChartModel::FlatParse(lex);
  }
  return out;
}
}  // namespace

SentenceParse ChartModel::FlatParse(const LexScores& lex) {
  const int n = static_cast<int>(lex.size());
  ParseCandidate c;
  c.nodes = {kFallbackLabel, n};
  for (int i = 0; i < n; ++i) {
    int32_t tag = -1;
    double s = kNegInf;
    for (const auto& ts : lex[i])
      if (tag < 0 || ts.second > s) tag = ts.first, s = ts.second;
    if (tag < 0) throw InputError("chart parser: a word has no possible tag");
    c.nodes.push_back(tag), c.nodes.push_back(0);
    c.score += s;
  }
  SentenceParse out;
  out.candidates.push_back(std::move(c));
  out.fallback = true;
  return out;
}

int64_t ChartModel::CoarseEntries(const std::vector<Token>& tokens, double threshold, Chart& ch,
                                  std::vector<int32_t>& keep_pre, std::vector<int32_t>& keep_post,
                                  double beam) const {
  const int n = static_cast<int>(tokens.size());
  const int S = grammar.num_symbols;
  keep_pre.clear(), keep_post.clear();
  std::vector<uint8_t> saved_pre, saved_post;  // the coarse pass itself runs unmasked
  saved_pre.swap(ch.mask_pre), saved_post.swap(ch.mask_post);
  ch.Begin(n, S, true);
  const CoarseRules& rules = Coarse();
  const LexScores lex = PcfgLex(tokens);
  // Max-marginals (Viterbi inside + outside): an entry's best complete tree relative to
  // the best tree. The max semiring needs no exp/log, so this pass costs a fraction of a
  // log-sum one; an entry survives when its best tree is at least threshold times as
  // probable as the best tree.
  const double best = CoarseInside(grammar, rules, lex, ch, beam);
  int64_t total = 0;
  if (best != kNegInf) {
    const double floor = best + std::log(threshold);
    CoarseOutside(grammar, rules, floor, ch);
    for (int cell = 0; cell < Chart::NumCells(n); ++cell) {
      const size_t base = static_cast<size_t>(cell) * S;
      for (int a = ch.pre_begin[cell]; a < ch.pre_end[cell]; ++a) {
        const int32_t x = ch.active_pre[a];
        if (ch.pre[base + x] + ch.out_pre[base + x] >= floor)
          keep_pre.push_back(static_cast<int32_t>(base + x));
      }
      for (int a = ch.post_begin[cell]; a < ch.post_end[cell]; ++a) {
        const int32_t x = ch.active_post[a];
        if (ch.post[base + x] + ch.out_post[base + x] >= floor)
          keep_post.push_back(static_cast<int32_t>(base + x));
      }
      total += (ch.pre_end[cell] - ch.pre_begin[cell]) + (ch.post_end[cell] - ch.post_begin[cell]);
    }
  }
  ch.Clear();
  saved_pre.swap(ch.mask_pre), saved_post.swap(ch.mask_post);
  return total;
}

const CoarseRules& ChartModel::Coarse() const {
  std::call_once(coarse_once_, [this] {
    coarse_rules_ =
        std::make_unique<const CoarseRules>(grammar, binary_logp.data(), unary_logp.data(), root_logp.data());
  });
  return *coarse_rules_;
}

ChartModel::CoarseKeep ChartModel::RunCoarsePass(const std::vector<Token>& tokens, double prune,
                                                 Chart& ch) const {
  CoarseKeep k;
  // The beam can drop every tree of a long sentence; the exact pass then decides.
  if (CoarseEntries(tokens, prune, ch, k.keep_pre, k.keep_post, kCoarseBeam) == 0 || k.keep_post.empty()) {
    if (CoarseEntries(tokens, prune, ch, k.keep_pre, k.keep_post) == 0) {
      bool lex_finite = true;
      for (const auto& word : PcfgLex(tokens))
        for (const auto& [tag, score] : word) lex_finite = lex_finite && std::isfinite(score);
      k.outcome = Coarse().all_finite && lex_finite ? CoarseOutcome::kNoTree : CoarseOutcome::kUnmasked;
      return k;
    }
    if (k.keep_post.empty()) return k;
  }
  k.outcome = CoarseOutcome::kMasked;
  return k;
}

void ChartModel::KeepCoarseMasks(size_t max_bytes) const {
  std::lock_guard<std::mutex> lock(mask_mutex_);
  max_mask_bytes_ = max_bytes;
  if (max_bytes == 0) kept_masks_.clear(), kept_mask_bytes_ = 0;
}

CoarseOutcome ChartModel::MaskByCoarsePass(const std::vector<Token>& tokens, double prune, Chart& ch) const {
  std::string key;
  CoarseKeep k;
  bool found = false;
  bool keeping;
  {
    std::lock_guard<std::mutex> lock(mask_mutex_);
    keeping = max_mask_bytes_ > 0;
  }
  if (keeping) {
    // The pass reads the threshold, the words (their lexical scores) and their tags. The key
    // is built outside the lock, which other threads wait on.
    key.append(reinterpret_cast<const char*>(&prune), sizeof prune);
    for (const Token& t : tokens) {
      const int32_t sizes[2] = {static_cast<int32_t>(t.text.size()), static_cast<int32_t>(t.tags.size())};
      key.append(reinterpret_cast<const char*>(sizes), sizeof sizes);
      key.append(t.text);
      key.append(reinterpret_cast<const char*>(t.tags.data()), t.tags.size() * sizeof(int32_t));
    }
    std::lock_guard<std::mutex> lock(mask_mutex_);
    auto it = kept_masks_.find(key);
    if (it != kept_masks_.end()) k = it->second, found = true;
  }
  if (!found) {
    k = RunCoarsePass(tokens, prune, ch);
    if (!key.empty()) {
      std::lock_guard<std::mutex> lock(mask_mutex_);
      const size_t bytes = key.size() + (k.keep_pre.size() + k.keep_post.size()) * sizeof(int32_t);
      if (max_mask_bytes_ > 0 && kept_mask_bytes_ + bytes <= max_mask_bytes_ &&
          kept_masks_.emplace(key, k).second)
        kept_mask_bytes_ += bytes;
    }
  }
  if (k.outcome != CoarseOutcome::kMasked) return k.outcome;
  const size_t need =
      static_cast<size_t>(Chart::NumCells(static_cast<int>(tokens.size()))) * grammar.num_symbols;
  ch.mask_pre.assign(need, 0), ch.mask_post.assign(need, 0);
  for (int32_t e : k.keep_pre) ch.mask_pre[e] = 1;
  for (int32_t e : k.keep_post) ch.mask_post[e] = 1;
  return CoarseOutcome::kMasked;
}

SentenceParse ChartModel::Parse(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg,
                                double beam, double prune, bool mbr, bool prune_retry,
                                bool with_mbr_tree) const {
  if (tokens.empty()) throw InputError("chart parser: empty sentence");
  bool no_tree = false;
  SentenceParse out = ParseOnce(tokens, k, ch, force_pcfg, beam, prune, mbr, with_mbr_tree, &no_tree);
  if (out.fallback && !no_tree && (beam < INFINITY || prune > 0))
    out = ParseOnce(tokens, k, ch, force_pcfg, INFINITY, 0, mbr, with_mbr_tree, nullptr);  // pruned too much
  if (out.fallback) RetryWithEveryTag(tokens, k, ch, force_pcfg, mbr, prune, prune_retry, with_mbr_tree, out);
  return out;
}

SentenceParse ChartModel::ParseWithoutTree(const std::vector<Token>& tokens, int k, Chart& ch, bool mbr,
                                           double prune, bool prune_retry) const {
  if (tokens.empty()) throw InputError("chart parser: empty sentence");
  SentenceParse out = NoTreeParse(tokens);
  RetryWithEveryTag(tokens, k, ch, false, mbr, prune, prune_retry, false, out);
  return out;
}

void ChartModel::RetryWithEveryTag(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg,
                                   bool mbr, double prune, bool prune_retry, bool with_mbr_tree,
                                   SentenceParse& out) const {
  // Second attempt with every tag allowed for every word, before the flat fallback. Pruned,
  // its log-probabilities are over the pruned chart, as the first attempt's are.
  std::vector<Token> relaxed = tokens;
  for (Token& t : relaxed) {
    lexicon.Relax(t);
    if (latent) ExpandTags(t);
  }
  const bool pruned = prune_retry && prune > 0 && use_crf && !force_pcfg;
  bool no_tree = false;
  SentenceParse again =
      ParseOnce(relaxed, k, ch, force_pcfg, INFINITY, pruned ? prune : 0, mbr, with_mbr_tree, &no_tree);
  if (again.fallback && pruned && !no_tree)
    again = ParseOnce(relaxed, k, ch, force_pcfg, INFINITY, 0, mbr, with_mbr_tree, nullptr);
  if (!again.fallback) out = std::move(again);
}

SentenceParse ChartModel::ViterbiOn(const CrfSentence& sent, int k, Chart& ch, double log_z) const {
  ch.Clear();
  ch.Begin(static_cast<int>(sent.lex().size()), grammar.num_symbols);
  return ParseWith(grammar, sent.lex(), sent, k, ch, log_z == kNegInf ? 0.0 : log_z, INFINITY);
}

SentenceParse ChartModel::NoTreeParse(const std::vector<Token>& tokens) const {
  const PoolLease<CrfSentence> sent = LeaseSentence();
  sent->Prepare(crf, grammar, lexicon, tokens);
  return FlatParse(sent->lex());
}

SentenceParse ChartModel::ParseOnce(const std::vector<Token>& tokens, int k, Chart& ch, bool force_pcfg,
                                    double beam, double prune, bool mbr, bool with_mbr_tree,
                                    bool* no_tree) const {
  const bool crf_pass = use_crf && !force_pcfg;
  const CoarseOutcome coarse =
      crf_pass && prune > 0 ? MaskByCoarsePass(tokens, prune, ch) : CoarseOutcome::kUnmasked;
  if (coarse == CoarseOutcome::kNoTree) {
    // The flat fallback the CRF's own passes would have ended in, without running them.
    if (no_tree) *no_tree = true;
    return NoTreeParse(tokens);
  }
  const bool masked = coarse == CoarseOutcome::kMasked;
  const bool mbr_pass = crf_pass && mbr;
  const bool mbr_tree_pass = crf_pass && !mbr && with_mbr_tree;
  ch.Begin(static_cast<int>(tokens.size()), grammar.num_symbols, mbr_pass || mbr_tree_pass);
  SentenceParse out;
  if (mbr_pass) {
    const PoolLease<CrfSentence> lease = LeaseSentence();
    CrfSentence& sent = *lease;
    sent.Prepare(crf, grammar, lexicon, tokens);
    out.candidates = MbrParse(grammar, sent.lex(), sent, ch, kMbrUnaryCost, &out.brackets, k);
    if (out.candidates.empty()) out = FlatParse(sent.lex());
  } else if (crf_pass) {
    const PoolLease<CrfSentence> lease = LeaseSentence();
    CrfSentence& sent = *lease;
    sent.Prepare(crf, grammar, lexicon, tokens);
    // log Z for conditional probabilities: a log-sum inside pass first (with the MBR tree,
    // the inside-outside pass of its posteriors).
    double log_z = kNegInf;
    std::vector<ParseCandidate> mbr_tree;  // 0 or 1
    std::vector<BracketPosterior> brackets;
    if (mbr_tree_pass)
      mbr_tree = MbrParse(grammar, sent.lex(), sent, ch, kMbrUnaryCost, &brackets, 1, &log_z);
    else
      log_z = Inside<LogSemiring>(grammar, sent.lex(), sent, ch);
    ch.Clear();
    ch.Begin(static_cast<int>(tokens.size()), grammar.num_symbols);
    out = ParseWith(grammar, sent.lex(), sent, k, ch, log_z == kNegInf ? 0.0 : log_z, beam);
    if (!out.fallback && !mbr_tree.empty()) {
      out.has_mbr_tree = true;
      out.mbr_tree = std::move(mbr_tree.front());
      out.brackets = std::move(brackets);
    }
  } else {
    PcfgScorer scorer{binary_logp.data(), unary_logp.data(), root_logp.data()};
    out = ParseWith(grammar, PcfgLex(tokens), scorer, k, ch, 0.0, beam);
  }
  ch.Clear();
  if (masked) ch.mask_pre.clear(), ch.mask_post.clear();
  return out;
}

std::vector<SentenceParse> ChartModel::ParseAll(const Corpus& corpus, int k, int threads,
                                                const std::atomic<bool>* cancel, bool force_pcfg, double beam,
                                                int max_length, double prune, bool mbr, bool prune_retry,
                                                bool with_mbr_tree) const {
  std::vector<SentenceParse> out(corpus.size());
  const int nthreads = threads;
  std::vector<std::unique_ptr<Chart>> charts(nthreads);
  for (auto& c : charts) {
    c = AcquireChart();
    c->cancel = cancel;
  }
  // On an exception the charts (possibly left mid-sentence) are dropped, not pooled.
  ParallelFor(
      corpus.size(), nthreads, 1,
      [&](size_t begin, size_t end, int t) {
        for (size_t s = begin; s < end; ++s) {
          const std::vector<Token> tokens = Tokens(corpus, static_cast<int32_t>(s));
          const bool too_long = max_length > 0 && static_cast<int>(tokens.size()) > max_length;
          out[s] = too_long ? FlatParse(PcfgLex(tokens))
                            : Parse(tokens, k, *charts[t], force_pcfg, beam, prune, mbr, prune_retry,
                                    with_mbr_tree);
          DropIfOversized(*charts[t]);
          charts[t]->cancel = cancel;
        }
      },
      cancel);
  for (auto& c : charts) {
    c->cancel = nullptr;
    ReleaseChart(std::move(c));
  }
  return out;
}

std::unique_ptr<Chart> ChartModel::AcquireChart() const { return chart_pool_.Take(); }

void ChartModel::ReleaseChart(std::unique_ptr<Chart> chart) const { chart_pool_.Give(std::move(chart)); }

std::unique_ptr<CrfSentence> ChartModel::AcquireSentence() const { return sentence_pool_.Take(); }

void ChartModel::ReleaseSentence(std::unique_ptr<CrfSentence> sentence) const {
  sentence_pool_.Give(std::move(sentence));
}

std::vector<uint8_t> ChartModel::Serialize() const {
  ByteWriter out;
  out.Put<uint32_t>(kPayloadVersion);
  out.Put<uint8_t>(latent ? 1 : 0);
  if (latent) {
    latent->Write(out);
    lexicon.Write(out);
    lexicon.WriteClusters(out);
    lexicon.WriteSignatures(out);
    lexicon.WriteBackoff(out);
    return std::move(out.bytes());
  }
  grammar.Write(out);
  lexicon.Write(out);
  out.PutVector(binary_logp);
  out.PutVector(unary_logp);
  out.PutVector(root_logp);
  out.Put<uint8_t>(use_crf ? 1 : 0);
  if (use_crf) {
    out.Put<int32_t>(crf.surface_bits);
    crf.Write(out);
  }
  // Version 2 extras.
  out.PutVector(grammar.is_verb);
  lexicon.WriteClusters(out);
  out.Put<uint8_t>(crf.verb_features ? 1 : 0);
  std::vector<uint64_t> verbs(crf.verb_words.begin(), crf.verb_words.end());
  std::sort(verbs.begin(), verbs.end());
  out.PutVector(verbs);
  // Version 3 extras.
  lexicon.WriteSignatures(out);
  // Version 4 extras.
  lexicon.WriteBackoff(out);
  // Version 6 extras.
  out.Put<uint8_t>(crf.tag_sets ? 1 : 0);
  // Version 7 extras.
  out.Put<uint8_t>(crf.surface_rows ? 1 : 0);
  // Version 8 extras.
  out.Put<uint8_t>(crf.surface_clusters ? 1 : 0);
  return std::move(out.bytes());
}

std::unique_ptr<ChartModel> ChartModel::Deserialize(const uint8_t* data, size_t size) {
  ByteReader in(data, size);
  const uint32_t version = in.Get<uint32_t>();
  if (version < 1 || version > kPayloadVersion) throw InputError("chart model: unsupported payload version");
  if (version >= 9 && in.Get<uint8_t>() != 0) {
    auto latent = std::make_shared<LatentGrammar>(LatentGrammar::Read(in));
    Lexicon lexicon = Lexicon::Read(in, latent->base.num_symbols);
    lexicon.ReadClusters(in);
    lexicon.ReadSignatures(in);
    lexicon.ReadBackoff(in);
    if (!in.AtEnd()) throw InputError("chart model: trailing bytes");
    return ExpandLatent(std::move(latent), std::move(lexicon));
  }
  auto m = std::make_unique<ChartModel>();
  m->grammar = Grammar::Read(in);
  m->lexicon = Lexicon::Read(in, m->grammar.num_symbols);
  m->binary_logp = in.GetVector<double>();
  m->unary_logp = in.GetVector<double>();
  m->root_logp = in.GetVector<double>();
  if (m->binary_logp.size() != m->grammar.binary.size() || m->unary_logp.size() != m->grammar.unary.size() ||
      m->root_logp.size() != m->grammar.root.size())
    throw InputError("chart model: rule scores do not match the grammar");
  m->use_crf = in.Get<uint8_t>() != 0;
  if (m->use_crf) {
    const int32_t bits = version >= 3 ? in.Get<int32_t>() : 0;
    if (bits < 0 || bits > 30) throw InputError("chart model: bad surface hash size");
    m->crf = CrfWeights::Read(in, m->grammar, bits, version >= 5);
  }
  if (version >= 2) {
    m->grammar.is_verb = in.GetVector<uint8_t>();
    if (!m->grammar.is_verb.empty() &&
        m->grammar.is_verb.size() != static_cast<size_t>(m->grammar.num_symbols))
      throw InputError("chart model: verb flags do not match the grammar");
    m->grammar.BuildIndexes();
    m->lexicon.ReadClusters(in);
    m->crf.verb_features = in.Get<uint8_t>() != 0;
    for (uint64_t v : in.GetVector<uint64_t>()) m->crf.verb_words.insert(v);
  }
  if (version >= 3) m->lexicon.ReadSignatures(in);
  if (version >= 4) m->lexicon.ReadBackoff(in);
  if (version >= 6) m->crf.tag_sets = in.Get<uint8_t>() != 0 && m->use_crf && m->crf.surface_bits > 0;
  if (version >= 7) m->crf.surface_rows = in.Get<uint8_t>() != 0 && m->use_crf && m->crf.surface_bits > 0;
  if (version >= 8)
    m->crf.surface_clusters = in.Get<uint8_t>() != 0 && m->use_crf && m->crf.surface_bits > 0 &&
                              m->lexicon.cluster_names.size() > 0;
  if (!in.AtEnd()) throw InputError("chart model: trailing bytes");
  return m;
}

}  // namespace structrank
