// Tagging-kernel perceptrons scored over shared suffixes make the decisions, and give the
// scores, of one kernel call per (support, candidate) pair.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/byte_io.h"
#include "core/test_harness.h"
#include "perceptron/compressed_training_check.h"
#include "perceptron/linear_sum_bank.h"
#include "perceptron/reranker_model.h"
#include "perceptron/structured_banks.h"

using namespace structrank;

namespace {

// n-best-like lists: per sentence one word sequence and `candidates` label sequences, each a
// first guess with up to two labels changed (so suffixes repeat within a sentence).
struct TagLists {
  TaggedSequences seqs;
  RankingSet set;
};

TagLists RandomLists(int sentences, int candidates, uint64_t seed, bool with_scores) {
  std::mt19937_64 rng(seed);
  TagLists out;
  out.seqs.symbols = {"O", "B", "I", "the", "Rome", "fell", "to", "Goths", "a1", "Ab"};
  for (int s = 0; s < sentences; ++s) {
    const int n = 1 + static_cast<int>(rng() % 8);
    std::vector<int32_t> words(n), first(n);
    for (int t = 0; t < n; ++t) {
      words[t] = 3 + static_cast<int32_t>(rng() % 7);
      first[t] = static_cast<int32_t>(rng() % 3);
    }
    for (int c = 0; c < candidates; ++c) {
      std::vector<int32_t> labels = first;
      for (int k = static_cast<int>(rng() % 3); k > 0 && c > 0; --k)
        labels[rng() % n] = static_cast<int32_t>(rng() % 3);
      out.seqs.label.insert(out.seqs.label.end(), labels.begin(), labels.end());
      out.seqs.word.insert(out.seqs.word.end(), words.begin(), words.end());
      out.seqs.length.push_back(n);
      if (with_scores) out.set.score.push_back(static_cast<double>(rng() % 4));
      out.set.logprob.push_back(-static_cast<double>(rng() % 10) - 0.5 * c);
    }
    out.set.sentence_ptr.push_back(static_cast<int64_t>(out.set.logprob.size()));
  }
  return out;
}

TagKernelWeights Weights(bool sim2) {
  return sim2 ? TagKernelWeights{0.6, 0.5, 0.5} : TagKernelWeights{0.5, 1.0, 0.0};
}

}  // namespace

TEST(tag_suffix_training_makes_the_kernel_training_decisions) {
  for (bool sim2 : {false, true}) {
    TagLists data = RandomLists(60, 6, 31, true);
    TagCandidateBank train(data.seqs, Weights(sim2), sim2 ? "caps" : "none");
    for (double beta : {0.0, 0.25}) CheckCompressedTrainingAgrees(train, data.set, beta);
  }
}

TEST(tag_suffix_prediction_equals_kernel_calls_in_every_mode) {
  for (bool sim2 : {false, true}) {
    TagLists data = RandomLists(50, 5, 41, true);
    TagCandidateBank train(data.seqs, Weights(sim2), sim2 ? "caps" : "none");
    PerceptronOptions opt;
    opt.threads = 2;
    opt.epochs = 2;
    RerankerModel model = RerankerModel::Train(train, data.set, 0.2, false, opt);
    CHECK(model.run().TotalMistakes() > 0);
    TagLists query = RandomLists(20, 7, 42, false);
    TagCandidateBank qbank(query.seqs, Weights(sim2), sim2 ? "caps" : "none");
    for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged, PredictMode::kVoted}) {
      std::vector<double> a, b;
      auto ca = model.Choose(qbank, query.set, mode, 2, nullptr, &a, true);
      auto cb = model.Choose(qbank, query.set, mode, 1, nullptr, &b, false);
      CHECK(ca == cb);
      CHECK(a.size() == b.size());
      for (std::size_t k = 0; k < a.size(); ++k)
        CHECK(std::fabs(a[k] - b[k]) <= 1e-9 * std::max(1.0, std::fabs(b[k])));
    }
  }
}

TEST(tag_suffix_columns_equal_kernel_calls) {
  TagLists support = RandomLists(15, 3, 51, false);
  TagLists query = RandomLists(10, 6, 52, false);
  TagCandidateBank sbank(support.seqs, Weights(false), "none");
  TagCandidateBank qbank(query.seqs, Weights(false), "none");
  auto columns = sbank.CompressedColumns(qbank);
  auto kernel = sbank.KernelWith(qbank);
  const int64_t stride = sbank.size() + 3;  // a wider row than needed: only [0, size) is written
  for (int64_t s = 0; s < query.set.sentences(); ++s) {
    const auto b = static_cast<int32_t>(query.set.sentence_ptr[s]),
               e = static_cast<int32_t>(query.set.sentence_ptr[s + 1]);
    std::vector<double> out((e - b) * stride, -1.0), one(sbank.size());
    columns->SentenceColumns(b, e, stride, out.data());
    for (int32_t c = b; c < e; ++c) {
      columns->Column(c, one.data());
      for (int32_t k = 0; k < sbank.size(); ++k) {
        const double expect = (*kernel)(k, c);
        CHECK(std::fabs(out[(c - b) * stride + k] - expect) <= 1e-9 * std::max(1.0, expect));
        CHECK(std::fabs(one[k] - expect) <= 1e-9 * std::max(1.0, expect));
      }
      CHECK(out[(c - b) * stride + sbank.size()] == -1.0);
    }
  }
  // The weighted scorer, one candidate at a time and a sentence at a time.
  std::vector<double> coef(sbank.size());
  for (std::size_t k = 0; k < coef.size(); ++k) coef[k] = static_cast<double>(static_cast<int>(k % 5) - 2);
  auto scorer = sbank.CompressedScorer(coef, qbank);
  std::vector<double> sentence(qbank.size());
  for (int64_t s = 0; s < query.set.sentences(); ++s) {
    const auto b = static_cast<int32_t>(query.set.sentence_ptr[s]),
               e = static_cast<int32_t>(query.set.sentence_ptr[s + 1]);
    scorer->ScoreSentence(b, e, sentence.data() + b);
  }
  for (int32_t c = 0; c < qbank.size(); ++c) {
    double expect = 0;
    for (int32_t k = 0; k < sbank.size(); ++k) expect += coef[k] * (*kernel)(k, c);
    CHECK(std::fabs(scorer->Score(c) - expect) <= 1e-9 * std::max(1.0, std::fabs(expect)));
    CHECK(std::fabs(sentence[c] - expect) <= 1e-9 * std::max(1.0, std::fabs(expect)));
  }
}

TEST(base_weight_is_saved_and_old_payloads_load_without_it) {
  TagLists data = RandomLists(40, 5, 61, true);
  TagCandidateBank train(data.seqs, Weights(false), "none");
  PerceptronOptions opt;
  opt.threads = 2;
  opt.base_weight = 2.5;
  RerankerModel model = RerankerModel::Train(train, data.set, 0.2, false, opt);
  CHECK(model.base_weight() == 2.5);
  ByteWriter w;
  model.Save(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  RerankerModel back = RerankerModel::Load(r);
  CHECK(back.base_weight() == 2.5);
  TagLists query = RandomLists(15, 6, 62, false);
  TagCandidateBank qbank(query.seqs, Weights(false), "none");
  for (PredictMode mode : {PredictMode::kAveraged, PredictMode::kVoted}) {
    CHECK(model.Choose(qbank, query.set, mode, 1, nullptr) ==
          back.Choose(qbank, query.set, mode, 1, nullptr));
  }
  // Older payloads: "PRM2" has no normalize flag in the tag bank (the bank is the payload's
  // tail; the flag follows lambda, sim1, sim2 and the word-feature name "none"), and
  // "PRM1" (magic, kind, beta, then the run) has no base weight either.
  ByteWriter bank_bytes;
  model.support().Save(bank_bytes);
  std::vector<uint8_t> v2(w.bytes().begin(), w.bytes().end());
  v2.erase(v2.end() - static_cast<std::ptrdiff_t>(bank_bytes.bytes().size()) + 3 * 8 + 8 + 4);
  const uint32_t magic_v2 = 0x50524d32;
  std::memcpy(v2.data(), &magic_v2, sizeof magic_v2);
  ByteReader r2(v2.data(), v2.size());
  RerankerModel back2 = RerankerModel::Load(r2);
  CHECK(back2.base_weight() == 2.5);
  CHECK(!static_cast<const TagCandidateBank&>(back2.support()).normalized());
  CHECK(model.Choose(qbank, query.set, PredictMode::kVoted, 1, nullptr) ==
        back2.Choose(qbank, query.set, PredictMode::kVoted, 1, nullptr));
  std::vector<uint8_t> v1 = v2;
  const uint32_t magic_v1 = 0x50524d31;
  std::memcpy(v1.data(), &magic_v1, sizeof magic_v1);
  v1.erase(v1.begin() + 16, v1.begin() + 24);
  ByteReader r1(v1.data(), v1.size());
  CHECK(RerankerModel::Load(r1).base_weight() == 0.0);
}

// The normalized kernel K(a, b) / sqrt(K(a, a) K(b, b)): the shared-suffix scorers, columns
// and trainer agree with one normalized kernel call per pair, and the flag survives saving.
TEST(normalized_tag_kernel_in_every_path) {
  TagLists support = RandomLists(15, 3, 71, false);
  TagLists query = RandomLists(10, 6, 72, false);
  TagCandidateBank sbank(support.seqs, Weights(true), "caps", true);
  TagCandidateBank qbank(query.seqs, Weights(false), "caps", false);  // the query's own weights do not matter
  auto kernel = sbank.KernelWith(qbank);
  auto columns = sbank.CompressedColumns(qbank);
  const SequenceBank raw_s = [&] {
    SequenceBank b(WordFeature::kCaps, "caps");
    b.Add(support.seqs);
    return b;
  }();
  const SequenceBank raw_q = [&] {
    SequenceBank b(WordFeature::kCaps, "caps");
    b.Add(query.seqs);
    return b;
  }();
  std::vector<double> one(sbank.size());
  for (int32_t c = 0; c < qbank.size(); ++c) {
    columns->Column(c, one.data());
    for (int32_t k = 0; k < sbank.size(); ++k) {
      const SequenceView a = raw_s.Sequence(k), b = raw_q.Sequence(c);
      const double expect =
          TagKernelPlain(a, b, Weights(true)) /
          std::sqrt(TagKernelPlain(a, a, Weights(true)) * TagKernelPlain(b, b, Weights(true)));
      CHECK(expect > 0 ? expect <= 1 + 1e-12 : expect == 0);
      CHECK(std::fabs((*kernel)(k, c) - expect) <= 1e-12);
      CHECK(std::fabs(one[k] - expect) <= 1e-12);
    }
  }
  std::vector<double> coef(sbank.size());
  for (std::size_t k = 0; k < coef.size(); ++k) coef[k] = static_cast<double>(static_cast<int>(k % 5) - 2);
  auto scorer = sbank.CompressedScorer(coef, qbank);
  for (int32_t c = 0; c < qbank.size(); ++c) {
    double expect = 0;
    for (int32_t k = 0; k < sbank.size(); ++k) expect += coef[k] * (*kernel)(k, c);
    CHECK(std::fabs(scorer->Score(c) - expect) <= 1e-9 * std::max(1.0, std::fabs(expect)));
  }

  TagLists data = RandomLists(60, 6, 73, true);
  TagCandidateBank train(data.seqs, Weights(false), "none", true);
  TagCandidateBank train_raw(data.seqs, Weights(false), "none", false);
  RerankerModel fast = CheckCompressedTrainingAgrees(train, data.set, 0.25);
  PerceptronOptions opt;
  opt.epochs = 3;
  opt.chunks = 2;
  opt.threads = 2;
  RerankerModel raw = RerankerModel::Train(train_raw, data.set, 0.25, false, opt);
  CHECK(!SameDecisions(fast.run(), raw.run()));  // normalizing changes what is learned
  ByteWriter w;
  fast.Save(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  RerankerModel back = RerankerModel::Load(r);
  CHECK(static_cast<const TagCandidateBank&>(back.support()).normalized());
  TagLists q2 = RandomLists(20, 7, 74, false);
  TagCandidateBank q2bank(q2.seqs, Weights(false), "none");
  for (PredictMode mode : {PredictMode::kAveraged, PredictMode::kVoted}) {
    std::vector<double> a, b;
    CHECK(fast.Choose(q2bank, q2.set, mode, 2, nullptr, &a, true) ==
          back.Choose(q2bank, q2.set, mode, 1, nullptr, &b, false));
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK(std::fabs(a[k] - b[k]) <= 1e-9 * std::max(1.0, std::fabs(b[k])));
  }
}

TEST(tag_suffix_scoring_plus_features_equals_kernel_calls) {
  // The tagging kernel plus explicit features (linear_sum_bank.h): training and every
  // prediction mode with the shared suffixes agree with plain kernel sums.
  auto rows = [](int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    CsrMatrix m;
    for (int64_t r = 0; r < n; ++r) {
      for (int j = 1 + static_cast<int>(rng() % 4); j > 0; --j)
        m.cols.push_back(static_cast<int32_t>(rng() % 25));
      m.row_ptr.push_back(static_cast<int64_t>(m.cols.size()));
    }
    return m;
  };
  TagLists data = RandomLists(60, 6, 41, true);
  const int64_t n = data.set.candidates();
  LinearSumBank train(std::make_unique<TagCandidateBank>(data.seqs, Weights(true), "caps"),
                      std::make_unique<LinearBank>(rows(n, 42)), 0.7);
  RerankerModel model = CheckCompressedTrainingAgrees(train, data.set, 0.25);
  TagLists query = RandomLists(12, 5, 43, false);
  LinearSumBank qbank(std::make_unique<TagCandidateBank>(query.seqs, Weights(true), "caps"),
                      std::make_unique<LinearBank>(rows(query.set.candidates(), 44)), 0.7);
  for (PredictMode mode : {PredictMode::kLast, PredictMode::kAveraged, PredictMode::kVoted}) {
    std::vector<double> a, b;
    CHECK(model.Choose(qbank, query.set, mode, 2, nullptr, &a, true) ==
          model.Choose(qbank, query.set, mode, 1, nullptr, &b, false));
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK(std::fabs(a[k] - b[k]) <= 1e-9 * std::max(1.0, std::fabs(b[k])));
  }
}
