#include "perceptron/perceptron_train.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>

#include "core/errors.h"
#include "core/thread_pool.h"
#include "perceptron/perceptron_predict.h"

namespace structrank {

namespace {

// Shared between chunks: progress counters and the cache budget.
struct SharedState {
  const PerceptronOptions* options;
  int64_t total_steps = 0;
  std::atomic<int64_t> steps_done{0};
  std::atomic<int64_t> mistakes{0};
  std::atomic<int64_t> cache_budget{0};  // doubles still allowed in caches
  std::atomic<int64_t> kernel_calls{0};
  std::atomic<int64_t> cache_hits{0};
  std::mutex progress_mutex;
  int64_t report_every = 1;

  void Step(bool mistake) {
    if (mistake) mistakes.fetch_add(1, std::memory_order_relaxed);
    int64_t done = steps_done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (options->progress && (done % report_every == 0 || done == total_steps)) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      options->progress(done, total_steps, mistakes.load());
    }
  }
};

// Dual scoring with a per-candidate cache: row c holds K(support_k, c) for a prefix of
// the support list (NaN where the value was never needed because coef_k was 0). Support
// entries are only appended, so a cached prefix stays valid as coefficients change.
class DualScorer : public ChunkScorer {
 public:
  DualScorer(const CandidateKernel& kernel, SharedState& shared, int64_t candidates)
      : kernel_(kernel), shared_(shared), rows_(candidates) {}

  double Score(int32_t c) override {
    const SupportList& support = support_;
    std::vector<double>& row = rows_[c];
    const auto n = static_cast<int32_t>(support.candidates.size());
    if (static_cast<int32_t>(row.size()) < n) {
      const int64_t want = n - static_cast<int64_t>(row.size());
      if (shared_.cache_budget.fetch_sub(want, std::memory_order_relaxed) >= want) {
        row.resize(n, std::numeric_limits<double>::quiet_NaN());
      } else {
        shared_.cache_budget.fetch_add(want, std::memory_order_relaxed);
      }
    }
    const auto cached = static_cast<int32_t>(row.size());
    double g = 0;
    int64_t calls = 0, hits = 0;
    for (int32_t k = 0; k < n; ++k) {
      const double a = support.coef[k];
      if (a == 0) continue;
      double v;
      if (k < cached && !std::isnan(row[k])) {
        v = row[k];
        ++hits;
      } else {
        v = kernel_(support.candidates[k], c);
        ++calls;
        if (k < cached) row[k] = v;
      }
      g += a * v;
    }
    shared_.kernel_calls.fetch_add(calls, std::memory_order_relaxed);
    shared_.cache_hits.fetch_add(hits, std::memory_order_relaxed);
    return g;
  }

  void Update(int32_t plus, int32_t minus) override {
    support_.coef[support_.Add(plus)] += 1;
    support_.coef[support_.Add(minus)] -= 1;
  }

  void Start(int32_t candidate, double coef) override { support_.coef[support_.Add(candidate)] += coef; }

 private:
  SupportList support_;
  const CandidateKernel& kernel_;
  SharedState& shared_;
  std::vector<std::vector<double>> rows_;
};

class PrimalScorer : public ChunkScorer {
 public:
  PrimalScorer(const RankingSet& set, const CsrMatrix& features, int32_t num_features, double beta)
      : set_(set), features_(features), weights_(num_features, 0.0), beta_(beta) {}

  double Score(int32_t c) override {
    double g = 0;
    for (int64_t k = features_.RowBegin(c); k < features_.RowEnd(c); ++k) {
      g += weights_[features_.cols[k]] * static_cast<double>(features_.Value(k));
    }
    if (beta_ != 0) g += beta_ * set_.logprob[c] * logprob_sum_;
    return g;
  }

  bool ParallelScoring() const override { return false; }

  void Update(int32_t plus, int32_t minus) override {
    for (int64_t k = features_.RowBegin(plus); k < features_.RowEnd(plus); ++k) {
      weights_[features_.cols[k]] += features_.Value(k);
    }
    for (int64_t k = features_.RowBegin(minus); k < features_.RowEnd(minus); ++k) {
      weights_[features_.cols[k]] -= features_.Value(k);
    }
    logprob_sum_ += set_.logprob[plus] - set_.logprob[minus];
  }

  void Start(int32_t candidate, double coef) override {
    for (int64_t k = features_.RowBegin(candidate); k < features_.RowEnd(candidate); ++k) {
      weights_[features_.cols[k]] += coef * static_cast<double>(features_.Value(k));
    }
    logprob_sum_ += coef * set_.logprob[candidate];
  }

 private:
  const RankingSet& set_;
  const CsrMatrix& features_;
  std::vector<double> weights_;
  double beta_;
  double logprob_sum_ = 0;
};

// The candidate the current hypothesis ranks first among ex's sentence: argmax of its score
// (+ the base-model prior), ties to the lower candidate index (the base model's order).
int32_t ChooseForTraining(const RankingSet& set, const RankingExample& ex, ChunkScorer& scorer,
                          std::size_t support_size, int inner_threads, const PerceptronOptions& opt,
                          std::vector<double>& g) {
  const int64_t b = set.sentence_ptr[ex.sentence], e = set.sentence_ptr[ex.sentence + 1];
  g.assign(e - b, 0.0);
  const int64_t work = (e - b) * static_cast<int64_t>(support_size + 1);
  if (!scorer.ScoreSentence(static_cast<int32_t>(b), static_cast<int32_t>(e), g.data(), inner_threads)) {
    if (inner_threads > 1 && work >= 256 && scorer.ParallelScoring()) {
      ParallelFor(e - b, inner_threads, 1, [&](std::size_t lo, std::size_t hi, int) {
        for (std::size_t j = lo; j < hi; ++j) g[j] = scorer.Score(static_cast<int32_t>(b + j));
      });
    } else {
      for (int64_t j = 0; j < e - b; ++j) g[j] = scorer.Score(static_cast<int32_t>(b + j));
    }
  }
  if (opt.base_weight != 0) {
    for (int64_t j = 0; j < e - b; ++j) g[j] += opt.base_weight * set.logprob[b + j];
  }
  int64_t chosen = 0;
  for (int64_t j = 1; j < e - b; ++j) {
    if (ScoreAbove(g[j], g[chosen])) chosen = j;
  }
  return static_cast<int32_t>(b + chosen);
}

// Trains one chunk: `examples` in their own seeded order each epoch.
PerceptronChunk TrainChunk(const RankingSet& set, std::vector<RankingExample> examples, ChunkScorer& scorer,
                           SupportList& support, SharedState& shared, int chunk_index, int inner_threads,
                           int32_t resume_offset) {
  const PerceptronOptions& opt = *shared.options;
  std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(chunk_index));
  PerceptronChunk out;
  std::vector<double> g;
  int first_epoch = 0;
  if (opt.resume) {
    // The shuffles of the epochs done (they permute `examples` in place and advance rng),
    // then the chunk's updates in order: the support list, its coefficients and the scorer
    // come out as they were; support.Add numbers candidates by first appearance, as before.
    for (int epoch = 0; epoch < opt.resume_epochs && opt.shuffle; ++epoch) {
      for (std::size_t i = examples.size(); i > 1; --i) std::swap(examples[i - 1], examples[rng() % i]);
    }
    const PerceptronChunk& prior = opt.resume->chunks[chunk_index];
    const std::vector<int32_t>& ids = opt.resume->support;
    for (const Mistake& m : prior.mistakes) {
      if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) throw Cancelled();
      const int32_t plus = support.Add(ids[m.plus]);
      const int32_t minus = support.Add(ids[m.minus]);
      if (plus != m.plus - resume_offset || minus != m.minus - resume_offset) {
        throw ModelError("perceptron checkpoint does not fit this training data");
      }
      support.coef[plus] += 1;
      support.coef[minus] -= 1;
      scorer.Update(ids[m.plus], ids[m.minus]);
      out.mistakes.push_back({m.step, plus, minus});
      shared.mistakes.fetch_add(1, std::memory_order_relaxed);
    }
    out.steps = prior.steps;
    shared.steps_done.fetch_add(prior.steps, std::memory_order_relaxed);
    first_epoch = opt.resume_epochs;
  }
  for (int epoch = first_epoch; epoch < opt.epochs; ++epoch) {
    if (opt.shuffle) {
      // Fisher-Yates with our own index draws, so the order is the same on every platform.
      for (std::size_t i = examples.size(); i > 1; --i) {
        std::swap(examples[i - 1], examples[rng() % i]);
      }
    }
    for (const RankingExample& ex : examples) {
      if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) throw Cancelled();
      const int32_t chosen_id =
          ChooseForTraining(set, ex, scorer, support.candidates.size(), inner_threads, opt, g);
      ++out.steps;
      const bool mistake = set.score[chosen_id] < set.score[ex.best];
      if (mistake) {
        const int32_t plus = support.Add(ex.best);
        const int32_t minus = support.Add(chosen_id);
        support.coef[plus] += 1;
        support.coef[minus] -= 1;
        scorer.Update(ex.best, chosen_id);
        out.mistakes.push_back({out.steps, plus, minus});
      }
      shared.Step(mistake);
    }
  }
  return out;
}

PerceptronRun TrainChunks(const RankingSet& set, const PerceptronOptions& options, SharedState& shared,
                          const ChunkScorerFactory& make_scorer) {
  if (options.epochs < 1) throw InputError("perceptron: epochs must be >= 1");
  if (options.chunks < 1) throw InputError("perceptron: chunks must be >= 1");
  const std::vector<RankingExample> all = BuildExamples(set);
  const int chunks = static_cast<int>(
      std::max<std::size_t>(1, std::min<std::size_t>(options.chunks, std::max<std::size_t>(all.size(), 1))));
  shared.options = &options;
  shared.total_steps = static_cast<int64_t>(all.size()) * options.epochs;
  shared.report_every = std::max<int64_t>(1, shared.total_steps / 200);

  std::vector<std::vector<RankingExample>> parts(chunks);
  for (std::size_t i = 0; i < all.size(); ++i) parts[i * chunks / all.size()].push_back(all[i]);

  const int threads = options.threads;
  const int inner = std::max(1, threads / chunks);
  std::vector<PerceptronChunk> results(chunks);
  std::vector<SupportList> supports(chunks);
  // Resuming: where each chunk's support entries start in the saved run (its chunks'
  // support lists are concatenated, each as long as its distinct mistake candidates).
  std::vector<int32_t> offsets(chunks, 0);
  if (options.resume) {
    const PerceptronRun& r = *options.resume;
    if (static_cast<int>(r.chunks.size()) != chunks || options.resume_epochs < 0 ||
        options.resume_epochs > options.epochs) {
      throw ModelError("perceptron checkpoint does not fit these options (chunks or epochs)");
    }
    int32_t at = 0;
    for (int c = 0; c < chunks; ++c) {
      offsets[c] = at;
      int32_t top = at - 1;
      for (const Mistake& m : r.chunks[c].mistakes) top = std::max({top, m.plus, m.minus});
      at = top + 1;
      for (const Mistake& m : r.chunks[c].mistakes) {
        if (m.plus < offsets[c] || m.minus < offsets[c])
          throw ModelError("perceptron checkpoint is inconsistent");
      }
    }
    if (at != static_cast<int32_t>(r.support.size()))
      throw ModelError("perceptron checkpoint is inconsistent");
    for (int32_t id : r.support) {
      if (id < 0 || id >= set.candidates())
        throw ModelError("perceptron checkpoint does not fit this training data");
    }
  }
  ParallelFor(
      chunks, threads, 1,
      [&](std::size_t lo, std::size_t hi, int) {
        for (std::size_t c = lo; c < hi; ++c) {
          auto scorer = make_scorer();
          results[c] =
              TrainChunk(set, parts[c], *scorer, supports[c], shared, static_cast<int>(c), inner, offsets[c]);
        }
      },
      options.cancel);

  // Chunks own disjoint sentences, so their support lists simply concatenate.
  PerceptronRun run;
  for (int c = 0; c < chunks; ++c) {
    const auto offset = static_cast<int32_t>(run.support.size());
    run.support.insert(run.support.end(), supports[c].candidates.begin(), supports[c].candidates.end());
    for (Mistake& m : results[c].mistakes) {
      m.plus += offset;
      m.minus += offset;
    }
    run.chunks.push_back(std::move(results[c]));
  }
  return run;
}

}  // namespace

PerceptronRun TrainPerceptron(const RankingSet& set, const PerceptronOptions& options,
                              const ChunkScorerFactory& make_scorer) {
  set.Validate(true);
  SharedState shared;
  return TrainChunks(set, options, shared, make_scorer);
}

PerceptronRun TrainDualPerceptron(const RankingSet& set, const CandidateKernel& kernel,
                                  const PerceptronOptions& options, TrainStats* stats) {
  set.Validate(true);
  SharedState shared;
  shared.cache_budget = std::max<int64_t>(0, options.cache_bytes / static_cast<int64_t>(sizeof(double)));
  PerceptronRun run = TrainChunks(set, options, shared, [&]() {
    return std::unique_ptr<ChunkScorer>(std::make_unique<DualScorer>(kernel, shared, set.candidates()));
  });
  if (stats) {
    stats->kernel_calls = shared.kernel_calls.load();
    stats->cache_hits = shared.cache_hits.load();
  }
  return run;
}

PerceptronRun TrainPrimalPerceptron(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                    double beta, const PerceptronOptions& options) {
  set.Validate(true);
  if (features.rows() != set.candidates())
    throw InputError("perceptron: one feature row per candidate expected");
  features.Validate(num_features);
  SharedState shared;
  return TrainChunks(set, options, shared, [&]() {
    return std::unique_ptr<ChunkScorer>(std::make_unique<PrimalScorer>(set, features, num_features, beta));
  });
}

ChunkScorerFactory PrimalTrainer(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                 double beta) {
  features.Validate(num_features);
  return [&set, &features, num_features, beta]() -> std::unique_ptr<ChunkScorer> {
    return std::make_unique<PrimalScorer>(set, features, num_features, beta);
  };
}

void ChunkScorer::Start(int32_t /*candidate*/, double /*coef*/) {
  throw InputError("perceptron: this scorer cannot start from given coefficients");
}

namespace {

MixingEpochResult MixingEpoch(const RankingSet& set, const PerceptronOptions& opt,
                              const std::vector<double>& start, int64_t first, int64_t last,
                              ChunkScorer& scorer) {
  const int64_t sentences = static_cast<int64_t>(set.sentence_ptr.size()) - 1;
  if (static_cast<int64_t>(start.size()) != set.candidates()) {
    throw InputError("perceptron mixing: one start coefficient per candidate expected");
  }
  if (first < 0 || last > sentences || first >= last)
    throw InputError("perceptron mixing: bad sentence range");
  std::size_t support = 0;
  for (int32_t c = 0; c < static_cast<int32_t>(start.size()); ++c) {
    if (start[c] != 0) {
      scorer.Start(c, start[c]);
      ++support;
    }
  }
  std::vector<RankingExample> examples;
  for (const RankingExample& ex : BuildExamples(set)) {
    if (ex.sentence >= first && ex.sentence < last) examples.push_back(ex);
  }
  // The shuffle of chunk 0 in TrainChunk, with this round's seed.
  std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull);
  if (opt.shuffle) {
    for (std::size_t i = examples.size(); i > 1; --i) std::swap(examples[i - 1], examples[rng() % i]);
  }
  MixingEpochResult out;
  out.last = start;
  std::vector<double> survived(start.size(), 0.0);  // per candidate: sum of +-(T - step + 1)
  std::vector<Mistake> mistakes;
  const int threads = opt.threads;
  std::vector<double> g;
  for (const RankingExample& ex : examples) {
    if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    const int32_t chosen = ChooseForTraining(set, ex, scorer, support, threads, opt, g);
    ++out.steps;
    if (set.score[chosen] < set.score[ex.best]) {
      out.last[ex.best] += 1;
      out.last[chosen] -= 1;
      scorer.Update(ex.best, chosen);
      mistakes.push_back({out.steps, ex.best, chosen});
      support += 2;  // an upper bound, for the threading heuristic only
    }
  }
  out.mistakes = static_cast<int64_t>(mistakes.size());
  // A mistake at step s is part of the hypotheses G_s .. G_T (as PerceptronRun's average).
  for (const Mistake& m : mistakes) {
    const auto kept = static_cast<double>(out.steps - m.step + 1);
    survived[m.plus] += kept;
    survived[m.minus] -= kept;
  }
  out.averaged = start;
  if (out.steps > 0) {
    for (std::size_t c = 0; c < start.size(); ++c)
      out.averaged[c] += survived[c] / static_cast<double>(out.steps);
  }
  return out;
}

}  // namespace

MixingEpochResult DualMixingEpoch(const RankingSet& set, const CandidateKernel& kernel,
                                  const PerceptronOptions& options, const std::vector<double>& start,
                                  int64_t first, int64_t last) {
  set.Validate(true);
  SharedState shared;
  shared.options = &options;
  shared.cache_budget = std::max<int64_t>(0, options.cache_bytes / static_cast<int64_t>(sizeof(double)));
  DualScorer scorer(kernel, shared, set.candidates());
  return MixingEpoch(set, options, start, first, last, scorer);
}

MixingEpochResult PrimalMixingEpoch(const RankingSet& set, const CsrMatrix& features, int32_t num_features,
                                    double beta, const PerceptronOptions& options,
                                    const std::vector<double>& start, int64_t first, int64_t last) {
  set.Validate(true);
  if (features.rows() != set.candidates())
    throw InputError("perceptron: one feature row per candidate expected");
  features.Validate(num_features);
  PrimalScorer scorer(set, features, num_features, beta);
  return MixingEpoch(set, options, start, first, last, scorer);
}

}  // namespace structrank
