#include "chart/lexicon.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/errors.h"

namespace structrank {

namespace {
using TagCounts = std::vector<std::pair<int32_t, double>>;

double CountOf(const TagCounts& list, int32_t tag) {
  for (const auto& p : list)
    if (p.first == tag) return p.second;
  return 0.0;
}

// One more token of `tag` under id `id` (a word, signature, shape or cluster): its total in
// `count` and its tag list in `lists`, both grown when `id` is new.
void CountTag(int32_t id, int32_t tag, std::vector<double>& count, std::vector<TagCounts>& lists) {
  if (id >= static_cast<int32_t>(count.size())) count.resize(id + 1, 0.0), lists.resize(id + 1);
  count[id] += 1;
  auto& list = lists[id];
  auto at = std::find_if(list.begin(), list.end(), [&](const auto& p) { return p.first == tag; });
  if (at == list.end())
    list.emplace_back(tag, 1.0);
  else
    at->second += 1;
}

// (c(tag) + weight * back) / (c + weight): a count-based estimate smoothed towards `back`.
double Smoothed(const TagCounts& list, double count, int32_t tag, double back, double weight) {
  return (CountOf(list, tag) + weight * back) / (count + weight);
}
}  // namespace

std::string WordSignature(std::string_view w, bool sentence_initial) {
  std::string sig = "UNK";
  bool upper_first = !w.empty() && std::isupper(static_cast<unsigned char>(w[0]));
  bool has_lower = false, has_digit = false, has_dash = false, all_upper = true;
  for (char ch : w) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::islower(c)) has_lower = true, all_upper = false;
    if (std::isdigit(c)) has_digit = true;
    if (c == '-') has_dash = true;
    if (std::isalpha(c) && !std::isupper(c)) all_upper = false;
  }
  if (upper_first)
    sig += all_upper && w.size() > 1 ? "-CAPS" : (sentence_initial ? "-INITC" : "-CAP");
  else if (has_lower)
    sig += "-LC";
  if (has_digit) sig += "-NUM";
  if (has_dash) sig += "-DASH";
  std::string lower(w);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kSuffixes[] = {"ing", "ed",  "ion", "er",  "est", "ly", "ity", "al",
                                          "ble", "ive", "ic",  "ous", "es",  "s",  "y"};
  for (const char* suffix : kSuffixes) {
    std::string_view s(suffix);
    if (lower.size() >= s.size() + 2 && lower.compare(lower.size() - s.size(), s.size(), s) == 0) {
      if (s == "s" && lower.size() >= 2 && lower[lower.size() - 2] == 's') continue;
      sig += "-";
      sig += suffix;
      break;
    }
  }
  return sig;
}

void Lexicon::SetClusters(const std::vector<std::string>& cw, const std::vector<std::string>& names) {
  if (cw.size() != names.size()) throw InputError("chart lexicon: cluster words and ids differ in number");
  cluster_words = Interner(), cluster_names = Interner();
  cluster_of.clear();
  for (size_t a = 0; a < cw.size(); ++a) {
    if (cw[a].empty() || names[a].empty()) throw InputError("chart lexicon: empty word or cluster");
    const int32_t c = cluster_names.Intern(names[a]);
    const int32_t w = cluster_words.Intern(cw[a]);
    if (w < static_cast<int32_t>(cluster_of.size())) {
      if (cluster_of[w] != c) throw InputError("chart lexicon: word '" + cw[a] + "' has two clusters");
      continue;
    }
    cluster_of.push_back(c);
  }
  cluster_tags.assign(cluster_names.size(), {});
  cluster_count.assign(cluster_names.size(), 0.0);
}

int32_t Lexicon::ClusterOf(std::string_view word) const {
  if (cluster_of.empty()) return -1;
  int32_t w = cluster_words.Find(word);
  if (w < 0) {
    std::string lower(word);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    w = cluster_words.Find(lower);
  }
  return w < 0 ? -1 : cluster_of[w];
}

void Lexicon::Add(std::string_view word, bool /*sentence_initial*/, int32_t tag) {
  const int32_t cl = ClusterOf(word);
  if (cl >= 0) CountTag(cl, tag, cluster_count, cluster_tags);
  CountTag(words.Intern(word), tag, word_count, word_tags);
  if (tag >= static_cast<int32_t>(tag_count.size())) tag_count.resize(tag + 1, 0.0);
  tag_count[tag] += 1;
  total += 1;
}

void Lexicon::Finish() {
  tag_count.resize(num_tags_symbols, 0.0);
  rare_tag_count.assign(num_tags_symbols, 0.0);
  // Signature suffixes: those of the training words seen at most a few times, which is
  // what unknown words look like.
  std::vector<std::pair<std::string, double>> counts;
  counts.reserve(word_count.size());
  for (int32_t w = 0; w < words.size(); ++w) counts.emplace_back(words.Name(w), word_count[w]);
  SuffixSet::Options options;
  options.max_count = std::max(2, rare_threshold);
  options.min_types = 10;
  // Few classes: P(tag | signature) is learned from hapaxes, and spreading them over many
  // suffix classes lost F1 on every dev treebank (docs/design/parser-defaults.md, "The PCFG's unknown
  // words").
  options.max_suffixes = 30;
  suffixes.Learn(counts, options);
  learned_signatures = true;
}

void Lexicon::WriteSignatures(ByteWriter& out) const {
  out.Put<uint8_t>(learned_signatures ? 1 : 0);
  suffixes.Write(out);
}

void Lexicon::ReadSignatures(ByteReader& in) {
  learned_signatures = in.Get<uint8_t>() != 0;
  suffixes = SuffixSet::Read(in);
}

void Lexicon::AddRare(std::string_view word, bool sentence_initial, int32_t tag) {
  int32_t w = words.Find(word);
  if (w < 0 || word_count[w] > rare_threshold) return;
  CountTag(signatures.Intern(Signature(word, sentence_initial)), tag, sig_count, sig_tags);
  CountTag(shapes.Intern(ShapeOf(word, sentence_initial)), tag, shape_count, shape_tags);
  rare_tag_count[tag] += 1;
  rare_total += 1;
}

std::string Lexicon::ShapeOf(std::string_view word, bool sentence_initial) const {
  static const SuffixSet kNoSuffixes;
  return learned_signatures ? UnknownSignature(word, sentence_initial, kNoSuffixes)
                            : WordSignature(word, sentence_initial);
}

void Lexicon::FinishRare() {
  open_tags.clear();
  for (int32_t t = 0; t < num_tags_symbols; ++t)
    if (rare_tag_count[t] > 0) open_tags.push_back(t);
  if (open_tags.empty()) {  // tiny training sets: every tag is open
    for (int32_t t = 0; t < num_tags_symbols; ++t)
      if (tag_count[t] > 0) open_tags.push_back(t), rare_tag_count[t] = tag_count[t];
    rare_total = total;
  }
}

Token Lexicon::Lookup(std::string_view word, bool sentence_initial) const {
  Token tok;
  tok.text = std::string(word);
  tok.signature = Signature(word, sentence_initial);
  tok.word = words.Find(word);
  tok.sig = signatures.Find(tok.signature);
  if (shape_backoff > 0) tok.shape = shapes.Find(ShapeOf(word, sentence_initial));
  tok.cluster = ClusterOf(word);
  if (tok.word >= 0)
    for (const auto& p : word_tags[tok.word]) tok.tags.push_back(p.first);
  if (tok.word < 0 || word_count[tok.word] <= rare_threshold) {
    if (tok.sig >= 0)
      for (const auto& p : sig_tags[tok.sig]) tok.tags.push_back(p.first);
    else
      tok.tags.insert(tok.tags.end(), open_tags.begin(), open_tags.end());
    if (tok.cluster >= 0)
      for (const auto& p : cluster_tags[tok.cluster]) tok.tags.push_back(p.first);
  }
  std::sort(tok.tags.begin(), tok.tags.end());
  tok.tags.erase(std::unique(tok.tags.begin(), tok.tags.end()), tok.tags.end());
  return tok;
}

void Lexicon::Relax(Token& tok) const {
  tok.tags.clear();
  for (int32_t t = 0; t < num_tags_symbols; ++t)
    if (tag_count[t] > 0) tok.tags.push_back(t);
}

double Lexicon::TagGivenShape(int32_t shape, int32_t tag) const {
  double prior = rare_total > 0 ? rare_tag_count[tag] / rare_total : 0.0;
  if (shape < 0) return prior;
  return Smoothed(shape_tags[shape], shape_count[shape], tag, prior, 1.0);
}

double Lexicon::TagGivenSignature(int32_t sig, int32_t shape, int32_t tag) const {
  // Without the back-off, a signature seen on one or two rare words is smoothed towards the
  // tag prior only; with it, towards its suffix-less shape, which has far more words.
  const double weight = shape_backoff > 0 ? shape_backoff : 1.0;
  const double back = TagGivenShape(shape_backoff > 0 ? shape : -1, tag);
  if (sig < 0) return back;
  return Smoothed(sig_tags[sig], sig_count[sig], tag, back, weight);
}

double Lexicon::TagGivenCluster(int32_t cluster, int32_t tag) const {
  double prior = rare_total > 0 ? rare_tag_count[tag] / rare_total : 0.0;
  return Smoothed(cluster_tags[cluster], cluster_count[cluster], tag, prior, 1.0);
}

double Lexicon::LogProb(const Token& tok, int32_t tag) const {
  // P(w|t) = P(t|w) P(w) / P(t), with P(t|w) smoothed towards P(t|signature) for rare words
  // (the mean of P(t|signature) and P(t|cluster) when the word has a cluster).
  double p_tag = tag_count[tag] / total;
  double p_unk = TagGivenSignature(tok.sig, tok.shape, tag);
  if (tok.cluster >= 0 && cluster_count[tok.cluster] > 0)
    p_unk = 0.5 * p_unk + 0.5 * TagGivenCluster(tok.cluster, tag);
  double p_tag_word, c_word;
  if (tok.word >= 0) {
    c_word = word_count[tok.word];
    p_tag_word = Smoothed(word_tags[tok.word], c_word, tag, p_unk, c_word <= rare_threshold ? 1.0 : 0.0);
  } else {
    c_word = 0.5;
    p_tag_word = p_unk;
  }
  if (p_tag_word <= 0) p_tag_word = 1e-3 * std::max(p_unk, p_tag);  // only reachable through Relax()
  if (p_tag_word <= 0 || p_tag <= 0) return -INFINITY;
  return std::log(p_tag_word) + std::log(c_word / total) - std::log(p_tag);
}

namespace {
void WriteCounts(ByteWriter& out, const std::vector<TagCounts>& lists) {
  out.Put<uint64_t>(lists.size());
  for (const auto& l : lists) {
    std::vector<int32_t> tags;
    std::vector<double> counts;
    for (const auto& p : l) tags.push_back(p.first), counts.push_back(p.second);
    out.PutVector(tags);
    out.PutVector(counts);
  }
}
std::vector<TagCounts> ReadCounts(ByteReader& in, int32_t num_symbols) {
  uint64_t n = in.Get<uint64_t>();
  if (n > (1u << 30)) throw InputError("chart model: bad lexicon");
  std::vector<TagCounts> lists(n);
  for (auto& l : lists) {
    auto tags = in.GetVector<int32_t>();
    auto counts = in.GetVector<double>();
    if (tags.size() != counts.size()) throw InputError("chart model: bad lexicon");
    for (size_t a = 0; a < tags.size(); ++a) {
      if (tags[a] < 0 || tags[a] >= num_symbols) throw InputError("chart model: bad lexicon tag");
      l.emplace_back(tags[a], counts[a]);
    }
  }
  return lists;
}
}  // namespace

void Lexicon::Write(ByteWriter& out) const {
  out.Put<int32_t>(rare_threshold);
  out.Put<uint64_t>(words.size());
  for (const auto& w : words.names()) out.PutString(w);
  out.Put<uint64_t>(signatures.size());
  for (const auto& s : signatures.names()) out.PutString(s);
  out.PutVector(word_count);
  WriteCounts(out, word_tags);
  WriteCounts(out, sig_tags);
  out.PutVector(sig_count);
  out.PutVector(tag_count);
  out.PutVector(rare_tag_count);
  out.Put<double>(total);
  out.Put<double>(rare_total);
  out.PutVector(open_tags);
}

Lexicon Lexicon::Read(ByteReader& in, int32_t num_symbols) {
  Lexicon lex;
  lex.num_tags_symbols = num_symbols;
  lex.rare_threshold = in.Get<int32_t>();
  uint64_t nw = in.Get<uint64_t>();
  for (uint64_t i = 0; i < nw; ++i) lex.words.Intern(in.GetString());
  uint64_t ns = in.Get<uint64_t>();
  for (uint64_t i = 0; i < ns; ++i) lex.signatures.Intern(in.GetString());
  lex.word_count = in.GetVector<double>();
  lex.word_tags = ReadCounts(in, num_symbols);
  lex.sig_tags = ReadCounts(in, num_symbols);
  lex.sig_count = in.GetVector<double>();
  lex.tag_count = in.GetVector<double>();
  lex.rare_tag_count = in.GetVector<double>();
  lex.total = in.Get<double>();
  lex.rare_total = in.Get<double>();
  lex.open_tags = in.GetVector<int32_t>();
  if (lex.words.size() != static_cast<int32_t>(nw) || lex.signatures.size() != static_cast<int32_t>(ns) ||
      lex.word_count.size() != nw || lex.word_tags.size() != nw || lex.sig_tags.size() != ns ||
      lex.sig_count.size() != ns || lex.tag_count.size() != static_cast<size_t>(num_symbols) ||
      lex.rare_tag_count.size() != static_cast<size_t>(num_symbols) || !(lex.total > 0))
    throw InputError("chart model: inconsistent lexicon");
  for (int32_t t : lex.open_tags)
    if (t < 0 || t >= num_symbols) throw InputError("chart model: bad lexicon tag");
  return lex;
}

void Lexicon::WriteBackoff(ByteWriter& out) const {
  out.Put<double>(shape_backoff);
  out.Put<uint64_t>(shapes.size());
  for (const auto& s : shapes.names()) out.PutString(s);
  WriteCounts(out, shape_tags);
  out.PutVector(shape_count);
}

void Lexicon::ReadBackoff(ByteReader& in) {
  shape_backoff = in.Get<double>();
  const uint64_t n = in.Get<uint64_t>();
  if (!(shape_backoff >= 0) || n > (1u << 30)) throw InputError("chart model: bad shape back-off");
  for (uint64_t i = 0; i < n; ++i) shapes.Intern(in.GetString());
  shape_tags = ReadCounts(in, num_tags_symbols);
  shape_count = in.GetVector<double>();
  if (shapes.size() != static_cast<int32_t>(n) || shape_tags.size() != n || shape_count.size() != n)
    throw InputError("chart model: inconsistent shape back-off");
}

void Lexicon::WriteClusters(ByteWriter& out) const {
  out.Put<uint64_t>(cluster_words.size());
  for (const auto& w : cluster_words.names()) out.PutString(w);
  out.Put<uint64_t>(cluster_names.size());
  for (const auto& c : cluster_names.names()) out.PutString(c);
  out.PutVector(cluster_of);
  WriteCounts(out, cluster_tags);
  out.PutVector(cluster_count);
}

void Lexicon::ReadClusters(ByteReader& in) {
  const uint64_t nw = in.Get<uint64_t>();
  if (nw > (1u << 30)) throw InputError("chart model: bad cluster table");
  for (uint64_t i = 0; i < nw; ++i) cluster_words.Intern(in.GetString());
  const uint64_t nc = in.Get<uint64_t>();
  if (nc > (1u << 30)) throw InputError("chart model: bad cluster table");
  for (uint64_t i = 0; i < nc; ++i) cluster_names.Intern(in.GetString());
  cluster_of = in.GetVector<int32_t>();
  cluster_tags = ReadCounts(in, num_tags_symbols);
  cluster_count = in.GetVector<double>();
  if (cluster_words.size() != static_cast<int32_t>(nw) || cluster_names.size() != static_cast<int32_t>(nc) ||
      cluster_of.size() != nw || cluster_tags.size() != nc || cluster_count.size() != nc)
    throw InputError("chart model: inconsistent cluster table");
  for (int32_t c : cluster_of)
    if (c < 0 || c >= static_cast<int32_t>(nc)) throw InputError("chart model: bad cluster id");
}

}  // namespace structrank
