#include "tagger/features.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/errors.h"
#include "core/word_signature.h"

namespace structrank {

namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

inline uint64_t HashBytes(uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * kFnvPrime;
  return h;
}
inline uint64_t HashInt(uint64_t h, uint64_t v) {
  for (int k = 0; k < 8; ++k) h = (h ^ ((v >> (8 * k)) & 0xff)) * kFnvPrime;
  return h;
}
inline uint64_t Finish(uint64_t h) {  // murmur3 finalizer: spreads bits for the table
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h == 0 ? 1 : h;
}

}  // namespace

FeatureConfig FeatureConfig::FromInts(const int32_t* data, std::size_t size, int32_t num_columns) {
  FeatureConfig config;
  config.num_columns = num_columns;
  std::size_t pos = 0;
  auto next = [&]() {
    if (pos >= size) throw InputError("feature templates: encoding is truncated");
    return data[pos++];
  };
  int32_t count = next();
  if (count < 0) throw InputError("feature templates: negative count");
  for (int32_t t = 0; t < count; ++t) {
    FeatureTemplate tmpl;
    int32_t atoms = next();
    if (atoms <= 0 || atoms > 16) throw InputError("feature templates: bad atom count");
    for (int32_t a = 0; a < atoms; ++a) {
      TemplateAtom atom;
      int32_t kind = next();
      atom.column = next();
      atom.offset = next();
      atom.param = next();
      if (kind < 0 || kind >= static_cast<int32_t>(AtomKind::kCount)) {
        throw InputError("feature templates: unknown atom kind " + std::to_string(kind));
      }
      atom.kind = static_cast<AtomKind>(kind);
      if (atom.kind == AtomKind::kPrevTag) {
        if (atom.offset != -1)
          throw InputError("feature templates: only the previous tag (offset -1) can be conjoined");
        tmpl.edge = true;
        continue;  // the tag pair is the feature's label, not part of the attribute key
      }
      if (atom.kind != AtomKind::kBias && (atom.column < 0 || atom.column >= num_columns)) {
        throw InputError("feature templates: column " + std::to_string(atom.column) + " out of range");
      }
      if (atom.offset < -8 || atom.offset > 8) throw InputError("feature templates: offset out of range");
      tmpl.atoms.push_back(atom);
    }
    if (tmpl.atoms.empty()) tmpl.atoms.push_back(TemplateAtom{AtomKind::kBias, 0, 0, 0});
    config.templates.push_back(std::move(tmpl));
  }
  if (pos != size) throw InputError("feature templates: trailing data");
  return config;
}

void FeatureConfig::Serialize(ByteWriter& w) const {
  w.Put<int32_t>(num_columns);
  w.Put<uint64_t>(templates.size());
  for (const auto& t : templates) {
    w.Put<uint64_t>(t.atoms.size() + (t.edge ? 1 : 0));
    for (const auto& a : t.atoms) {
      w.Put<int32_t>(static_cast<int32_t>(a.kind));
      w.Put<int32_t>(a.column);
      w.Put<int32_t>(a.offset);
      w.Put<int32_t>(a.param);
    }
    if (t.edge) {
      w.Put<int32_t>(static_cast<int32_t>(AtomKind::kPrevTag));
      w.Put<int32_t>(0);
      w.Put<int32_t>(-1);
      w.Put<int32_t>(0);
    }
  }
  // Sorted by word: the same bytes on every platform (hash-map order differs between C++ libraries).
  const std::map<std::string, std::string> sorted(clusters.begin(), clusters.end());
  w.Put<uint64_t>(sorted.size());
  for (const auto& [word, cluster] : sorted) {
    w.PutString(word);
    w.PutString(cluster);
  }
}

FeatureConfig FeatureConfig::Deserialize(ByteReader& r) {
  std::vector<int32_t> ints;
  int32_t num_columns = r.Get<int32_t>();
  uint64_t count = r.Get<uint64_t>();
  if (count > (1u << 20)) throw InputError("model payload: bad template count");
  ints.push_back(static_cast<int32_t>(count));
  for (uint64_t t = 0; t < count; ++t) {
    uint64_t atoms = r.Get<uint64_t>();
    if (atoms > 16) throw InputError("model payload: bad atom count");
    ints.push_back(static_cast<int32_t>(atoms));
    for (uint64_t a = 0; a < 4 * atoms; ++a) ints.push_back(r.Get<int32_t>());
  }
  if (num_columns <= 0) throw InputError("model payload: bad column count");
  FeatureConfig config = FromInts(ints.data(), ints.size(), num_columns);
  uint64_t clusters = r.Get<uint64_t>();
  for (uint64_t k = 0; k < clusters; ++k) {
    std::string word = r.GetString();
    config.clusters[word] = r.GetString();
  }
  return config;
}

bool FeatureConfig::UsesTagSets() const {
  for (const auto& t : templates) {
    for (const auto& a : t.atoms) {
      if (a.kind == AtomKind::kTagSet) return true;
    }
  }
  return false;
}

FeatureConfig::TagSets FeatureConfig::BuildTagSets(const std::vector<SentenceFields>& sentences,
                                                   const std::vector<SentenceFields>& labels, int32_t folds,
                                                   int32_t skip_fold) const {
  std::set<int32_t> columns;
  for (const auto& t : templates) {
    for (const auto& a : t.atoms) {
      if (a.kind == AtomKind::kTagSet) columns.insert(a.column);
    }
  }
  std::unordered_map<std::string, std::pair<int32_t, std::set<std::string>>> seen;
  for (std::size_t s = 0; s < sentences.size() && s < labels.size(); ++s) {
    if (skip_fold >= 0 && static_cast<int32_t>(s % static_cast<std::size_t>(folds)) == skip_fold) continue;
    for (int32_t i = 0; i < sentences[s].length && i < labels[s].length; ++i) {
      for (int32_t c : columns) {
        std::string key = std::to_string(c) + '\t' +
                          LowerUtf8(sentences[s].fields[static_cast<std::size_t>(i) * num_columns + c]);
        auto& entry = seen[key];
        ++entry.first;
        entry.second.emplace(labels[s].fields[i]);
      }
    }
  }
  TagSets out;
  for (auto& [key, entry] : seen) {
    TagSet t;
    t.count = entry.first;
    for (const auto& tag : entry.second) {
      if (!t.tags.empty()) t.tags.push_back('|');
      t.tags += tag;
    }
    out.emplace(key, std::move(t));
  }
  return out;
}

void FeatureConfig::SerializeTagSets(ByteWriter& w) const {
  std::map<std::string, const TagSet*> sorted;  // deterministic bytes
  for (const auto& [key, t] : tagsets) sorted.emplace(key, &t);
  w.Put<uint64_t>(sorted.size());
  for (const auto& [key, t] : sorted) {
    w.PutString(key);
    w.Put<int32_t>(t->count);
    w.PutString(t->tags);
  }
}

void FeatureConfig::DeserializeTagSets(ByteReader& r) {
  uint64_t n = r.Get<uint64_t>();
  tagsets.clear();
  for (uint64_t k = 0; k < n; ++k) {
    std::string key = r.GetString();
    TagSet t;
    t.count = r.Get<int32_t>();
    if (t.count <= 0) throw InputError("model payload: bad tag dictionary count");
    t.tags = r.GetString();
    tagsets.emplace(std::move(key), std::move(t));
  }
}

bool FeatureExtractor::Key(const SentenceFields& s, int32_t i, int32_t t, uint64_t& key) {
  const FeatureTemplate& tmpl = config_.templates[t];
  uint64_t h = HashInt(kFnvOffset, static_cast<uint64_t>(t) + 1);
  for (const TemplateAtom& atom : tmpl.atoms) {
    h = (h ^ 0x1f) * kFnvPrime;  // atom separator
    if (atom.kind == AtomKind::kBias) continue;
    int32_t j = i + atom.offset;
    if (j < 0 || j >= s.length) {
      // Outside the sentence: a boundary marker for value atoms, nothing for flags.
      if (atom.kind >= AtomKind::kInitCap && atom.kind <= AtomKind::kAllDigit) return false;
      if (atom.kind == AtomKind::kCluster) return false;
      h = HashInt(h ^ 0xB0, static_cast<uint64_t>(static_cast<int64_t>(atom.offset + (j < 0 ? 0 : 100))));
      continue;
    }
    std::string_view v = s.fields[static_cast<std::size_t>(j) * config_.num_columns + atom.column];
    switch (atom.kind) {
      case AtomKind::kField:
        h = HashBytes(h, v);
        break;
      case AtomKind::kLower:
        h = HashBytes(h, LowerUtf8(v));
        break;
      case AtomKind::kPrefix:
      case AtomKind::kSuffix: {
        // Code points, not bytes; a word shorter than n gives no feature.
        const int32_t n = atom.param;
        if (n <= 0) return false;
        const std::string_view affix = atom.kind == AtomKind::kPrefix
                                           ? FirstCodepoints(v, static_cast<std::size_t>(n))
                                           : LastCodepoints(v, static_cast<std::size_t>(n));
        if (affix.empty()) return false;
        h = HashBytes(h, affix);
        break;
      }
      case AtomKind::kShape:
        h = HashBytes(h, WordShape(v, ShapeRuns::kEach));
        break;
      case AtomKind::kShortShape:
        h = HashBytes(h, WordShape(v, ShapeRuns::kAllRuns));
        break;
      case AtomKind::kInitCap:
        if (!StartsUpper(v)) return false;
        break;
      case AtomKind::kAllCap: {
        bool any = false;
        for (std::size_t at = 0; at < v.size();) {
          const CharClass c = ClassOf(NextCodepoint(v, at));
          if (c == CharClass::kLower) return false;
          if (c == CharClass::kUpper) any = true;
        }
        if (!any) return false;
        break;
      }
      case AtomKind::kHasDigit:
        if (!HasDigit(v)) return false;
        break;
      case AtomKind::kHasHyphen:
        if (!HasDash(v)) return false;
        break;
      case AtomKind::kAllDigit: {
        if (v.empty()) return false;
        for (std::size_t at = 0; at < v.size();) {
          const uint32_t cp = NextCodepoint(v, at);
          if (!(ClassOf(cp) == CharClass::kDigit || cp == '.' || cp == ',')) return false;
        }
        break;
      }
      case AtomKind::kCluster: {
        buffer_.assign(v.data(), v.size());
        auto it = config_.clusters.find(buffer_);
        if (it == config_.clusters.end()) return false;
        std::string_view c = it->second;
        if (atom.param > 0) {
          if (c.size() < static_cast<std::size_t>(atom.param)) return false;
          c = c.substr(0, atom.param);
        }
        h = HashBytes(h, c);
        break;
      }
      case AtomKind::kTagSet: {
        buffer_ = std::to_string(atom.column);
        buffer_.push_back('\t');
        buffer_ += LowerUtf8(v);
        auto it = tagsets_->find(buffer_);
        if (it == tagsets_->end() || it->second.count < std::max<int32_t>(atom.param, 1)) {
          h = HashBytes(h ^ 0xA5, "<rare>");
        } else {
          h = HashBytes(h, it->second.tags);
        }
        break;
      }
      default:
        break;
    }
  }
  key = Finish(h);
  return true;
}

std::vector<SentenceFields> SplitSentences(std::string_view text, int32_t num_columns) {
  std::vector<SentenceFields> out;
  SentenceFields current;
  std::size_t pos = 0, line = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    ++line;
    if (l.empty()) {
      if (current.length > 0) out.push_back(std::move(current));
      current = SentenceFields();
    } else {
      int32_t columns = 0;
      std::size_t start = 0;
      while (true) {
        std::size_t tab = l.find('\t', start);
        std::string_view f =
            l.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start);
        if (columns < num_columns) current.fields.push_back(f);
        ++columns;
        if (tab == std::string_view::npos) break;
        start = tab + 1;
      }
      if (columns != num_columns) {
        throw InputError("token line " + std::to_string(line) + ": expected " + std::to_string(num_columns) +
                         " columns, found " + std::to_string(columns));
      }
      ++current.length;
    }
    pos = end + 1;
  }
  if (current.length > 0) out.push_back(std::move(current));
  return out;
}

}  // namespace structrank
