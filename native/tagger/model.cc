#include "tagger/model.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "core/bits.h"
#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

TaggerCorpus TaggerModel::BuildCorpus(std::string_view text, std::string_view labels_text, bool grow) {
  std::vector<SentenceFields> sentences = SplitSentences(text, config.num_columns);
  std::vector<SentenceFields> gold;
  bool has_labels = !labels_text.empty();
  if (has_labels) {
    gold = SplitSentences(labels_text, 1);
    if (gold.size() != sentences.size()) throw InputError("labels and sentences differ in number");
  }
  // The tag dictionary comes from the training labels, before any feature is extracted.
  // Training sentences are jackknifed: each sees the dictionary of the other folds, so
  // its own labels never leak into its ambiguity classes (as unknown test words).
  constexpr int32_t kTagSetFolds = 10;
  std::vector<FeatureConfig::TagSets> fold_tagsets;
  bool jackknife = grow && has_labels && config.UsesTagSets();
  if (jackknife) {
    config.tagsets = config.BuildTagSets(sentences, gold);
    for (int32_t f = 0; f < kTagSetFolds; ++f)
      fold_tagsets.push_back(config.BuildTagSets(sentences, gold, kTagSetFolds, f));
  }
  TaggerCorpus corpus;
  FeatureExtractor extractor(config);
  std::vector<std::vector<int32_t>> rows, edge_rows;
  std::vector<std::pair<int32_t, uint64_t>> keys;
  std::vector<bool> is_edge;
  for (std::size_t s = 0; s < sentences.size(); ++s) {
    const SentenceFields& sent = sentences[s];
    if (has_labels && gold[s].length != sent.length) {
      throw InputError("sentence " + std::to_string(s + 1) + ": labels and tokens differ in number");
    }
    rows.resize(sent.length);
    edge_rows.resize(sent.length);
    for (auto& r : rows) r.clear();
    for (auto& r : edge_rows) r.clear();
    keys.clear();
    is_edge.clear();
    if (jackknife) extractor.UseTagSets(&fold_tagsets[s % kTagSetFolds]);
    extractor.Extract(sent, [&](int32_t i, uint64_t key, bool edge) {
      keys.emplace_back(i, key);
      is_edge.push_back(edge);
    });
    // Lookups and inserts miss the cache; issuing all of a sentence's prefetches first
    // overlaps them (a hint only: a table that grows meanwhile just misses again).
    for (auto& kv : keys) attributes.Prefetch(kv.second);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      auto [i, key] = keys[k];
      int32_t id = grow ? attributes.Insert(key) : attributes.Find(key);
      if (id >= 0) (is_edge[k] ? edge_rows : rows)[i].push_back(id);
    }
    for (int32_t i = 0; i < sent.length; ++i) {
      corpus.attributes.AddRow(rows[i].data(), nullptr, static_cast<int64_t>(rows[i].size()));
      corpus.edge_attributes.AddRow(edge_rows[i].data(), nullptr, static_cast<int64_t>(edge_rows[i].size()));
      int32_t y = -1;
      if (has_labels) y = grow ? labels.Intern(gold[s].fields[i]) : labels.Find(gold[s].fields[i]);
      corpus.labels.push_back(y);
    }
    corpus.sentence_start.push_back(corpus.sentence_start.back() + sent.length);
  }
  return corpus;
}

namespace {

// Looks up one sentence's attributes and appends one row per token to `rows` and
// `edge_rows` (the extractor gives the keys in token order).
struct SentenceLookup {
  struct TokenKey {
    int32_t token;
    bool edge;
    uint64_t key;
  };
  FeatureExtractor extractor;
  std::vector<TokenKey> keys;

  explicit SentenceLookup(const FeatureConfig& config) : extractor(config) {}
  void Run(const SentenceFields& sent, const AttributeTable& attributes, CsrMatrix& rows,
           CsrMatrix& edge_rows) {
    keys.clear();
    extractor.Extract(sent, [&](int32_t i, uint64_t key, bool edge) { keys.push_back({i, edge, key}); });
    // Lookups miss the cache: each slot is fetched kAhead lookups before it is read (enough
    // to overlap the misses, few enough that the lines are still in L1 when read).
    constexpr std::size_t kAhead = 16;
    const std::size_t n = keys.size();
    for (std::size_t k = 0; k < n && k < kAhead; ++k) attributes.Prefetch(keys[k].key);
    std::size_t k = 0;
    for (int32_t i = 0; i < sent.length; ++i) {
      for (; k < n && keys[k].token == i; ++k) {
        if (k + kAhead < n) attributes.Prefetch(keys[k + kAhead].key);
        const int32_t id = attributes.Find(keys[k].key);
        if (id >= 0) (keys[k].edge ? edge_rows : rows).cols.push_back(id);
      }
      rows.row_ptr.push_back(rows.nnz());
      edge_rows.row_ptr.push_back(edge_rows.nnz());
    }
  }
};

}  // namespace

TaggerCorpus TaggerModel::LookupCorpus(std::string_view text, int threads,
                                       const std::atomic<bool>* cancel) const {
  return LookupSentences(SplitSentences(text, config.num_columns), threads, cancel);
}

TaggerCorpus TaggerModel::LookupSentences(const std::vector<SentenceFields>& sentences, int threads,
                                          const std::atomic<bool>* cancel) const {
  TaggerCorpus corpus;
  LookupSentences(sentences, threads, cancel, corpus);
  return corpus;
}

void TaggerModel::LookupSentences(const std::vector<SentenceFields>& sentences, int threads,
                                  const std::atomic<bool>* cancel, TaggerCorpus& corpus) const {
  const std::size_t S = sentences.size();
  corpus.sentence_start.assign(1, 0);
  for (CsrMatrix* rows : {&corpus.attributes, &corpus.edge_attributes}) {
    rows->row_ptr.assign(1, 0);
    rows->cols.clear();
    rows->values.clear();
  }
  corpus.labels.clear();
  if (threads == 1 || S < 256) {
    SentenceLookup look(config);
    for (std::size_t s = 0; s < S; ++s) {
      if (cancel && (s & 1023) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
      look.Run(sentences[s], attributes, corpus.attributes, corpus.edge_attributes);
      corpus.labels.insert(corpus.labels.end(), static_cast<std::size_t>(sentences[s].length), -1);
      corpus.sentence_start.push_back(corpus.sentence_start.back() + sentences[s].length);
    }
    return;
  }
  // Parallel: each chunk of sentences fills its own small CSR pieces, appended in order.
  constexpr std::size_t kGrain = 64;
  struct Piece {
    TaggerCorpus part;
  };
  std::vector<Piece> pieces((S + kGrain - 1) / kGrain);
  ParallelFor(
      S, threads, kGrain,
      [&](std::size_t first, std::size_t last, int) {
        SentenceLookup look(config);
        TaggerCorpus& part = pieces[first / kGrain].part;
        for (std::size_t s = first; s < last; ++s)
          look.Run(sentences[s], attributes, part.attributes, part.edge_attributes);
      },
      cancel);
  auto concat = [](CsrMatrix& dst, const CsrMatrix& src) {
    int64_t base = dst.nnz();
    dst.cols.insert(dst.cols.end(), src.cols.begin(), src.cols.end());
    for (int64_t r = 1; r < static_cast<int64_t>(src.row_ptr.size()); ++r)
      dst.row_ptr.push_back(base + src.row_ptr[r]);
  };
  for (auto& piece : pieces) {
    concat(corpus.attributes, piece.part.attributes);
    concat(corpus.edge_attributes, piece.part.edge_attributes);
    piece.part = TaggerCorpus();
  }
  for (std::size_t s = 0; s < S; ++s) {
    corpus.sentence_start.push_back(corpus.sentence_start.back() + sentences[s].length);
  }
  corpus.labels.assign(corpus.sentence_start.back(), -1);
}

void TaggerModel::BuildFeatures(const TaggerCorpus& corpus) {
  const int32_t A = attributes.size();
  const int32_t L = num_labels();
  std::vector<int64_t> offset{0};
  std::vector<int32_t> label;
  std::vector<std::vector<int32_t>> pairs;
  if (L <= 64) {
    // One bit per label of each attribute: 8 bytes per attribute instead of a vector each
    // (the vectors, freed again, left tens of MB of heap behind during training).
    std::vector<uint64_t> seen(A, 0);
    for (int64_t t = 0; t < corpus.tokens(); ++t) {
      int32_t y = corpus.labels[t];
      if (y < 0) continue;
      for (int64_t k = corpus.attributes.RowBegin(t); k < corpus.attributes.RowEnd(t); ++k) {
        seen[corpus.attributes.cols[k]] |= uint64_t{1} << y;
      }
    }
    for (int32_t a = 0; a < A; ++a) {
      for (uint64_t bits = seen[a]; bits != 0; bits &= bits - 1) label.push_back(CountTrailingZeros(bits));
      offset.push_back(static_cast<int64_t>(label.size()));
    }
  } else {
    // Collect (attribute, label) pairs, then keep each attribute's distinct labels.
    pairs.resize(A);
    for (int64_t t = 0; t < corpus.tokens(); ++t) {
      int32_t y = corpus.labels[t];
      if (y < 0) continue;
      for (int64_t k = corpus.attributes.RowBegin(t); k < corpus.attributes.RowEnd(t); ++k) {
        auto& v = pairs[corpus.attributes.cols[k]];
        if (std::find(v.begin(), v.end(), y) == v.end()) v.push_back(y);
      }
    }
    for (int32_t a = 0; a < A; ++a) {
      std::sort(pairs[a].begin(), pairs[a].end());
      label.insert(label.end(), pairs[a].begin(), pairs[a].end());
      offset.push_back(static_cast<int64_t>(label.size()));
    }
  }
  attr_offset = std::move(offset);
  feature_label = std::move(label);
  // Edge attributes pair with the gold (previous label, label) at their token.
  if (corpus.edge_attributes.nnz() > 0) pairs.resize(A);
  for (auto& v : pairs) v.clear();
  for (int64_t s = 0; s < corpus.sentences(); ++s) {
    for (int64_t t = corpus.sentence_start[s]; t < corpus.sentence_start[s + 1]; ++t) {
      int32_t y = corpus.labels[t];
      int32_t p = t == corpus.sentence_start[s] ? L : corpus.labels[t - 1];
      if (y < 0 || p < 0) continue;
      int32_t pair = p * L + y;
      for (int64_t k = corpus.edge_attributes.RowBegin(t); k < corpus.edge_attributes.RowEnd(t); ++k) {
        auto& v = pairs[corpus.edge_attributes.cols[k]];
        if (std::find(v.begin(), v.end(), pair) == v.end()) v.push_back(pair);
      }
    }
  }
  std::vector<int64_t> edge_off{0};
  std::vector<int32_t> edge_pairs;
  for (int32_t a = 0; a < A; ++a) {
    if (!pairs.empty()) {
      std::sort(pairs[a].begin(), pairs[a].end());
      edge_pairs.insert(edge_pairs.end(), pairs[a].begin(), pairs[a].end());
    }
    edge_off.push_back(static_cast<int64_t>(edge_pairs.size()));
  }
  if (edge_pairs.empty()) edge_off.clear();  // no edge features: no offsets (see model.h)
  edge_offset = std::move(edge_off);
  edge_pair = std::move(edge_pairs);
  weights = std::vector<double>(num_weights(), 0.0);
}

void TaggerModel::Emissions(const TaggerCorpus& corpus, int64_t sentence, const double* w,
                            double* score) const {
  const int32_t L = num_labels();
  const int64_t begin = corpus.sentence_start[sentence], end = corpus.sentence_start[sentence + 1];
  std::memset(score, 0, sizeof(double) * (end - begin) * L);
  const int64_t* row_ptr = corpus.attributes.row_ptr.data();
  const int32_t* cols = corpus.attributes.cols.data();
  const int64_t* off = attr_offset.data();
  const int32_t* lab = feature_label.data();
  // Prefetch the sentence's feature ranges: they are scattered over a large table.
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) SR_PREFETCH(off + cols[k]);
  for (int64_t k = row_ptr[begin]; k < row_ptr[end]; ++k) {
    int64_t f = off[cols[k]];
    SR_PREFETCH(w + f);
    SR_PREFETCH(lab + f);
  }
  for (int64_t t = begin; t < end; ++t) {
    double* s = score + (t - begin) * L;
    for (int64_t k = row_ptr[t]; k < row_ptr[t + 1]; ++k) {
      int32_t a = cols[k];
      for (int64_t f = off[a]; f < off[a + 1]; ++f) s[lab[f]] += w[f];
    }
  }
}

void TaggerModel::EdgeScores(const TaggerCorpus& corpus, int64_t sentence, const double* w, double* delta,
                             double scale) const {
  const int32_t P = num_pairs();
  const int64_t begin = corpus.sentence_start[sentence], end = corpus.sentence_start[sentence + 1];
  std::fill(delta, delta + (end - begin) * P, 0.0);
  const double* we = w + num_node_features();
  for (int64_t t = begin; t < end; ++t) {
    double* d = delta + (t - begin) * P;
    for (int64_t k = corpus.edge_attributes.RowBegin(t); k < corpus.edge_attributes.RowEnd(t); ++k) {
      int32_t a = corpus.edge_attributes.cols[k];
      for (int64_t g = edge_offset[a]; g < edge_offset[a + 1]; ++g) d[edge_pair[g]] += scale * we[g];
    }
  }
}

namespace {

// Payload versions 2 and 3 start with these words ("TGR2", "TGR3"); version 1 starts with
// the algorithm (0-2). Version 3 stores the attribute slots as 12-byte records (key, id),
// version 2 as 16-byte ones (key, id, 4 zero bytes).
constexpr uint32_t kPayloadV2 = 0x32524754;
constexpr uint32_t kPayloadV3 = 0x33524754;
// A version-2 slot record: the 12 bytes of a Slot, then 4 zero bytes.
constexpr std::size_t kSlotBytesV2 = 16;

// Arrays start at a multiple of 8 bytes from the payload start (the model file puts the
// payload itself at a multiple of 8), so a loaded model can use them where they lie.
void PadTo8(ByteWriter& w) {
  while (w.bytes().size() % 8 != 0) w.Put<uint8_t>(0);
}

void SkipPadding(ByteReader& r) {
  while (r.position() % 8 != 0) {
    if (r.Get<uint8_t>() != 0) throw InputError("model payload: bad padding");
  }
}

template <typename T>
void PutArray(ByteWriter& w, const FlatArray<T>& a) {
  w.Put<uint64_t>(a.size());
  PadTo8(w);
  for (const T& v : a) w.Put<T>(v);
}

// The elements in place when they can be (see Deserialize), else a copy.
template <typename T>
FlatArray<T> GetArray(ByteReader& r, const std::shared_ptr<const void>& keep) {
  const uint64_t n = r.Get<uint64_t>();
  SkipPadding(r);
  const uint8_t* at = r.current();
  if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw ModelError("model payload is truncated");
  r.Skip(n * sizeof(T));  // checks the bytes are there before anything is allocated
  if (keep && byte_order::kHostIsLittleEndian && reinterpret_cast<std::uintptr_t>(at) % alignof(T) == 0) {
    return FlatArray<T>::View(reinterpret_cast<const T*>(at), n, keep);
  }
  std::vector<T> v(n);
  ByteReader(at, n * sizeof(T)).GetInto(v.data(), n);
  return FlatArray<T>(std::move(v));
}

using Slot = AttributeTable::Slot;

// `record` bytes per slot: sizeof(Slot) (version 3) or kSlotBytesV2.
void PutSlots(ByteWriter& w, const FlatArray<Slot>& slots, std::size_t record) {
  w.Put<uint64_t>(slots.size());
  PadTo8(w);
  for (const Slot& s : slots) {
    w.Put<uint64_t>(s.key);
    w.Put<int32_t>(s.id);
    if (record == kSlotBytesV2) w.Put<int32_t>(0);
  }
}

FlatArray<Slot> GetSlots(ByteReader& r, const std::shared_ptr<const void>& keep, std::size_t record) {
  const uint64_t n = r.Get<uint64_t>();
  SkipPadding(r);
  const uint8_t* at = r.current();
  if (n > std::numeric_limits<std::size_t>::max() / record) throw ModelError("model payload is truncated");
  r.Skip(n * record);
  if (record == sizeof(Slot) && keep && byte_order::kHostIsLittleEndian &&
      reinterpret_cast<std::uintptr_t>(at) % alignof(Slot) == 0) {
    return FlatArray<Slot>::View(reinterpret_cast<const Slot*>(at), n, keep);
  }
  ByteReader again(at, n * record);
  std::vector<Slot> slots(n);
  for (Slot& s : slots) {
    s.key = again.Get<uint64_t>();
    s.id = again.Get<int32_t>();
    if (record == kSlotBytesV2 && again.Get<int32_t>() != 0)
      throw InputError("model payload: bad attribute slot table");
  }
  return FlatArray<Slot>(std::move(slots));
}

}  // namespace

void TaggerModel::Serialize(ByteWriter& w, int version) const {
  if (version != 2 && version != 3) throw InputError("tagger payload version must be 2 or 3");
  w.Put<uint32_t>(version == 3 ? kPayloadV3 : kPayloadV2);
  w.Put<int32_t>(static_cast<int32_t>(algorithm));
  w.Put<int32_t>(order);
  w.Put<int32_t>(beam);
  config.Serialize(w);
  w.Put<uint64_t>(labels.names().size());
  for (const auto& name : labels.names()) w.PutString(name);
  w.Put<uint8_t>(config.tagsets.empty() ? 0 : 1);
  if (!config.tagsets.empty()) config.SerializeTagSets(w);
  // The slot table as a loaded model uses it: filled to 2/3 in id order (Rebuild), so the
  // bytes depend on the keys alone, not on how the table grew during training.
  AttributeTable table;
  table.Rebuild(attributes.keys());
  w.Put<int32_t>(table.size());
  PutSlots(w, table.slots(), version == 3 ? sizeof(Slot) : kSlotBytesV2);
  PutArray(w, attr_offset);
  PutArray(w, feature_label);
  PutArray(w, edge_offset);
  PutArray(w, edge_pair);
  PutArray(w, weights);
}

TaggerModel TaggerModel::Deserialize(ByteReader& r, std::shared_ptr<const void> keep) {
  TaggerModel m;
  const int32_t first = r.Get<int32_t>();
  const bool v3 = static_cast<uint32_t>(first) == kPayloadV3;
  const bool aligned = v3 || static_cast<uint32_t>(first) == kPayloadV2;  // versions 2 and 3: laid out alike
  const int32_t algo = aligned ? r.Get<int32_t>() : first;
  if (algo < 0 || algo > 2) throw InputError("model payload: unknown tagger algorithm");
  m.algorithm = static_cast<TaggerAlgorithm>(algo);
  m.order = r.Get<int32_t>();
  if (m.order != 1 && m.order != 2) throw InputError("model payload: order must be 1 or 2");
  m.beam = r.Get<int32_t>();
  m.config = FeatureConfig::Deserialize(r);
  uint64_t L = r.Get<uint64_t>();
  if (L > (1u << 20)) throw InputError("model payload: bad label count");
  for (uint64_t k = 0; k < L; ++k) {
    std::string name = r.GetString();
    if (m.labels.Intern(name) != static_cast<int32_t>(k)) throw InputError("model payload: duplicate label");
  }
  if (aligned) {
    const uint8_t has_tagsets = r.Get<uint8_t>();
    if (has_tagsets > 1) throw InputError("model payload: bad tag dictionary flag");
    if (has_tagsets) m.config.DeserializeTagSets(r);
    const int32_t count = r.Get<int32_t>();
    m.attributes.UseSlots(GetSlots(r, keep, v3 ? sizeof(Slot) : kSlotBytesV2), count);
    m.attr_offset = GetArray<int64_t>(r, keep);
    m.feature_label = GetArray<int32_t>(r, keep);
    m.edge_offset = GetArray<int64_t>(r, keep);
    m.edge_pair = GetArray<int32_t>(r, keep);
    m.weights = GetArray<double>(r, keep);
  } else {
    // Version 1: vectors of their own, the attribute table hashed anew.
    m.attributes.Rebuild(r.GetVector<uint64_t>());
    m.attr_offset = r.GetVector<int64_t>();
    m.feature_label = r.GetVector<int32_t>();
    m.edge_offset = r.GetVector<int64_t>();
    m.edge_pair = r.GetVector<int32_t>();
    m.weights = r.GetVector<double>();
    if (!r.AtEnd()) m.config.DeserializeTagSets(r);
  }
  if (m.config.UsesTagSets() && m.config.tagsets.empty())
    throw InputError("model payload: tag dictionary missing");
  if (!r.AtEnd()) throw InputError("model payload: trailing bytes");
  if (m.attr_offset.size() != static_cast<std::size_t>(m.attributes.size()) + 1 || m.attr_offset[0] != 0 ||
      m.attr_offset.back() != m.num_node_features()) {
    throw InputError("model payload: inconsistent feature offsets");
  }
  for (std::size_t a = 1; a < m.attr_offset.size(); ++a) {
    if (m.attr_offset[a] < m.attr_offset[a - 1]) throw InputError("model payload: feature offsets decrease");
  }
  for (int32_t y : m.feature_label) {
    if (y < 0 || y >= m.num_labels()) throw InputError("model payload: feature label out of range");
  }
  // Without edge features the edge offsets are all 0: version 1 stored them, version 2
  // stores none, and a model holds none (edge_offset is only read when there are some).
  if (m.edge_pair.empty() &&
      std::all_of(m.edge_offset.begin(), m.edge_offset.end(), [](int64_t o) { return o == 0; })) {
    m.edge_offset = std::vector<int64_t>();
  } else if (m.edge_offset.size() != m.attr_offset.size() || m.edge_offset[0] != 0 ||
             m.edge_offset.back() != static_cast<int64_t>(m.edge_pair.size())) {
    throw InputError("model payload: inconsistent edge feature offsets");
  }
  for (std::size_t a = 1; a < m.edge_offset.size(); ++a) {
    if (m.edge_offset[a] < m.edge_offset[a - 1])
      throw InputError("model payload: edge feature offsets decrease");
  }
  for (int32_t pair : m.edge_pair) {
    if (pair < 0 || pair >= m.num_pairs()) throw InputError("model payload: edge feature pair out of range");
  }
  if (static_cast<int64_t>(m.weights.size()) != m.num_weights())
    throw InputError("model payload: weight count mismatch");
  return m;
}

}  // namespace structrank
