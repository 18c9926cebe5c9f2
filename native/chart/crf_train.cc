#include "chart/crf_train.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// The batch's gradient of a weight plus the prior's term, c (theta - mean), summed over the
// threads' gradients, whose entries it zeroes (those that are not zero already).
class BatchGradient {
 public:
  BatchGradient(std::vector<std::vector<double>>& grads, double prior, const double* theta,
                const std::vector<double>& mean)
      : prior_(prior), theta_(theta), mean_(mean.empty() ? nullptr : mean.data()) {
    for (auto& g : grads) grads_.push_back(g.data());
  }
  double operator()(size_t f) {
    double gsum = prior_ * (mean_ ? theta_[f] - mean_[f] : theta_[f]);
    for (double* g : grads_) {
      const double x = g[f];
      if (x != 0) gsum += x, g[f] = 0;
    }
    return gsum;
  }

 private:
  double prior_;
  const double* theta_;
  const double* mean_;
  std::vector<double*> grads_;
};

}  // namespace

double CrfSentenceObjective(const ChartModel& m, const std::vector<Token>& tokens, const GoldItems& gold,
                            Chart& ch, double* grad, const SentenceFeatureIds* cached,
                            SentenceFeatureIds* record) {
  const Grammar& g = m.grammar;
  const int n = static_cast<int>(tokens.size());
  CrfSentence sent;
  sent.Prepare(m.crf, g, m.lexicon, tokens, cached, record);
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
             int surface_bits) {
  const Grammar& g = m.grammar;
  CrfWeights& w = m.crf;
  w.sparse = AttributeTable();
  w.verb_words.clear();
  w.verb_features = verb_features && g.binary_verb.size() == g.binary.size();
  w.surface_bits = surface_bits;
  w.Layout(g);
  CrfSentence sent;
  uint64_t keys[kMaxLexKeys];
  // Surface features of the gold trees, for the collision rate of the hashed table.
  std::unordered_set<uint64_t> gold_surface;
  CrfSentence::SurfaceKey skeys[4];
  auto note_surface = [&](CrfSentence::Edge edge, int p, uint64_t conj) {
    sent.SurfaceKeys(edge, p, skeys);
    for (const auto& k : skeys) gold_surface.insert(FeatureKey(k.templ, conj, k.value));
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
    std::unordered_map<uint64_t, int32_t> per_slot;
    const uint64_t mask = (1ULL << surface_bits) - 1;
    for (uint64_t key : gold_surface) per_slot[key & mask]++;
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

CrfTrainer::CrfTrainer(ChartModel& model, Corpus corpus, std::vector<GoldItems> gold, CrfTrainOptions options)
    : m_(model), corpus_(std::move(corpus)), gold_(std::move(gold)), opt_(options), rng_(options.seed) {
  if (corpus_.size() == 0) throw InputError("chart CRF: no training sentences");
  if (opt_.batch < 1) throw InputError("chart CRF: batch size must be positive");
  if (opt_.tau <= 0) opt_.tau = 5.0 * corpus_.size() / opt_.batch;
  threads_ = opt_.threads;
  charts_.resize(threads_);
  grads_.resize(threads_);
  cache_.resize(corpus_.size());
  if (opt_.prior_at_pcfg) prior_mean_ = m_.crf.theta;
}

void CrfTrainer::Prefilter(int32_t s, Chart& ch) {
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

void CrfTrainer::AddGoldAndFinish(int32_t s, Chart& ch) {
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

void CrfTrainer::Install(int32_t s, SentenceFeatureIds& ids) {
  Cached& c = cache_[s];
  if (c.ids_ready || ids.edge_offsets.empty()) return;
  const int64_t bytes = static_cast<int64_t>(ids.Bytes());
  if (static_cast<double>(cache_bytes_ + bytes) > opt_.feature_cache_mb * 1048576.0) return;
  c.ids = std::move(ids);
  c.ids_ready = true;
  cache_bytes_ += bytes;
  ++cache_sentences_;
}

double CrfTrainer::SentenceTerm(int32_t s, Chart& ch, double* grad, SentenceFeatureIds* record) {
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
    value = CrfSentenceObjective(m_, c.tokens, gold_[s], ch, grad, cached, record);
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

double CrfTrainer::FullObjective(std::vector<double>& grad, const std::atomic<bool>* cancel) {
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

namespace {
constexpr uint32_t kCrfTrainerStateVersion = 1;
}  // namespace

void CrfTrainer::SaveState(ByteWriter& out) const {
  out.Put<uint32_t>(kCrfTrainerStateVersion);
  out.Put<int64_t>(k_);
  out.PutVector(m_.crf.theta);
  out.PutVector(adagrad_);
  std::ostringstream rng;  // the standard's portable text form of the engine's state
  rng << rng_;
  out.PutString(rng.str());
  // Iterate averaging: while the pass's mean is swapped in, average_sum_ holds the raw iterate.
  out.PutVector(average_sum_);
  out.Put<int64_t>(average_count_);
  out.Put<uint8_t>(average_swapped_ ? 1 : 0);
  out.Put<uint8_t>(lbfgs_ ? 1 : 0);
  if (lbfgs_) lbfgs_->SaveState(out);
}

void CrfTrainer::LoadState(ByteReader& in) {
  if (in.Get<uint32_t>() != kCrfTrainerStateVersion)
    throw ModelError("checkpoint: unknown CRF parser trainer state version");
  const int64_t k = in.Get<int64_t>();
  std::vector<double> theta = in.GetVector<double>();
  std::vector<double> adagrad = in.GetVector<double>();
  if (k < 0 || theta.size() != m_.crf.theta.size() || (!adagrad.empty() && adagrad.size() != theta.size())) {
    throw ModelError("checkpoint: the CRF weights do not fit this model (other training trees or options?)");
  }
  std::istringstream rng(in.GetString());
  rng >> rng_;
  if (rng.fail()) throw ModelError("checkpoint: bad random engine state");
  std::vector<double> average_sum = in.GetVector<double>();
  const int64_t average_count = in.Get<int64_t>();
  const bool average_swapped = in.Get<uint8_t>() != 0;
  if (!average_sum.empty() && average_sum.size() != theta.size())
    throw ModelError("checkpoint: the averaged weights do not fit this model");
  k_ = k;
  m_.crf.theta = std::move(theta);
  adagrad_ = std::move(adagrad);
  average_sum_ = std::move(average_sum);
  average_count_ = average_count;
  average_swapped_ = average_swapped;
  lbfgs_.reset();
  if (in.Get<uint8_t>() != 0) {
    lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), in, LbfgsSettings());
    if (lbfgs_->x().size() != m_.crf.theta.size())
      throw ModelError("checkpoint: L-BFGS state does not fit this model");
  }
  if (!in.AtEnd()) throw ModelError("checkpoint: trailing bytes after the CRF parser trainer state");
}

Objective CrfTrainer::LbfgsObjective() {
  return [this](const std::vector<double>& x, std::vector<double>& grad) {
    m_.crf.theta = x;
    return FullObjective(grad, lbfgs_cancel_);
  };
}

LbfgsOptions CrfTrainer::LbfgsSettings() {
  LbfgsOptions options;
  options.memory = 10;
  return options;
}

double CrfTrainer::LbfgsSteps(int iterations, const std::atomic<bool>* cancel) {
  // native/optim's L-BFGS drives the full-batch objective; it evaluates at its own points,
  // so theta is set from the point it asks for and, after each call, from its best point.
  lbfgs_cancel_ = cancel;
  try {
    if (!lbfgs_) {
      lbfgs_ = std::make_unique<Lbfgs>(LbfgsObjective(), m_.crf.theta, LbfgsSettings());
    }
    for (int it = 0; it < iterations; ++it) {
      const bool more = lbfgs_->Iterate();
      ++k_;
      if (!more) break;  // converged: later calls do nothing
    }
  } catch (...) {
    if (lbfgs_) m_.crf.theta = lbfgs_->x();
    throw;
  }
  m_.crf.theta = lbfgs_->x();
  return lbfgs_->value() / corpus_.size();
}

double CrfTrainer::Steps(int steps, const std::atomic<bool>* cancel) {
  const size_t dim = m_.crf.theta.size();
  const int32_t D = corpus_.size();
  double objective_sum = 0;
  int64_t sentences = 0;
  std::vector<int32_t> batch(opt_.batch);
  std::vector<double> objective(opt_.batch);
  std::vector<SentenceFeatureIds> records(opt_.batch);
  if (average_swapped_) SwapAverage();  // train the raw iterate, never the mean
  for (int step = 0; step < steps; ++step) {
    if (cancel && cancel->load()) throw Cancelled();
    std::uniform_int_distribution<int32_t> pick(0, D - 1);
    for (auto& s : batch) s = pick(rng_);
    // The update below leaves the gradients zero; anything else (a first step, a cancelled
    // batch, the full-batch objective) starts from a fill.
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
    // theta -= eta_k * (gradient + (b / |D|) * (theta - mean) / sigma^2), or the AdaGrad
    // step on the same sum. One pass over the weights does the step, the running sum of the
    // iterates and the zeroing of the gradient entries that are not zero (the next batch
    // starts from a zero gradient without a separate fill of every entry).
    const double prior = static_cast<double>(opt_.batch) / D / opt_.sigma2;
    if (opt_.adagrad && adagrad_.size() != dim) adagrad_.assign(dim, 0.0);
    if (opt_.average && average_sum_.size() != dim) average_sum_.assign(dim, 0.0), average_count_ = 0;
    double* sum = opt_.average ? average_sum_.data() : nullptr;
    if (opt_.adagrad) {
      AdagradUpdate(prior, sum);
    } else {
      const double eta = opt_.eta0 * opt_.tau / (opt_.tau + static_cast<double>(k_));
      double* theta = m_.crf.theta.data();
      BatchGradient take(grads_, prior, theta, prior_mean_);
      for (size_t f = 0; f < dim; ++f) {
        theta[f] -= eta * take(f);
        if (sum) sum[f] += theta[f];
      }
    }
    grads_clean_ = true;
    if (opt_.average) ++average_count_;
    ++k_;
    for (double o : objective) objective_sum += o;
    sentences += static_cast<int64_t>(batch.size());
  }
  return sentences ? objective_sum / sentences : 0.0;
}

void CrfTrainer::AdagradUpdate(double prior, double* sum) {
  const size_t dim = m_.crf.theta.size();
  double* theta = m_.crf.theta.data();
  double* ada = adagrad_.data();
  const double eta = opt_.eta0;
  BatchGradient take(grads_, prior, theta, prior_mean_);
  size_t f = 0;
#if defined(__SSE2__)
  // Two weights at a time: the square root and the division dominate this loop, and the
  // packed instructions round exactly as the scalar ones (the same weights, bit for bit).
  const __m128d eta2 = _mm_set1_pd(eta), zero = _mm_setzero_pd();
  for (; f + 2 <= dim; f += 2) {
    const __m128d gsum = _mm_set_pd(take(f + 1), take(f));
    const __m128d moves = _mm_cmpneq_pd(gsum, zero);
    __m128d t = _mm_loadu_pd(theta + f);
    if (_mm_movemask_pd(moves)) {
      const __m128d a_old = _mm_loadu_pd(ada + f);
      const __m128d a = _mm_add_pd(a_old, _mm_mul_pd(gsum, gsum));
      const __m128d stepped = _mm_sub_pd(t, _mm_div_pd(_mm_mul_pd(eta2, gsum), _mm_sqrt_pd(a)));
      // Where gsum is 0 the weight and its sum stay (the step there would be 0 / 0).
      t = _mm_or_pd(_mm_and_pd(moves, stepped), _mm_andnot_pd(moves, t));
      _mm_storeu_pd(ada + f, _mm_or_pd(_mm_and_pd(moves, a), _mm_andnot_pd(moves, a_old)));
      _mm_storeu_pd(theta + f, t);
    }
    if (sum) _mm_storeu_pd(sum + f, _mm_add_pd(_mm_loadu_pd(sum + f), t));
  }
#endif
  for (; f < dim; ++f) {
    const double gsum = take(f);
    if (gsum != 0) {
      ada[f] += gsum * gsum;
      theta[f] -= eta * gsum / std::sqrt(ada[f]);
    }
    if (sum) sum[f] += theta[f];
  }
}

void CrfTrainer::ResetAverage() {
  if (average_swapped_) SwapAverage();
  average_sum_.assign(m_.crf.theta.size(), 0.0);
  average_count_ = 0;
}

void CrfTrainer::SwapAverage() {
  if (!opt_.average || average_count_ == 0 || average_sum_.size() != m_.crf.theta.size()) return;
  const double scale = static_cast<double>(average_count_);
  // Sum <-> mean conversions around the exchange keep one extra vector only.
  if (!average_swapped_)
    for (double& v : average_sum_) v /= scale;
  m_.crf.theta.swap(average_sum_);
  if (average_swapped_)
    for (double& v : average_sum_) v *= scale;
  average_swapped_ = !average_swapped_;
}

}  // namespace structrank
