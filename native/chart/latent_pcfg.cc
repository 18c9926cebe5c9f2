#include "chart/latent_pcfg.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "chart/chart_model.h"
#include "chart/latent_grammar.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

namespace {

// A gold tree's nodes in post-order (children before parents; the last node is the top).
struct Node {
  int32_t sym;
  int32_t kind;  // 0: a tag over one word, 1: a unary rule, 2: a binary rule
  int32_t rule;  // unary or binary rule id of the base grammar
  int32_t left, right;
  int32_t class_block;  // kind 0: the block of (the word's class, the tag) in Params::by_class (-1: none)
};
struct Tree {
  std::vector<Node> nodes;
  int32_t root_rule = -1;
};

// Many small arrays in one: block b is values[at[b] .. at[b + 1]). A set of parameters is a
// few allocations, reused from E-step to E-step (as thousands of small vectors, a rich
// grammar's counts fragmented the heap by hundreds of MB).
struct Blocks {
  std::vector<double> values;
  std::vector<size_t> at{0};

  template <typename T>
  struct View {
    T* data;
    size_t n;
    T& operator[](size_t i) const { return data[i]; }
    size_t size() const { return n; }
    T* begin() const { return data; }
    T* end() const { return data + n; }
  };
  View<double> operator[](size_t b) { return {values.data() + at[b], at[b + 1] - at[b]}; }
  View<const double> operator[](size_t b) const { return {values.data() + at[b], at[b + 1] - at[b]}; }
  size_t size() const { return at.size() - 1; }
  void Append(size_t n, double value) {
    values.resize(values.size() + n, value);
    at.push_back(values.size());
  }
  void ZeroLike(const Blocks& other) {
    at = other.at;
    values.assign(other.values.size(), 0.0);
  }
  void Add(const Blocks& other) {
    for (size_t i = 0; i < values.size(); ++i) values[i] += other.values[i];
  }
};

// Every parameter of the split grammar, indexed by base rule (or symbol, or class block) and
// subsymbols; also the shape of EM's expected counts.
struct Params {
  Blocks binary;              // rule -> [(a * nl + b) * nr + c]
  Blocks unary;               // rule -> [a * nc + b]
  Blocks root;                // root rule -> [a]
  Blocks prior;               // symbol -> P(x | t) for tags (empty for phrases); counts: x's expected count
  Blocks by_class;            // (class, tag) block -> P(x | t, class)
  double log_likelihood = 0;  // counts: the trees' log-likelihood (lexical terms as splits only)
  Blocks sub_count;           // counts: symbol -> each subsymbol's expected count
  Blocks merge_delta;         // counts: symbol -> pair (2i, 2i + 1) -> log-likelihood if merged

  void ZeroLike(const Params& p, const std::vector<int32_t>& subs) {
    binary.ZeroLike(p.binary), unary.ZeroLike(p.unary), root.ZeroLike(p.root);
    prior.ZeroLike(p.prior), by_class.ZeroLike(p.by_class);
    log_likelihood = 0;
    sub_count = Blocks(), merge_delta = Blocks();
    for (int32_t n : subs) sub_count.Append(n, 0.0), merge_delta.Append(n / 2, 0.0);
  }
  void Add(const Params& p) {
    binary.Add(p.binary), unary.Add(p.unary), root.Add(p.root), prior.Add(p.prior), by_class.Add(p.by_class);
    sub_count.Add(p.sub_count), merge_delta.Add(p.merge_delta);
    log_likelihood += p.log_likelihood;
  }
};

}  // namespace

struct LatentPcfgTrainer::Impl {
  Impl(const ChartModel& base, const Corpus& corpus, const std::vector<GoldItems>& gold,
       const LatentOptions& options)
      : base_(base), g_(base.grammar), options_(options), rng_(options.seed * 0x9E3779B97F4A7C15ULL + 1) {
    classes_.num_words = static_cast<int32_t>(base.lexicon.words.size());
    classes_.word_min = options.word_min;
    BuildTrees(corpus, gold);
    subs_.assign(g_.num_symbols, 1);
    // One subsymbol each: the base PCFG's relative frequencies.
    for (double lp : base.binary_logp) params_.binary.Append(1, std::exp(lp));
    for (double lp : base.unary_logp) params_.unary.Append(1, std::exp(lp));
    for (double lp : base.root_logp) params_.root.Append(1, std::exp(lp));
    for (int32_t s = 0; s < g_.num_symbols; ++s) params_.prior.Append(g_.is_tag[s] ? 1 : 0, 1.0);
    for (size_t b = 0; b < class_tag_.size(); ++b) params_.by_class.Append(1, 1.0);
    for (int cycle = 0; cycle < options.cycles; ++cycle) {
      schedule_.push_back(kSplit);
      schedule_.insert(schedule_.end(), options.iterations, kEm);
      // Merging weighs subsymbols by their expected counts: it needs an EM iteration before.
      if (options.merge > 0 && options.iterations > 0) {
        schedule_.push_back(kMerge);
        schedule_.insert(schedule_.end(), options.iterations / 2, kEm);
      }
    }
  }

  // One phase per step: a split, an EM iteration, or the pass that scores merges.
  double Step(const std::atomic<bool>* cancel) {
    if (next_ >= schedule_.size()) return log_likelihood_;
    if (schedule_[next_] == kSplit) {
      int64_t subsymbols = 0;
      for (int32_t n : subs_) subsymbols += n;
      if (2 * subsymbols > options_.max_subsymbols) {
        schedule_.resize(next_);  // no more cycles
        return log_likelihood_;
      }
      Split();
    } else if (schedule_[next_] == kEm) {
      Params& counts = EStep(cancel);
      last_sub_count_ = counts.sub_count;
      log_likelihood_ = counts.log_likelihood;
      MStep(counts);
    } else {
      Merge(EStep(cancel, &last_sub_count_));
    }
    ++next_;
    return log_likelihood_;
  }
  int TotalSteps() const { return static_cast<int>(schedule_.size()); }

  std::unique_ptr<ChartModel> Build() const;

  void BuildTrees(const Corpus& corpus, const std::vector<GoldItems>& gold);
  double Noise() {
    rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
    const double u = static_cast<double>(rng_ >> 11) / 9007199254740992.0;
    return 1.0 + options_.noise * (2 * u - 1);
  }
  void Split();
  // Merges back the options_.merge fraction of the last split's pairs whose merging loses the
  // least training likelihood (stats.merge_delta), their parameters weighted by frequency.
  void Merge(const Params& stats);
  // Expected counts over every tree (counts_[0], valid until the next E-step); with
  // `merge_freq` (each subsymbol's expected count), also the log-likelihood each merge would
  // leave (Params::merge_delta).
  Params& EStep(const std::atomic<bool>* cancel, const Blocks* merge_freq = nullptr);
  void TreeCounts(const Tree& tree, const Blocks* merge_freq, Params& counts, std::vector<double>& in,
                  std::vector<double>& out, std::vector<double>& ls_in, std::vector<double>& ls_out) const;
  // Turns counts into probabilities: each parent subsymbol's rules normalized together (a
  // subsymbol without counts keeps params_), smoothed towards its siblings' mean. `counts` may
  // be params_ itself (normalized in place).
  void MStep(const Params& counts);

  enum Phase { kSplit, kEm, kMerge };
  const ChartModel& base_;
  const Grammar& g_;
  LatentOptions options_;
  std::vector<Phase> schedule_;
  size_t next_ = 0;  // the next step of schedule_
  double log_likelihood_ = 0;
  uint64_t rng_;
  LatentGrammar classes_;  // the word classes (num_words, word_min)
  std::vector<Tree> trees_;
  std::vector<int32_t> class_tag_;                      // block of Params::by_class -> its tag
  std::vector<uint64_t> class_key_;                     // block -> (class << 32 | tag)
  std::unordered_map<uint64_t, int32_t> class_blocks_;  // (class << 32 | tag) -> block
  std::vector<int32_t> subs_;                           // base symbol -> number of subsymbols
  Params params_;
  std::vector<Params> counts_;  // each thread's expected counts, kept from E-step to E-step
  Blocks last_sub_count_;       // each subsymbol's expected count in the last E-step
};

void LatentPcfgTrainer::Impl::BuildTrees(const Corpus& corpus, const std::vector<GoldItems>& gold) {
  const ChartModel& base = base_;
  std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> binary_ids;
  for (size_t r = 0; r < g_.binary.size(); ++r)
    binary_ids[{g_.binary[r].parent, g_.binary[r].left, g_.binary[r].right}] = static_cast<int32_t>(r);
  std::map<std::pair<int32_t, int32_t>, int32_t> unary_ids;
  for (size_t r = 0; r < g_.unary.size(); ++r)
    unary_ids[{g_.unary[r].parent, g_.unary[r].child}] = static_cast<int32_t>(r);
  trees_.reserve(gold.size());
  for (size_t s = 0; s < gold.size(); ++s) {
    const GoldItems& items = gold[s];
    const std::vector<Token> tokens = base.Tokens(corpus, static_cast<int32_t>(s));
    Tree tree;
    for (const GoldNode& node : BottomUp(items, static_cast<int32_t>(tokens.size()))) {
      if (node.kind == 0) {
        const auto& lx = items.lex[node.item];
        const int32_t word_class = classes_.ClassOf(base.lexicon, tokens[lx.i]);
        int32_t block = -1;
        if (word_class >= 0) {
          const uint64_t key = (static_cast<uint64_t>(word_class) << 32) | static_cast<uint32_t>(lx.tag);
          const auto [it, fresh] = class_blocks_.try_emplace(key, static_cast<int32_t>(class_tag_.size()));
          if (fresh) class_tag_.push_back(lx.tag), class_key_.push_back(key);
          block = it->second;
        }
        tree.nodes.push_back({lx.tag, 0, -1, -1, -1, block});
      } else if (node.kind == 1) {
        const auto& u = items.unary[node.item];
        tree.nodes.push_back({u.parent, 1, unary_ids.at({u.parent, u.child}), node.left, -1, -1});
      } else {
        const auto& b = items.binary[node.item];
        tree.nodes.push_back(
            {b.parent, 2, binary_ids.at({b.parent, b.left, b.right}), node.left, node.right, -1});
      }
    }
    tree.root_rule = g_.root_rule_of[items.root];
    trees_.push_back(std::move(tree));
  }
}

void LatentPcfgTrainer::Impl::Split() {
  const std::vector<int32_t> old = subs_;
  for (int32_t& n : subs_) n *= 2;
  // Each old entry goes to the 2 x 2 (x 2) new ones of its subsymbols, its mass shared among
  // the children's halves, times a little noise.
  auto split_rules = [&](const Blocks& rules, int32_t r, int32_t p, int32_t l, int32_t c, Blocks& into) {
    const size_t np = subs_[p], nl = subs_[l], nr = c < 0 ? 1 : subs_[c];
    const size_t onl = old[l], onr = c < 0 ? 1 : old[c];
    const double share = c < 0 ? 2 : 4;
    const auto from = rules[r];
    into.Append(np * nl * nr, 0.0);
    auto to = into[into.size() - 1];
    for (size_t a = 0; a < np; ++a)
      for (size_t b = 0; b < nl; ++b)
        for (size_t x = 0; x < nr; ++x)
          to[(a * nl + b) * nr + x] =
              from[(a / 2 * onl + b / 2) * onr + (c < 0 ? 0 : x / 2)] / share * Noise();
  };
  Blocks binary, unary, root;
  for (size_t r = 0; r < g_.binary.size(); ++r)
    split_rules(params_.binary, r, g_.binary[r].parent, g_.binary[r].left, g_.binary[r].right, binary);
  for (size_t r = 0; r < g_.unary.size(); ++r)
    split_rules(params_.unary, r, g_.unary[r].parent, g_.unary[r].child, -1, unary);
  for (size_t r = 0; r < g_.root.size(); ++r) {
    const auto from = params_.root[r];
    root.Append(2 * from.size(), 0.0);
    auto to = root[r];
    for (size_t a = 0; a < to.size(); ++a) to[a] = from[a / 2] / 2 * Noise();
  }
  params_.binary = std::move(binary), params_.unary = std::move(unary), params_.root = std::move(root);
  auto split_dists = [&](Blocks& dists) {
    Blocks next;
    for (size_t d = 0; d < dists.size(); ++d) {
      const auto from = dists[d];
      next.Append(2 * from.size(), 0.0);
      auto to = next[d];
      double total = 0;
      for (size_t x = 0; x < to.size(); ++x) total += to[x] = from[x / 2] * Noise();
      for (double& q : to) q /= total;
    }
    dists = std::move(next);
  };
  split_dists(params_.prior);
  split_dists(params_.by_class);
  // The noise leaves each parent's rules summing to about 1: normalize them exactly.
  MStep(params_);
}

Params& LatentPcfgTrainer::Impl::EStep(const std::atomic<bool>* cancel, const Blocks* merge_freq) {
  const int threads = std::max(1, options_.threads);
  counts_.resize(threads);
  for (Params& p : counts_) p.ZeroLike(params_, subs_);
  ParallelForFixed(
      trees_.size(), threads, 16,
      [&](size_t begin, size_t end, int t) {
        std::vector<double> in, out, ls_in, ls_out;
        for (size_t s = begin; s < end; ++s)
          TreeCounts(trees_[s], merge_freq, counts_[t], in, out, ls_in, ls_out);
      },
      cancel);
  for (int t = 1; t < threads; ++t) counts_[0].Add(counts_[t]);
  return counts_[0];
}

void LatentPcfgTrainer::Impl::TreeCounts(const Tree& tree, const Blocks* merge_freq, Params& counts,
                                         std::vector<double>& in, std::vector<double>& out,
                                         std::vector<double>& ls_in, std::vector<double>& ls_out) const {
  const size_t N = tree.nodes.size();
  std::vector<size_t> offset(N + 1, 0);
  for (size_t k = 0; k < N; ++k) offset[k + 1] = offset[k] + subs_[tree.nodes[k].sym];
  in.assign(offset[N], 0.0), out.assign(offset[N], 0.0);
  ls_in.assign(N, 0.0), ls_out.assign(N, 0.0);
  for (size_t k = 0; k < N; ++k) {
    const Node& node = tree.nodes[k];
    double* v = &in[offset[k]];
    const int np = subs_[node.sym];
    if (node.kind == 0) {
      const auto prior = params_.prior[node.sym];
      for (int a = 0; a < np; ++a)
        v[a] = node.class_block < 0 ? 1.0 : params_.by_class[node.class_block][a] / prior[a];
    } else if (node.kind == 1) {
      const double* c = &in[offset[node.left]];
      const int nc = subs_[tree.nodes[node.left].sym];
      const auto P = params_.unary[node.rule];
      for (int a = 0; a < np; ++a) {
        double sum = 0;
        for (int b = 0; b < nc; ++b) sum += P[static_cast<size_t>(a) * nc + b] * c[b];
        v[a] = sum;
      }
      ls_in[k] = ls_in[node.left];
    } else {
      const double* l = &in[offset[node.left]];
      const double* r = &in[offset[node.right]];
      const int nl = subs_[tree.nodes[node.left].sym], nr = subs_[tree.nodes[node.right].sym];
      const auto P = params_.binary[node.rule];
      for (int a = 0; a < np; ++a) {
        double sum = 0;
        for (int b = 0; b < nl; ++b) {
          const double* row = &P[(static_cast<size_t>(a) * nl + b) * nr];
          double inner = 0;
          for (int c = 0; c < nr; ++c) inner += row[c] * r[c];
          sum += l[b] * inner;
        }
        v[a] = sum;
      }
      ls_in[k] = ls_in[node.left] + ls_in[node.right];
    }
    double m = 0;
    for (int a = 0; a < np; ++a) m = std::max(m, v[a]);
    if (!(m > 0)) return;  // the tree has no probability under these parameters
    for (int a = 0; a < np; ++a) v[a] /= m;
    ls_in[k] += std::log(m);
  }
  const size_t top = N - 1;
  const int nt = subs_[tree.nodes[top].sym];
  const auto root = params_.root[tree.root_rule];
  double z = 0;
  for (int a = 0; a < nt; ++a) z += root[a] * in[offset[top] + a];
  if (!(z > 0)) return;
  const double log_z = std::log(z) + ls_in[top];
  counts.log_likelihood += log_z;
  for (int a = 0; a < nt; ++a) {
    out[offset[top] + a] = root[a];
    counts.root[tree.root_rule][a] += root[a] * in[offset[top] + a] / z;
  }
  for (size_t k = N; k-- > 0;) {
    const Node& node = tree.nodes[k];
    const double* o = &out[offset[k]];
    const int np = subs_[node.sym];
    {
      const double* v = &in[offset[k]];
      const double scale = std::exp(ls_in[k] + ls_out[k] - log_z);
      double mass = 0;
      for (int a = 0; a < np; ++a) {
        counts.sub_count[node.sym][a] += v[a] * o[a] * scale;
        mass += v[a] * o[a];
      }
      if (merge_freq && mass > 0) {
        const auto f = (*merge_freq)[node.sym];
        for (int i = 0; i + 1 < np; i += 2) {
          const double total = f[i] + f[i + 1];
          const double w1 = total > 0 ? f[i] / total : 0.5;
          const double merged_in = w1 * v[i] + (1 - w1) * v[i + 1];
          const double merged = mass - v[i] * o[i] - v[i + 1] * o[i + 1] + merged_in * (o[i] + o[i + 1]);
          counts.merge_delta[node.sym][i / 2] += std::log(std::max(merged, 1e-300) / mass);
        }
      }
    }
    if (node.kind == 0) {
      const double* v = &in[offset[k]];
      const double scale = std::exp(ls_in[k] + ls_out[k] - log_z);
      const auto prior = counts.prior[node.sym];
      for (int a = 0; a < np; ++a) {
        const double post = v[a] * o[a] * scale;
        prior[a] += post;
        if (node.class_block >= 0) counts.by_class[node.class_block][a] += post;
      }
    } else if (node.kind == 1) {
      const int nc = subs_[tree.nodes[node.left].sym];
      const double* c = &in[offset[node.left]];
      double* oc = &out[offset[node.left]];
      const auto P = params_.unary[node.rule];
      const auto C = counts.unary[node.rule];
      const double scale = std::exp(ls_out[k] + ls_in[node.left] - log_z);
      for (int a = 0; a < np; ++a)
        for (int b = 0; b < nc; ++b) {
          const double p = o[a] * P[static_cast<size_t>(a) * nc + b];
          oc[b] += p;
          C[static_cast<size_t>(a) * nc + b] += p * c[b] * scale;
        }
      ls_out[node.left] = ls_out[k];
    } else {
      const int nl = subs_[tree.nodes[node.left].sym], nr = subs_[tree.nodes[node.right].sym];
      const double* l = &in[offset[node.left]];
      const double* r = &in[offset[node.right]];
      double* ol = &out[offset[node.left]];
      double* orr = &out[offset[node.right]];
      const auto P = params_.binary[node.rule];
      const auto C = counts.binary[node.rule];
      const double scale = std::exp(ls_out[k] + ls_in[node.left] + ls_in[node.right] - log_z);
      for (int a = 0; a < np; ++a) {
        if (o[a] == 0) continue;
        for (int b = 0; b < nl; ++b) {
          const size_t row = (static_cast<size_t>(a) * nl + b) * nr;
          double to_left = 0;
          for (int c = 0; c < nr; ++c) {
            const double p = o[a] * P[row + c];
            to_left += p * r[c];
            orr[c] += p * l[b];
            C[row + c] += p * l[b] * r[c] * scale;
          }
          ol[b] += to_left;
        }
      }
      ls_out[node.left] = ls_out[k] + ls_in[node.right];
      ls_out[node.right] = ls_out[k] + ls_in[node.left];
    }
    // Rescale the children's outside scores (their inside scores are already scaled).
    auto rescale = [&](int32_t child) {
      const int nc = subs_[tree.nodes[child].sym];
      double* oc = &out[offset[child]];
      double m = 0;
      for (int b = 0; b < nc; ++b) m = std::max(m, oc[b]);
      if (m > 0) {
        for (int b = 0; b < nc; ++b) oc[b] /= m;
        ls_out[child] += std::log(m);
      }
    };
    if (node.kind >= 1) rescale(node.left);
    if (node.kind == 2) rescale(node.right);
  }
}

void LatentPcfgTrainer::Impl::Merge(const Params& stats) {
  const int32_t S = g_.num_symbols;
  struct Pair {
    double delta;
    int32_t sym, i;
  };
  std::vector<Pair> pairs;
  for (int32_t s = 0; s < S; ++s)
    for (size_t i = 0; i < stats.merge_delta[s].size(); ++i)
      pairs.push_back({stats.merge_delta[s][i], s, static_cast<int32_t>(i)});
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return a.delta != b.delta ? a.delta > b.delta : (a.sym != b.sym ? a.sym < b.sym : a.i < b.i);
  });
  const size_t merges = static_cast<size_t>(options_.merge * static_cast<double>(pairs.size()));
  std::vector<std::vector<uint8_t>> merged(S);
  for (int32_t s = 0; s < S; ++s) merged[s].assign(stats.merge_delta[s].size(), 0);
  for (size_t m = 0; m < merges; ++m) merged[pairs[m].sym][pairs[m].i] = 1;
  // Old subsymbol -> new, and each old subsymbol's weight within its new one.
  std::vector<std::vector<int32_t>> to(S);
  std::vector<std::vector<double>> weight(S);
  std::vector<int32_t> next(S);
  for (int32_t s = 0; s < S; ++s) {
    const int n = subs_[s];
    const auto f = last_sub_count_[s];
    to[s].assign(n, 0), weight[s].assign(n, 1.0);
    int32_t k = 0;
    for (int x = 0; x < n; ++x) {
      const bool pair_merged = x / 2 < static_cast<int>(merged[s].size()) && merged[s][x / 2];
      if (pair_merged && x % 2 == 1) {
        to[s][x] = k - 1;
        const double total = f[x - 1] + f[x];
        weight[s][x - 1] = total > 0 ? f[x - 1] / total : 0.5;
        weight[s][x] = total > 0 ? f[x] / total : 0.5;
      } else {
        to[s][x] = k++;
      }
    }
    next[s] = k;
  }
  // A merged parent's rules are its halves' weighted by frequency; merged children's add up.
  auto remap = [&](const Blocks& rules, size_t r, int32_t p, int32_t l, int32_t c, Blocks& into) {
    const size_t np = subs_[p], nl = subs_[l], nr = c < 0 ? 1 : subs_[c];
    const size_t ml = next[l], mr = c < 0 ? 1 : next[c];
    const auto from = rules[r];
    into.Append(static_cast<size_t>(next[p]) * ml * mr, 0.0);
    auto out = into[into.size() - 1];
    for (size_t a = 0; a < np; ++a)
      for (size_t b = 0; b < nl; ++b)
        for (size_t x = 0; x < nr; ++x)
          out[(to[p][a] * ml + to[l][b]) * mr + (c < 0 ? 0 : to[c][x])] +=
              weight[p][a] * from[(a * nl + b) * nr + x];
  };
  Blocks binary, unary;
  for (size_t r = 0; r < g_.binary.size(); ++r)
    remap(params_.binary, r, g_.binary[r].parent, g_.binary[r].left, g_.binary[r].right, binary);
  for (size_t r = 0; r < g_.unary.size(); ++r)
    remap(params_.unary, r, g_.unary[r].parent, g_.unary[r].child, -1, unary);
  params_.binary = std::move(binary), params_.unary = std::move(unary);
  // Distributions over one symbol's subsymbols: the merged ones' shares add up.
  auto sum_into = [&](const Blocks& dists, const std::vector<int32_t>& symbol_of) {
    Blocks out;
    for (size_t d = 0; d < dists.size(); ++d) {
      const int32_t s = symbol_of[d];
      const auto from = dists[d];
      out.Append(from.size() == 0 ? 0 : next[s], 0.0);
      auto into = out[d];
      for (size_t x = 0; x < from.size(); ++x) into[to[s][x]] += from[x];
    }
    return out;
  };
  std::vector<int32_t> symbols(S);
  for (int32_t s = 0; s < S; ++s) symbols[s] = s;
  params_.root = sum_into(params_.root, g_.root);
  params_.prior = sum_into(params_.prior, symbols);
  params_.by_class = sum_into(params_.by_class, class_tag_);
  last_sub_count_ = sum_into(last_sub_count_, symbols);
  subs_ = next;
}

void LatentPcfgTrainer::Impl::MStep(const Params& counts) {
  const int32_t S = g_.num_symbols;
  Blocks total;
  for (int32_t s = 0; s < S; ++s) total.Append(subs_[s], 0.0);
  auto add_totals = [&](const Blocks& C, size_t r, int32_t p) {
    const auto block = C[r];
    const size_t per = block.size() / subs_[p];
    for (int a = 0; a < subs_[p]; ++a)
      for (size_t x = 0; x < per; ++x) total[p][a] += block[a * per + x];
  };
  for (size_t r = 0; r < g_.binary.size(); ++r) add_totals(counts.binary, r, g_.binary[r].parent);
  for (size_t r = 0; r < g_.unary.size(); ++r) add_totals(counts.unary, r, g_.unary[r].parent);
  const double alpha = options_.smoothing;
  auto normalize = [&](const Blocks& C, Blocks& into, size_t r, int32_t p) {
    const auto c = C[r];
    const auto P = into[r];
    const int np = subs_[p];
    const size_t per = c.size() / np;
    for (int a = 0; a < np; ++a) {
      if (!(total[p][a] > 0)) continue;  // never seen: keep its probabilities
      for (size_t x = 0; x < per; ++x) P[a * per + x] = c[a * per + x] / total[p][a];
    }
    if (alpha > 0 && np > 1) {
      for (size_t x = 0; x < per; ++x) {
        double mean = 0;
        for (int a = 0; a < np; ++a) mean += P[a * per + x];
        mean /= np;
        for (int a = 0; a < np; ++a) P[a * per + x] = (1 - alpha) * P[a * per + x] + alpha * mean;
      }
    }
  };
  for (size_t r = 0; r < g_.binary.size(); ++r)
    normalize(counts.binary, params_.binary, r, g_.binary[r].parent);
  for (size_t r = 0; r < g_.unary.size(); ++r) normalize(counts.unary, params_.unary, r, g_.unary[r].parent);
  double root_total = 0;
  for (double c : counts.root.values) root_total += c;
  if (root_total > 0)
    for (size_t i = 0; i < counts.root.values.size(); ++i)
      params_.root.values[i] = counts.root.values[i] / root_total;
  for (int32_t t = 0; t < S; ++t) {
    const auto c = counts.prior[t];
    double sum = 0;
    for (double v : c) sum += v;
    if (sum > 0)
      for (size_t x = 0; x < c.size(); ++x) params_.prior[t][x] = c[x] / sum;
  }
  const double lambda = options_.lex_prior;
  for (size_t b = 0; b < class_tag_.size(); ++b) {
    const auto c = counts.by_class[b];
    const auto prior = params_.prior[class_tag_[b]];
    double sum = 0;
    for (double v : c) sum += v;
    const auto P = params_.by_class[b];
    for (size_t x = 0; x < c.size(); ++x) P[x] = (c[x] + lambda * prior[x]) / (sum + lambda);
  }
}

std::unique_ptr<ChartModel> LatentPcfgTrainer::Impl::Build() const {
  auto latent = std::make_shared<LatentGrammar>();
  LatentGrammar& L = *latent;
  L.base = g_;
  L.base.BuildIndexes();
  L.num_subs = subs_;
  // The blocks laid end to end are the positions' layout (chart/latent_grammar.h).
  auto sparse = [](const Blocks& blocks, std::vector<uint64_t>& at, std::vector<uint16_t>& out) {
    for (size_t x = 0; x < blocks.values.size(); ++x) {
      if (!(blocks.values[x] >= kLatentMinRuleProb)) continue;
      at.push_back(x);
      out.push_back(LatentGrammar::RuleCode(blocks.values[x]));
    }
  };
  sparse(params_.binary, L.binary_at, L.binary);
  sparse(params_.unary, L.unary_at, L.unary);
  sparse(params_.root, L.root_at, L.root);
  L.num_words = classes_.num_words;
  L.word_min = classes_.word_min;
  std::vector<int32_t> first(g_.num_symbols, 0);
  for (int32_t s = 1; s < g_.num_symbols; ++s) first[s] = first[s - 1] + subs_[s - 1];
  const uint64_t subsymbols = static_cast<uint64_t>(first.back() + subs_.back());
  std::vector<std::pair<uint64_t, int16_t>> splits;
  for (size_t b = 0; b < class_tag_.size(); ++b) {
    const int32_t t = class_tag_[b];
    const uint64_t word_class = class_key_[b] >> 32;
    const auto P = params_.by_class[b];
    const auto prior = params_.prior[t];
    for (size_t a = 0; a < P.size(); ++a)
      splits.emplace_back(word_class * subsymbols + static_cast<uint64_t>(first[t] + a),
                          LatentGrammar::SplitCode(std::log(P[a]) - std::log(prior[a])));
  }
  std::sort(splits.begin(), splits.end());
  for (const auto& [at, code] : splits) L.split_at.push_back(at), L.split.push_back(code);
  L.Finish();
  return ExpandLatent(std::move(latent), base_.lexicon);
}

LatentPcfgTrainer::LatentPcfgTrainer(const ChartModel& base, const Corpus& corpus,
                                     const std::vector<GoldItems>& gold, const LatentOptions& options) {
  if (base.use_crf || base.latent) throw InputError("latent PCFG: the base must be a plain PCFG");
  if (gold.size() != static_cast<size_t>(corpus.size()))
    throw InputError("latent PCFG: tree and sentence counts differ");
  if (options.cycles < 0 || options.iterations < 0 || options.threads < 1 || options.threads > kMaxThreads ||
      !(options.merge >= 0 && options.merge < 1) || !(options.smoothing >= 0 && options.smoothing < 1) ||
      !(options.lex_prior > 0) || !(options.noise >= 0 && options.noise < 1) || options.word_min < 1 ||
      options.max_subsymbols < 1)
    throw InputError("latent PCFG: bad options");
  impl_ = std::make_unique<Impl>(base, corpus, gold, options);
}

LatentPcfgTrainer::~LatentPcfgTrainer() = default;

double LatentPcfgTrainer::Steps(int steps, const std::atomic<bool>* cancel) {
  double out = 0;
  for (int k = 0; k < steps && !Done(); ++k) out = impl_->Step(cancel);
  return out;
}
int LatentPcfgTrainer::steps_done() const { return static_cast<int>(impl_->next_); }
int LatentPcfgTrainer::total_steps() const { return impl_->TotalSteps(); }
bool LatentPcfgTrainer::Done() const { return impl_->next_ >= impl_->schedule_.size(); }
std::unique_ptr<ChartModel> LatentPcfgTrainer::Build() const { return impl_->Build(); }

std::unique_ptr<ChartModel> TrainLatentPcfg(const ChartModel& base, const Corpus& corpus,
                                            const std::vector<GoldItems>& gold, const LatentOptions& options,
                                            const std::atomic<bool>* cancel) {
  LatentPcfgTrainer trainer(base, corpus, gold, options);
  while (!trainer.Done()) trainer.Steps(1, cancel);
  return trainer.Build();
}

}  // namespace structrank
