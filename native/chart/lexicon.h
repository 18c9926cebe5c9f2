// The parser's lexicon: word and signature counts per tag, the tag dictionary for known
// words, word-shape signatures for rare and unknown words, and the generative estimate
// log P(word | tag) of the PCFG baseline.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/byte_io.h"
#include "core/interner.h"
#include "core/word_signature.h"

namespace structrank {

// Word shape in the style of Klein & Manning's unknown-word classes: capitalization (and
// whether the word starts the sentence), digits, dashes, and a common English suffix.
// Models of payload version < 3 use it; newer ones use UnknownSignature with suffixes
// learned from their training words (core/word_signature.h).
std::string WordSignature(std::string_view word, bool sentence_initial);

// What the parser knows about one token of a sentence.
struct Token {
  std::string text;
  std::string signature;
  int32_t word = -1;          // vocabulary id, -1 if unknown
  int32_t sig = -1;           // signature id, -1 if never seen
  int32_t shape = -1;         // id of the signature without its suffix, -1 if never seen
  int32_t cluster = -1;       // word cluster id, -1 if the word has none
  std::vector<int32_t> tags;  // tags the token may take
};

struct Lexicon {
  int32_t num_tags_symbols = 0;  // size of the symbol space (tags are a subset)
  int32_t rare_threshold = 1;    // words seen at most this often also get signature tags
  Interner words, signatures;
  std::vector<double> word_count;
  std::vector<std::vector<std::pair<int32_t, double>>> word_tags;  // tag dictionary with counts
  std::vector<std::vector<std::pair<int32_t, double>>> sig_tags;   // counts over rare words
  std::vector<double> sig_count;
  // P(tag | signature) backs off to P(tag | the signature without its suffix) with this
  // weight (in pseudo-counts); 0: to the rare-word tag prior with weight 1, as before.
  // The suffix-less signatures (shapes) and their tag counts over rare words.
  double shape_backoff = 0;
  Interner shapes;
  std::vector<std::vector<std::pair<int32_t, double>>> shape_tags;
  std::vector<double> shape_count;
  std::vector<double> tag_count, rare_tag_count;
  double total = 0, rare_total = 0;
  std::vector<int32_t> open_tags;  // tags seen with rare words
  // Unknown-word signatures: learned suffixes (set by Finish()), or the English classes of
  // WordSignature for models that predate them.
  bool learned_signatures = false;
  SuffixSet suffixes;
  std::string Signature(std::string_view word, bool sentence_initial) const {
    return learned_signatures ? UnknownSignature(word, sentence_initial, suffixes)
                              : WordSignature(word, sentence_initial);
  }
  // Optional word clusters (a `word<TAB>cluster` file, e.g. Brown bit strings): word ->
  // cluster id, and the tags seen with training tokens of each cluster, which rare and
  // unknown words of that cluster may also take (a cluster tag dictionary).
  Interner cluster_words, cluster_names;
  std::vector<int32_t> cluster_of;  // cluster_words id -> cluster id
  std::vector<std::vector<std::pair<int32_t, double>>> cluster_tags;
  std::vector<double> cluster_count;

  // Call before Add(); words may repeat only with the same cluster.
  void SetClusters(const std::vector<std::string>& words, const std::vector<std::string>& clusters);
  // The cluster of a word (exact form first, then lowercased), -1 if none.
  int32_t ClusterOf(std::string_view word) const;

  // Counts one training token; call Finish() once after all of them.
  void Add(std::string_view word, bool sentence_initial, int32_t tag);
  void Finish();
  // Second pass over the training data for signature counts (needs final word counts).
  void AddRare(std::string_view word, bool sentence_initial, int32_t tag);
  void FinishRare();

  Token Lookup(std::string_view word, bool sentence_initial) const;
  // Generative log P(word | tag), smoothed with the signature model for rare/unknown words.
  double LogProb(const Token& token, int32_t tag) const;
  // Every tag seen in training, for the second attempt at a sentence the tag dictionary
  // leaves uncovered; tags never seen with the word score as unknown-word tags, 1e-3 times.
  void Relax(Token& token) const;

  void Write(ByteWriter& out) const;
  static Lexicon Read(ByteReader& in, int32_t num_symbols);
  // The clusters, written after the rest of the model (payload version 2).
  void WriteClusters(ByteWriter& out) const;
  void ReadClusters(ByteReader& in);
  // The signature scheme, written after the clusters (payload version 3).
  void WriteSignatures(ByteWriter& out) const;
  void ReadSignatures(ByteReader& in);
  // The shape back-off weight (payload version 4).
  void WriteBackoff(ByteWriter& out) const;
  void ReadBackoff(ByteReader& in);

 private:
  double TagGivenSignature(int32_t sig, int32_t shape, int32_t tag) const;
  double TagGivenShape(int32_t shape, int32_t tag) const;
  std::string ShapeOf(std::string_view word, bool sentence_initial) const;
  double TagGivenCluster(int32_t cluster, int32_t tag) const;
};

}  // namespace structrank
