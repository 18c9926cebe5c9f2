#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chart/chart_model.h"
#include "chart/latent_pcfg.h"
#include "chart/tiny_treebank_test.h"
#include "core/errors.h"
#include "core/test_harness.h"

using namespace structrank;

namespace {

struct Built {
  Tiny t;
  std::vector<GoldItems> gold;
  std::unique_ptr<ChartModel> base;
};

Built TinyPcfg() {
  Built b{MakeTiny(), {}, nullptr};
  b.base = ChartModel::BuildPcfg(b.t.symbols, b.t.corpus, b.t.pairs, b.t.offsets, 1, &b.gold);
  return b;
}

const std::vector<std::vector<std::string>> kSentences = {{"the", "dog", "saw", "a", "cat"},
                                                          {"dogs", "saw", "cats"},
                                                          {"run"},
                                                          {"dog", "saw", "saw"},
                                                          {"the", "cat", "run"},
                                                          {"a", "dog", "run"}};

std::vector<Token> TokensOf(const ChartModel& m, const std::vector<std::string>& words) {
  Corpus c;
  c.tokens = words;
  c.offsets = {0, static_cast<int32_t>(words.size())};
  return m.Tokens(c, 0);
}

// log P(words) summed over every tree of the model's grammar.
double InsideOf(const ChartModel& m, const std::vector<std::string>& words) {
  const std::vector<Token> tokens = TokensOf(m, words);
  const LexScores lex = m.PcfgLex(tokens);
  const PcfgScorer scorer{m.binary_logp.data(), m.unary_logp.data(), m.root_logp.data()};
  Chart ch;
  ch.Begin(static_cast<int>(tokens.size()), m.grammar.num_symbols);
  const double inside = Inside<LogSemiring>(m.grammar, lex, scorer, ch);
  ch.Clear();
  return inside;
}

LatentOptions Options(int cycles, int iterations, double merge, double noise) {
  LatentOptions o;
  o.cycles = cycles, o.iterations = iterations, o.merge = merge, o.noise = noise, o.word_min = 1;
  return o;
}

}  // namespace

TEST(latent_pcfg_split_without_training_is_the_base_pcfg) {
  // Each split copies its symbol's probabilities: without noise or EM the subsymbols sum to
  // exactly the base PCFG (to the stored quantization) over every sentence, and parse alike.
  Built b = TinyPcfg();
  for (int cycles : {0, 1, 2}) {
    auto latent = TrainLatentPcfg(*b.base, b.t.corpus, b.gold, Options(cycles, 0, 0, 0));
    CHECK(latent->latent != nullptr);
    CHECK(latent->grammar.num_symbols == b.base->grammar.num_symbols << cycles);
    for (const auto& words : kSentences) CHECK_NEAR(InsideOf(*latent, words), InsideOf(*b.base, words), 5e-3);
  }
}

TEST(latent_pcfg_rules_of_each_subsymbol_sum_to_one_and_em_raises_the_likelihood) {
  Built b = TinyPcfg();
  LatentPcfgTrainer trainer(*b.base, b.t.corpus, b.gold, Options(2, 8, 0.5, 0.2));
  CHECK(trainer.total_steps() == 2 * (1 + 8 + 1 + 4));
  const double first = trainer.Steps(2);  // the split and the first EM iteration
  double last = first;
  while (!trainer.Done()) last = trainer.Steps(1);
  CHECK(trainer.steps_done() == trainer.total_steps());
  CHECK(last > first + 1e-6);  // the subsymbols explain the trees better than one symbol each
  auto latent = trainer.Build();
  const Grammar& g = latent->grammar;
  // Each parent subsymbol's binary and unary rules form a distribution (rules below
  // kLatentMinRuleProb and the quantization aside), and so do the root rules.
  std::map<int32_t, double> mass;
  for (size_t r = 0; r < g.binary.size(); ++r) mass[g.binary[r].parent] += std::exp(latent->binary_logp[r]);
  for (size_t r = 0; r < g.unary.size(); ++r) mass[g.unary[r].parent] += std::exp(latent->unary_logp[r]);
  CHECK(!mass.empty());
  for (const auto& [parent, total] : mass) CHECK_NEAR(total, 1.0, 1e-3);
  double root = 0;
  for (double lp : latent->root_logp) root += std::exp(lp);
  CHECK_NEAR(root, 1.0, 1e-3);
  // Every subsymbol maps to its base symbol's category, and tags to tags.
  for (int32_t x = 0; x < g.num_symbols; ++x) {
    const int32_t s = latent->latent->symbol_of[x];
    CHECK(g.base[x] == b.base->grammar.base[s] && g.is_tag[x] == b.base->grammar.is_tag[s]);
  }
  // A word's subsymbols are its tags' and no others.
  const std::vector<Token> tokens = TokensOf(*latent, {"saw"});
  for (int32_t x : tokens[0].tags) CHECK(b.base->grammar.is_tag[latent->latent->symbol_of[x]]);
  CHECK(tokens[0].tags.size() > TokensOf(*b.base, {"saw"})[0].tags.size());
}

TEST(latent_pcfg_training_is_the_same_in_steps_and_threads) {
  Built b = TinyPcfg();
  LatentOptions one = Options(2, 5, 0.5, 0.2), two = one;
  two.threads = 2;
  auto whole = TrainLatentPcfg(*b.base, b.t.corpus, b.gold, one);
  LatentPcfgTrainer trainer(*b.base, b.t.corpus, b.gold, two);
  while (!trainer.Done()) trainer.Steps(3);
  auto stepped = trainer.Build();
  CHECK(whole->grammar.binary.size() == stepped->grammar.binary.size());
  for (size_t r = 0; r < whole->binary_logp.size(); ++r)
    CHECK_NEAR(whole->binary_logp[r], stepped->binary_logp[r], 1e-3);
  // Another seed, another grammar.
  LatentOptions other = one;
  other.seed = 2;
  auto reseeded = TrainLatentPcfg(*b.base, b.t.corpus, b.gold, other);
  bool differs = reseeded->binary_logp.size() != whole->binary_logp.size();
  for (size_t r = 0; !differs && r < whole->binary_logp.size(); ++r)
    differs = whole->binary_logp[r] != reseeded->binary_logp[r];
  CHECK(differs);
}

TEST(latent_pcfg_round_trips_and_refuses_damaged_payloads) {
  Built b = TinyPcfg();
  auto latent = TrainLatentPcfg(*b.base, b.t.corpus, b.gold, Options(2, 5, 0.5, 0.2));
  const std::vector<uint8_t> bytes = latent->Serialize();
  auto back = ChartModel::Deserialize(bytes.data(), bytes.size());
  CHECK(back->latent != nullptr);
  CHECK(back->grammar.num_symbols == latent->grammar.num_symbols);
  CHECK(back->binary_logp == latent->binary_logp && back->unary_logp == latent->unary_logp &&
        back->root_logp == latent->root_logp);
  for (const auto& words : kSentences) {
    const auto a = latent->PcfgLex(TokensOf(*latent, words)), z = back->PcfgLex(TokensOf(*back, words));
    CHECK(a == z);
    CHECK(InsideOf(*latent, words) == InsideOf(*back, words));
  }
  CHECK(back->Serialize() == bytes);
  // Truncated anywhere, or a rule position moved past its layout: an InputError, not a crash.
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{6}})
    CHECK_THROWS(ChartModel::Deserialize(bytes.data(), cut));
  // A latent PCFG is not a base for another, and a CRF is not one either.
  CHECK_THROWS(LatentPcfgTrainer(*latent, b.t.corpus, b.gold, Options(1, 1, 0, 0)));
  CHECK_THROWS(LatentPcfgTrainer(*b.base, b.t.corpus, b.gold, Options(1, 1, 1.5, 0)));
}

TEST(latent_pcfg_training_stops_when_cancelled) {
  Built b = TinyPcfg();
  LatentPcfgTrainer trainer(*b.base, b.t.corpus, b.gold, Options(1, 4, 0, 0.2));
  trainer.Steps(1);  // the split reads no tree
  std::atomic<bool> cancel{true};
  CHECK_THROWS(trainer.Steps(1, &cancel));
  CHECK(trainer.steps_done() == 1);
  cancel = false;
  trainer.Steps(10, &cancel);
  CHECK(trainer.Done());
}

TEST(latent_pcfg_stops_splitting_at_its_subsymbol_budget) {
  // The tiny grammar has 8 symbols: one cycle takes 16 subsymbols, two up to 32. A budget of
  // 20 allows the first cycle and refuses the second, which ends the training there.
  Built b = TinyPcfg();
  LatentOptions o = Options(3, 2, 0, 0.2);
  o.max_subsymbols = 20;
  LatentPcfgTrainer trainer(*b.base, b.t.corpus, b.gold, o);
  CHECK(trainer.total_steps() == 3 * (1 + 2));
  while (!trainer.Done()) trainer.Steps(1);
  CHECK(trainer.steps_done() == 1 + 2);
  CHECK(trainer.total_steps() == 1 + 2);
  CHECK(trainer.Build()->grammar.num_symbols == 16);
}
