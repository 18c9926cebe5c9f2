#include "chart/crf_objective.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

struct GradientVisitor {
  CrfSentence& sent;
  double* grad;
  // Posteriors below e^-40 change nothing at double precision in the sums that matter.
  static constexpr double kFloor = -40.0;
  void OnLex(int i, int32_t tag, double v) {
    if (v > kFloor) sent.AddLex(i, tag, std::exp(v), grad);
  }
  void OnUnary(int32_t u, int i, int j, double v) {
    if (v > kFloor) sent.AddUnary(u, i, j, std::exp(v), grad);
  }
  void OnBinary(int32_t r, int i, int k, int j, double v) {
    if (v > kFloor) sent.AddBinary(r, i, k, j, std::exp(v), grad);
  }
  void OnRoot(int32_t rr, double v) {
    if (v > kFloor) sent.AddRoot(rr, std::exp(v), grad);
  }
};

int32_t FindBinary(const Grammar& g, int32_t p, int32_t l, int32_t r) {
  for (int32_t q = g.by_left_offsets[l]; q < g.by_left_offsets[l + 1]; ++q) {
    const BinaryRule& rule = g.binary[g.by_left[q]];
    if (rule.parent == p && rule.right == r) return g.by_left[q];
  }
  return -1;
}
int32_t FindUnary(const Grammar& g, int32_t p, int32_t c) {
  for (int32_t q = g.unary_by_child_offsets[c]; q < g.unary_by_child_offsets[c + 1]; ++q)
    if (g.unary[g.unary_by_child[q]].parent == p) return g.unary_by_child[q];
  return -1;
}

}  // namespace

double CrfSentenceObjective(const ChartModel& m, const std::vector<Token>& tokens, const GoldItems& gold,
                            Chart& ch, double* grad, const SentenceFeatureIds* cached,
                            SentenceFeatureIds* record, double margin) {
  const Grammar& g = m.grammar;
  const int n = static_cast<int>(tokens.size());
  const PoolLease<CrfSentence> lease = m.LeaseSentence();
  CrfSentence& sent = *lease;
  sent.Prepare(m.crf, g, m.lexicon, tokens, cached, record);
  if (margin != 0) sent.AddSpanCost(gold, margin);
  ch.Begin(n, g.num_symbols, true);
  const double log_z = Inside<LogSemiring>(g, sent.lex(), sent, ch);
  if (log_z == kNegInf) {
    ch.Clear();
    throw InputError("chart CRF: a training tree is not covered by its own grammar");
  }
  if (grad) {
    sent.BeginGradient();
    GradientVisitor visit{sent, grad};
    Outside<LogSemiring>(g, sent.lex(), sent, log_z, ch, visit);
  }
  ch.Clear();
  // Gold tree score and empirical counts (subtracted).
  double gold_score = 0;
  for (const auto& b : gold.binary) {
    const int32_t r = FindBinary(g, b.parent, b.left, b.right);
    gold_score += sent.Binary(r, b.i, b.k, b.j);
    if (grad) sent.AddBinary(r, b.i, b.k, b.j, -1.0, grad);
  }
  for (const auto& u : gold.unary) {
    const int32_t r = FindUnary(g, u.parent, u.child);
    gold_score += sent.Unary(r, u.i, u.j);
    if (grad) sent.AddUnary(r, u.i, u.j, -1.0, grad);
  }
  for (const auto& l : gold.lex) {
    double s = kNegInf;
    for (const auto& ts : sent.lex()[l.i])
      if (ts.first == l.tag) s = ts.second;
    if (s == kNegInf) throw InputError("chart CRF: a gold tag is not allowed by the lexicon");
    gold_score += s;
    if (grad) sent.AddLex(l.i, l.tag, -1.0, grad);
  }
  const int32_t rr = g.root_rule_of[gold.root];
  gold_score += sent.Root(rr);
  if (grad) {
    sent.AddRoot(rr, -1.0, grad);
    sent.Flush(grad);
  }
  return log_z - gold_score;
}

void InitCrf(ChartModel& m, const Corpus& corpus, const std::vector<GoldItems>& gold, bool verb_features,
             int surface_bits, bool tag_sets, bool surface_rows, bool surface_clusters) {
  const Grammar& g = m.grammar;
  CrfWeights& w = m.crf;
  w.sparse = AttributeTable();
  w.verb_words.clear();
  w.verb_features = verb_features && g.binary_verb.size() == g.binary.size();
  w.surface_bits = surface_bits;
  w.tag_sets = tag_sets && surface_bits > 0;
  w.surface_rows = surface_rows && surface_bits > 0;
  w.surface_clusters = surface_clusters && surface_bits > 0 && m.lexicon.cluster_names.size() > 0;
  w.Layout(g);
  CrfSentence sent;
  uint64_t keys[kMaxLexKeys];
  // Surface features of the gold trees, for the collision rate of the hashed table.
  std::unordered_map<uint64_t, int64_t> gold_surface;  // feature key -> its slot
  CrfSentence::SurfaceKey skeys[CrfSentence::kMaxSurfaceKeys];
  auto note_surface = [&](CrfSentence::Edge edge, int p, uint64_t conj) {
    sent.SurfaceKeys(edge, p, skeys);
    for (int q = 0; q < sent.NumSurfaceKeys(); ++q) {
      const auto [at, fresh] = gold_surface.try_emplace(FeatureKey(skeys[q].templ, conj, skeys[q].value), 0);
      if (fresh) at->second = w.SurfaceSlot(skeys[q].templ, conj, skeys[q].value);  // a feature's slot once
    }
  };
  for (int32_t s = 0; s < corpus.size(); ++s) {
    const std::vector<Token> tokens = m.Tokens(corpus, s);
    sent.BindKeys(w, g, m.lexicon, tokens);
    const GoldItems& it = gold[s];
    if (surface_bits > 0) {
      for (const auto& b : it.binary) {
        const uint64_t r = static_cast<uint64_t>(FindBinary(g, b.parent, b.left, b.right));
        for (uint64_t conj : {r, kConjParent + static_cast<uint64_t>(b.parent)}) {
          note_surface(CrfSentence::Edge::kLeft, b.i, conj);
          note_surface(CrfSentence::Edge::kRight, b.j, conj);
          note_surface(CrfSentence::Edge::kSplit, b.k, conj);
        }
      }
      for (const auto& u : it.unary) {
        const uint64_t r = kConjUnary + static_cast<uint64_t>(FindUnary(g, u.parent, u.child));
        for (uint64_t conj : {r, kConjParent + static_cast<uint64_t>(u.parent)}) {
          note_surface(CrfSentence::Edge::kLeft, u.i, conj);
          note_surface(CrfSentence::Edge::kRight, u.j, conj);
        }
      }
    }
    for (const auto& b : it.binary) {
      const int32_t base = g.base[b.parent];
      sent.SpanKeys(base, b.i, b.j, keys);
      for (int q = 0; q < 4; ++q) w.AddSparse(keys[q]);
      sent.SplitKeys(base, b.k, keys);
      for (int q = 0; q < 2; ++q) w.AddSparse(keys[q]);
      if (w.verb_features) {
        const int32_t r = FindBinary(g, b.parent, b.left, b.right);
        sent.VerbKeys(r, b.i, b.k, b.j, keys);
        for (int q = 0; q < 2; ++q) {
          if (!keys[q]) continue;
          w.AddSparse(keys[q]);
          std::string lower = corpus.tokens[corpus.offsets[s] + (q == 0 ? b.i : b.k)];
          for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          w.verb_words.insert(StringHash(lower));
        }
      }
    }
    for (const auto& u : it.unary) {
      sent.SpanKeys(g.base[u.parent], u.i, u.j, keys);
      for (int q = 0; q < 4; ++q) w.AddSparse(keys[q]);
      if (u.j - u.i == 1) w.AddSparse(sent.UnaryWordKey(FindUnary(g, u.parent, u.child), u.i));
    }
    for (const auto& l : it.lex) {
      int cnt = sent.LexKeys(l.i, l.tag, keys);
      for (int q = 0; q < cnt; ++q) w.AddSparse(keys[q]);
    }
  }
  w.surface_gold_features = static_cast<int64_t>(gold_surface.size());
  w.surface_collision_rate = 0;
  if (surface_bits > 0 && !gold_surface.empty()) {
    // A feature collides when another gold feature has its slot.
    std::unordered_map<int64_t, int32_t> per_slot;
    for (const auto& feature : gold_surface) per_slot[feature.second]++;
    int64_t shared = 0;
    for (const auto& e : per_slot)
      if (e.second > 1) shared += e.second;
    w.surface_collision_rate = static_cast<double>(shared) / static_cast<double>(gold_surface.size());
  }
  // Start at the PCFG.
  for (size_t r = 0; r < g.binary.size(); ++r) w.theta[w.binary_rule + r] = m.binary_logp[r];
  for (size_t r = 0; r < g.unary.size(); ++r) w.theta[w.unary_rule + r] = m.unary_logp[r];
  for (size_t r = 0; r < g.root.size(); ++r) w.theta[w.root_rule + r] = m.root_logp[r];
  w.theta[w.pcfg_lex] = 1.0;
  m.use_crf = true;
}

CrfObjective::CrfObjective(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold,
                           const CrfTrainOptions& options)
    : m_(model), corpus_(std::move(corpus)), gold_(std::move(gold)), opt_(options) {
  if (corpus_.size() == 0) throw InputError("chart CRF: no training sentences");
  threads_ = opt_.threads;
  charts_.resize(threads_);
  grads_.resize(threads_);
  cache_.resize(corpus_.size());
  if (opt_.prior_at_pcfg) prior_mean_ = m_.crf.theta;
}

void CrfObjective::Prefilter(int32_t s, Chart& ch) {
  Cached& c = cache_[s];
  c.tokens = m_.Tokens(corpus_, s);
  const int n = static_cast<int>(c.tokens.size());
  const int S = m_.grammar.num_symbols;
  if (opt_.prune > 0) {
    total_entries_ += m_.CoarseEntries(c.tokens, opt_.prune, ch, c.keep_pre, c.keep_post);
    AddGoldAndFinish(s, ch);
    return;
  }
  std::vector<uint8_t> saved_pre, saved_post;  // the prefilter pass itself runs unmasked
  saved_pre.swap(ch.mask_pre), saved_post.swap(ch.mask_post);
  ch.Begin(n, S, true);
  PcfgScorer scorer{m_.binary_logp.data(), m_.unary_logp.data(), m_.root_logp.data()};
  const LexScores lex = m_.PcfgLex(c.tokens);
  const double best = Inside<MaxSemiring>(m_.grammar, lex, scorer, ch);
  NullVisitor none;
  if (best != kNegInf) Outside<MaxSemiring>(m_.grammar, lex, scorer, best, ch, none);
  const double floor = best - opt_.beam;  // -inf beam keeps every viable entry
  int64_t total = 0;
  for (int cell = 0; cell < Chart::NumCells(n); ++cell) {
    const size_t base = static_cast<size_t>(cell) * S;
    for (int a = ch.pre_begin[cell]; a < ch.pre_end[cell]; ++a) {
      const int32_t x = ch.active_pre[a];
      const double v = ch.pre[base + x] + ch.out_pre[base + x];
      ++total;
      if (v != kNegInf && v >= floor) c.keep_pre.push_back(static_cast<int32_t>(base + x));
    }
    for (int a = ch.post_begin[cell]; a < ch.post_end[cell]; ++a) {
      const int32_t x = ch.active_post[a];
      const double v = ch.post[base + x] + ch.out_post[base + x];
      ++total;
      if (v != kNegInf && v >= floor) c.keep_post.push_back(static_cast<int32_t>(base + x));
    }
  }
  ch.Clear();
  saved_pre.swap(ch.mask_pre), saved_post.swap(ch.mask_post);
  total_entries_ += total;
  AddGoldAndFinish(s, ch);
}

void CrfObjective::AddGoldAndFinish(int32_t s, Chart& ch) {
  Cached& c = cache_[s];
  // The gold tree always survives.
  ch.n = static_cast<int>(c.tokens.size());
  const GoldItems& gold = gold_[s];
  auto at = [&](int i, int j, int32_t x) { return static_cast<int32_t>(ch.At(i, j, x)); };
  for (const auto& b : gold.binary)
    c.keep_pre.push_back(at(b.i, b.j, b.parent)), c.keep_post.push_back(at(b.i, b.j, b.parent));
  for (const auto& l : gold.lex)
    c.keep_pre.push_back(at(l.i, l.i + 1, l.tag)), c.keep_post.push_back(at(l.i, l.i + 1, l.tag));
  for (const auto& u : gold.unary)
    c.keep_pre.push_back(at(u.i, u.j, u.child)), c.keep_post.push_back(at(u.i, u.j, u.parent));
  for (auto* v : {&c.keep_pre, &c.keep_post}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  kept_entries_ += static_cast<int64_t>(c.keep_pre.size() + c.keep_post.size());
  c.ready = true;
}

void CrfObjective::Install(int32_t s, SentenceFeatureIds& ids) {
  Cached& c = cache_[s];
  if (c.ids_ready || ids.edge_offsets.empty()) return;
  const int64_t bytes = static_cast<int64_t>(ids.Bytes());
  if (static_cast<double>(cache_bytes_ + bytes) > opt_.feature_cache_mb * 1048576.0) return;
  c.ids = std::move(ids);
  c.ids_ready = true;
  cache_bytes_ += bytes;
  ++cache_sentences_;
}

double CrfObjective::SentenceTerm(int32_t s, Chart& ch, double* grad, SentenceFeatureIds* record) {
  if (!cache_[s].ready) Prefilter(s, ch);
  const Cached& c = cache_[s];
  const SentenceFeatureIds* cached = c.ids_ready ? &c.ids : nullptr;
  if (cached || opt_.feature_cache_mb <= 0) record = nullptr;
  const int n = static_cast<int>(c.tokens.size());
  const size_t need = static_cast<size_t>(Chart::NumCells(n)) * m_.grammar.num_symbols;
  if (ch.mask_pre.size() < need) ch.mask_pre.assign(need, 0), ch.mask_post.assign(need, 0);
  for (int32_t e : c.keep_pre) ch.mask_pre[e] = 1;
  for (int32_t e : c.keep_post) ch.mask_post[e] = 1;
  double value;
  try {
    value = CrfSentenceObjective(m_, c.tokens, gold_[s], ch, grad, cached, record, opt_.margin);
  } catch (...) {
    for (int32_t e : c.keep_pre) ch.mask_pre[e] = 0;
    for (int32_t e : c.keep_post) ch.mask_post[e] = 0;
    throw;
  }
  for (int32_t e : c.keep_pre) ch.mask_pre[e] = 0;
  for (int32_t e : c.keep_post) ch.mask_post[e] = 0;
  sentences_evaluated_.fetch_add(1, std::memory_order_relaxed);
  return value;
}

double CrfObjective::Full(std::vector<double>& grad, const std::atomic<bool>* cancel) {
  const size_t dim = m_.crf.theta.size();
  grads_clean_ = false;
  for (auto& gvec : grads_) gvec.assign(dim, 0.0);
  std::vector<double> values(threads_, 0.0);
  // Each sentence is visited by one thread: it may install its own cache entry at once.
  std::mutex install;
  ParallelForFixed(
      corpus_.size(), threads_, 4,
      [&](size_t begin, size_t end, int t) {
        SentenceFeatureIds record;
        for (size_t s = begin; s < end; ++s) {
          record.edge_offsets.clear();
          values[t] += SentenceTerm(static_cast<int32_t>(s), charts_[t], grads_[t].data(), &record);
          if (!record.edge_offsets.empty()) {
            std::lock_guard<std::mutex> lock(install);
            Install(static_cast<int32_t>(s), record);
          }
        }
      },
      cancel);
  double value = 0;
  for (double v : values) value += v;
  grad.assign(dim, 0.0);
  const double* theta = m_.crf.theta.data();
  const double* mean = prior_mean_.empty() ? nullptr : prior_mean_.data();
  for (size_t f = 0; f < dim; ++f) {
    const double d = mean ? theta[f] - mean[f] : theta[f];
    value += d * d / (2 * opt_.sigma2);
    double g = d / opt_.sigma2;
    for (const auto& gvec : grads_) g += gvec[f];
    grad[f] = g;
  }
  return value;
}

void CrfObjective::Batch(const std::vector<int32_t>& batch, std::vector<double>& objective,
                         std::vector<SentenceFeatureIds>& records, const std::atomic<bool>* cancel) {
  const size_t dim = m_.crf.theta.size();
  // The stochastic update leaves the gradients zero; anything else (a first step, a
  // cancelled batch, the full-batch objective) starts from a fill.
  if (!grads_clean_)
    for (auto& gvec : grads_) gvec.assign(dim, 0.0);
  grads_clean_ = false;
  // Prefilter new sentences first, each once (a batch may draw a sentence twice).
  std::vector<int32_t> fresh;
  for (int32_t s : batch)
    if (!cache_[s].ready) fresh.push_back(s);
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  ParallelFor(
      fresh.size(), threads_, 1,
      [&](size_t begin, size_t end, int t) {
        for (size_t q = begin; q < end; ++q) Prefilter(fresh[q], charts_[t]);
      },
      cancel);
  // A batch may hold a sentence twice: recorded ids are installed after the batch.
  for (auto& r : records) r.edge_offsets.clear();
  ParallelForFixed(
      batch.size(), threads_, 1,
      [&](size_t begin, size_t end, int t) {
        for (size_t b = begin; b < end; ++b)
          objective[b] = SentenceTerm(batch[b], charts_[t], grads_[t].data(), &records[b]);
      },
      cancel);
  for (size_t b = 0; b < batch.size(); ++b) Install(batch[b], records[b]);
}

}  // namespace structrank
