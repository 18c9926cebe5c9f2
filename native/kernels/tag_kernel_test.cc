// The tagging kernel against a brute-force enumeration of fragments, fast vs plain.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/test_harness.h"
#include "kernels/sequence_bank.h"
#include "kernels/tag_kernel.h"
#include "kernels/tag_suffixes.h"
#include "kernels/word_features.h"

namespace structrank {
namespace {

struct Seq {
  std::vector<std::string> words, tags;
};

SequenceBank MakeBank(const std::vector<Seq>& seqs, WordFeature f) {
  TaggedSequences in;
  std::map<std::string, int32_t> ids;
  auto id = [&](const std::string& s) {
    auto it = ids.find(s);
    if (it != ids.end()) return it->second;
    in.symbols.push_back(s);
    return ids[s] = static_cast<int32_t>(in.symbols.size() - 1);
  };
  for (const Seq& s : seqs) {
    for (std::size_t t = 0; t < s.words.size(); ++t) {
      in.label.push_back(id(s.tags[t]));
      in.word.push_back(id(s.words[t]));
    }
    in.length.push_back(static_cast<int32_t>(s.words.size()));
  }
  SequenceBank bank(f, WordFeatureName(f));
  bank.Add(in);
  return bank;
}

// Fragment features: a run of labels, each position bare ("_"), with its word ("w:"),
// or with its word class ("c:"), weighted lambda^(k-1) * product of position weights.
std::map<std::string, double> Fragments(const Seq& s, double lambda, double w1, double w2, WordFeature f) {
  std::map<std::string, double> out;  // feature -> sum of sqrt-weights (inner product form)
  const int n = static_cast<int>(s.words.size());
  for (int start = 0; start < n; ++start) {
    std::vector<std::pair<std::string, double>> partial{{"", 1.0}};
    for (int t = start; t < n; ++t) {
      std::vector<std::pair<std::string, double>> next;
      std::string cls = WordClass(f, s.words[t]);
      for (const auto& [text, weight] : partial) {
        std::string base = text + "|" + s.tags[t];
        next.push_back({base + "_", weight});
        if (w1 > 0) next.push_back({base + "w:" + s.words[t], weight * std::sqrt(w1)});
        if (w2 > 0 && !cls.empty()) next.push_back({base + "c:" + cls, weight * std::sqrt(w2)});
      }
      partial.swap(next);
      const int k = t - start + 1;
      for (const auto& [text, weight] : partial) out[text] += weight * std::sqrt(std::pow(lambda, k - 1));
    }
  }
  return out;
}

double BruteForce(const Seq& a, const Seq& b, double lambda, double w1, double w2, WordFeature f) {
  auto fa = Fragments(a, lambda, w1, w2, f), fb = Fragments(b, lambda, w1, w2, f);
  double k = 0;
  for (const auto& [text, v] : fa) {
    auto it = fb.find(text);
    if (it != fb.end()) k += v * it->second;
  }
  return k;
}

Seq RandomSeq(std::mt19937& rng) {
  static const char* words[] = {"Ab", "ab", "a1", "Bb", "bb"};
  static const char* tags[] = {"N", "V", "D"};
  std::uniform_int_distribution<int> len(1, 6), w(0, 4), t(0, 2);
  Seq s;
  int n = len(rng);
  for (int i = 0; i < n; ++i) {
    s.words.push_back(words[w(rng)]);
    s.tags.push_back(tags[t(rng)]);
  }
  return s;
}

TEST(tag_kernel_hand_check) {
  // (D the)(N dog) vs (D the)(N cat): singles D/the: 2, N: 1, pair: lambda*2*1.
  SequenceBank bank =
      MakeBank({{{"the", "dog"}, {"D", "N"}}, {{"the", "cat"}, {"D", "N"}}}, WordFeature::kNone);
  TagKernelWeights w{0.5, 1.0, 0.0};
  CHECK_NEAR(TagKernel(bank.Sequence(0), bank.Sequence(1), w), 2 + 1 + 0.5 * 2, 1e-12);
}

TEST(tag_kernel_equals_brute_force) {
  std::mt19937 rng(5);
  std::vector<Seq> seqs;
  for (int i = 0; i < 20; ++i) seqs.push_back(RandomSeq(rng));
  for (WordFeature f : {WordFeature::kNone, WordFeature::kCaps, WordFeature::kDigits, WordFeature::kShape}) {
    SequenceBank bank = MakeBank(seqs, f);
    for (double lambda : {1.0, 0.5, 0.2}) {
      TagKernelWeights w =
          f == WordFeature::kNone ? TagKernelWeights{lambda, 1.0, 0.0} : TagKernelWeights{lambda, 0.5, 0.5};
      for (std::size_t i = 0; i < seqs.size(); ++i)
        for (std::size_t j = 0; j < seqs.size(); j += 2) {
          double expect = BruteForce(seqs[i], seqs[j], lambda, w.sim1, w.sim2, f);
          CHECK_NEAR(TagKernel(bank.Sequence(i), bank.Sequence(j), w), expect, 1e-10);
          CHECK_NEAR(TagKernelPlain(bank.Sequence(i), bank.Sequence(j), w), expect, 1e-10);
        }
    }
  }
}

// An n-best-like group: one word sequence, labels of a first candidate changed in a few
// places, so candidates share suffixes (and some repeat whole).
std::vector<Seq> RandomGroup(std::mt19937& rng, int candidates) {
  static const char* tags[] = {"N", "V", "D"};
  std::uniform_int_distribution<int> t(0, 2);
  Seq first = RandomSeq(rng);
  std::vector<Seq> out{first};
  std::uniform_int_distribution<int> pos(0, static_cast<int>(first.words.size()) - 1), changes(0, 2);
  for (int c = 1; c < candidates; ++c) {
    Seq x = first;
    for (int k = changes(rng); k > 0; --k) x.tags[pos(rng)] = tags[t(rng)];
    out.push_back(x);
  }
  return out;
}

TEST(tag_kernel_suffix_sums_equal_kernel_per_candidate) {
  std::mt19937 rng(11);
  for (WordFeature f : {WordFeature::kNone, WordFeature::kCaps}) {
    std::vector<Seq> seqs;
    std::vector<std::pair<int, int>> groups;  // [begin, end) in seqs
    for (int g = 0; g < 12; ++g) {
      std::vector<Seq> group = RandomGroup(rng, 1 + g % 5);
      groups.push_back({static_cast<int>(seqs.size()), static_cast<int>(seqs.size() + group.size())});
      seqs.insert(seqs.end(), group.begin(), group.end());
    }
    SequenceBank bank = MakeBank(seqs, f);
    TagKernelWeights w =
        f == WordFeature::kNone ? TagKernelWeights{0.5, 1.0, 0.0} : TagKernelWeights{0.7, 0.5, 0.5};
    TagSuffixes q;
    int shared = 0, positions = 0;
    for (auto [begin, end] : groups) {
      q.Build(bank, begin, end);
      CHECK(q.sequences() == end - begin);
      for (int i = 0; i < q.sequences(); ++i) positions += q.length(i);
      shared += q.size();
      for (std::size_t a = 0; a < seqs.size(); ++a) {
        std::vector<double> sums(q.size(), 0.0);
        TagKernelSuffixSums(bank.Sequence(a), q, w, 2.0, TagSuffixScratch::ForThisThread(), sums.data());
        for (int i = 0; i < q.sequences(); ++i) {
          const double expect = TagKernel(bank.Sequence(a), bank.Sequence(begin + i), w);
          CHECK_NEAR(SumOverNodes(q, i, sums.data()), 2.0 * expect, 1e-9 * (1 + expect));
        }
      }
    }
    CHECK(shared < positions);  // the groups do share suffixes
  }
}

TEST(word_features) {
  CHECK(WordClass(WordFeature::kCaps, "Dog") == "Cap");
  CHECK(WordClass(WordFeature::kCaps, "dog") == "");
  CHECK(WordClass(WordFeature::kDigits, "1990s") == "Digit");
  CHECK(WordClass(WordFeature::kSuffix3, "Running") == "ing");
  CHECK(WordClass(WordFeature::kSuffix3, "ing") == "");
  CHECK(WordClass(WordFeature::kShape, "McDonald-2") == "XxXx-d");
  CHECK(WordClass(WordFeature::kShape, "...") == ".");
  // Any script: Greek and Cyrillic capitals, Arabic-Indic digits, suffixes by character.
  CHECK(WordClass(WordFeature::kCaps, "Ávila") == "Cap");
  CHECK(WordClass(WordFeature::kCaps, "Москва") == "Cap");
  CHECK(WordClass(WordFeature::kCaps, "東京") == "");
  CHECK(WordClass(WordFeature::kDigits, "٣٤") == "Digit");
  CHECK(WordClass(WordFeature::kSuffix2, "AÇÃO") == "ão");
  CHECK(WordClass(WordFeature::kSuffix3, "AÇÃO") == "ção");  // four characters: old code took bytes
  CHECK(WordClass(WordFeature::kSuffix3, "ção") == "");
  CHECK(WordClass(WordFeature::kShape, "São-Paulo") == "Xx-Xx");
  CHECK_THROWS(WordFeatureByName("bogus"));
}

TEST(sequence_bank_rejects_empty) {
  SequenceBank bank(WordFeature::kNone, "none");
  TaggedSequences in;
  in.length = {0};
  CHECK_THROWS(bank.Add(in));
}

}  // namespace
}  // namespace structrank
