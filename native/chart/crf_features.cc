#include "chart/crf_features.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "core/errors.h"
#include "core/gap_code.h"
#include "core/word_signature.h"

namespace structrank {

void CrfWeights::Layout(const Grammar& g) {
  // SentenceFeatureIds names a feature's base category in 16 bits.
  if (g.num_bases > kMaxFeatureBases)
    throw InputError("chart CRF: more than " + std::to_string(kMaxFeatureBases) + " base categories");
  const int64_t nb = static_cast<int64_t>(g.binary.size()), nu = static_cast<int64_t>(g.unary.size());
  int64_t at = 0;
  binary_rule = at, at += nb;
  binary_len = at, at += nb * kLenBuckets;
  binary_heavy = at, at += nb;
  binary_children = at, at += nb * kLenBuckets * kLenBuckets;
  unary_rule = at, at += nu;
  unary_len = at, at += nu * kLenBuckets;
  root_rule = at, at += static_cast<int64_t>(g.root.size());
  tag_prior = at, at += g.num_symbols;
  base_len = at, at += static_cast<int64_t>(g.num_bases) * kLenBuckets;
  base_heavy = at, at += g.num_bases;
  pcfg_lex = at, at += 1;
  if (surface_bits < 0 || surface_bits > 30)
    throw InputError("chart CRF: surface hash bits must be in 0..30");
  surface_begin = at, at += surface_bits > 0 ? (int64_t{1} << surface_bits) : 0;
  conj_unary_offset = nb, conj_parent_offset = nb + nu;
  sparse_begin = at;
  theta.assign(at + sparse.size(), 0.0);
}

int32_t CrfWeights::AddSparse(uint64_t key) {
  const int32_t count = sparse.size();
  const int32_t id = sparse.Insert(key);
  if (id == count) theta.push_back(0.0);
  return static_cast<int32_t>(sparse_begin + id);
}

namespace {

// A word's tag set (Token::tags, in any order) as a surface representation.
uint64_t TagSetKey(std::vector<int32_t> tags) {
  std::sort(tags.begin(), tags.end());
  uint64_t h = StringHash("tags:");
  for (int32_t t : tags) h = Mix64(h ^ static_cast<uint64_t>(t));
  return h;
}

// Sparse weight vectors: the positions of the non-zero weights as LEB128 gaps (each from
// the one after the previous non-zero), then their values. Hashed surface tables are
// mostly zeros on small treebanks; dense rule blocks cost about one byte per position more.
void PutNonZero(ByteWriter& out, const std::vector<double>& v) {
  std::vector<uint8_t> gaps;
  std::vector<double> values;
  uint64_t next = 0;
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0) continue;
    AppendGap(gaps, i, next);
    values.push_back(v[i]);
  }
  out.Put<uint64_t>(v.size());
  out.PutVector(gaps);
  out.PutVector(values);
}

// The stored form of PutNonZero, expanded by Expand once its size is checked.
struct NonZero {
  uint64_t size = 0;
  std::vector<uint8_t> gaps;
  std::vector<double> values;
  static NonZero Get(ByteReader& in) {
    NonZero z;
    z.size = in.Get<uint64_t>();
    z.gaps = in.GetVector<uint8_t>();
    z.values = in.GetVector<double>();
    return z;
  }
  std::vector<double> Expand() const;
};

std::vector<double> NonZero::Expand() const {
  std::vector<double> v(size, 0.0);
  uint64_t next = 0;
  size_t at = 0;
  for (double value : values) v[ReadGap(gaps, at, next, size, "chart model: bad sparse CRF weights")] = value;
  if (at != gaps.size()) throw InputError("chart model: bad sparse CRF weights");
  return v;
}

}  // namespace

void CrfWeights::Write(ByteWriter& out, bool nonzero_only) const {
  if (nonzero_only)
    PutNonZero(out, theta);
  else
    out.PutVector(theta);
  // (key, index into theta) pairs sorted by key.
  const std::vector<uint64_t> by_id = sparse.keys();
  std::vector<std::pair<uint64_t, int32_t>> entries;
  entries.reserve(by_id.size());
  for (size_t id = 0; id < by_id.size(); ++id)
    entries.emplace_back(by_id[id], static_cast<int32_t>(sparse_begin + id));
  std::sort(entries.begin(), entries.end());
  std::vector<uint64_t> keys;
  std::vector<int32_t> ids;
  for (const auto& e : entries) keys.push_back(e.first), ids.push_back(e.second);
  out.PutVector(keys);
  out.PutVector(ids);
}

CrfWeights CrfWeights::Read(ByteReader& in, const Grammar& g, int surface_bits, bool nonzero_only) {
  CrfWeights w;
  w.surface_bits = surface_bits;
  w.Layout(g);
  const int64_t dense = w.sparse_begin;
  NonZero stored;
  if (nonzero_only)
    stored = NonZero::Get(in);
  else
    w.theta = in.GetVector<double>();
  auto keys = in.GetVector<uint64_t>();
  auto ids = in.GetVector<int32_t>();
  if (nonzero_only) {
    // The size is checked against the keys before it is allocated.
    if (stored.size != static_cast<uint64_t>(dense) + keys.size())
      throw InputError("chart model: CRF weights do not match the grammar");
    w.theta = stored.Expand();
  }
  if (keys.size() != ids.size() ||
      static_cast<int64_t>(w.theta.size()) != dense + static_cast<int64_t>(keys.size()))
    throw InputError("chart model: CRF weights do not match the grammar");
  // Each index into theta's sparse block exactly once; the table's ids are those positions.
  std::vector<uint64_t> by_id(keys.size(), 0);
  std::vector<uint8_t> seen(keys.size(), 0);
  for (size_t a = 0; a < keys.size(); ++a) {
    if (ids[a] < dense || ids[a] >= static_cast<int64_t>(w.theta.size()) || seen[ids[a] - dense])
      throw InputError("chart model: bad CRF feature index");
    seen[ids[a] - dense] = 1;
    by_id[ids[a] - dense] = keys[a];
  }
  w.sparse.Rebuild(std::move(by_id));
  return w;
}

void CrfSentence::BindKeys(const CrfWeights& w, const Grammar& g, const Lexicon& lex,
                           const std::vector<Token>& tokens) {
  w_ = &w, g_ = &g, tokens_ = &tokens;
  n_ = static_cast<int>(tokens.size());
  B_ = g.num_bases;
  word_key_.resize(n_), sig_key_.resize(n_), suffix2_key_.resize(n_), suffix3_key_.resize(n_);
  cluster_key_.assign(n_, 0), cluster_p4_key_.assign(n_, 0), cluster_p6_key_.assign(n_, 0);
  lower_key_.resize(n_);
  verb_pos_.assign(n_, 0);
  verb_on_ = w.verb_features && g.binary_verb.size() == g.binary.size();
  // Models with surface features lowercase and cut suffixes by Unicode code points; older
  // ones by bytes (ASCII case only), as they were trained.
  const bool unicode = w.surface_bits > 0;
  std::vector<size_t> starts;
  for (int i = 0; i < n_; ++i) {
    const Token& t = tokens[i];
    std::string lower = t.text;
    if (unicode)
      lower = LowerUtf8(t.text);
    else
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool frequent = t.word >= 0 && lex.word_count[t.word] > lex.rare_threshold;
    word_key_[i] = StringHash(frequent ? lower : t.signature);
    sig_key_[i] = StringHash(t.signature);
    auto suffix = [&](size_t len) {
      if (!unicode) return lower.substr(lower.size() >= len ? lower.size() - len : 0);
      starts.clear();
      for (size_t at = 0; at < lower.size();) starts.push_back(at), NextCodepoint(lower, at);
      return lower.substr(starts.size() >= len ? starts[starts.size() - len] : 0);
    };
    suffix2_key_[i] = StringHash("2:" + suffix(2));
    suffix3_key_[i] = StringHash("3:" + suffix(3));
    lower_key_[i] = StringHash(lower);
    verb_pos_[i] = verb_on_ && w.verb_words.count(lower_key_[i]) ? 1 : 0;
    if (t.cluster >= 0) {
      // Bit-string clusters (Brown) also give their 4- and 6-bit prefixes.
      const std::string& c = lex.cluster_names.Name(t.cluster);
      cluster_key_[i] = StringHash("c:" + c);
      const bool bits = c.find_first_not_of("01") == std::string::npos;
      if (bits && c.size() > 4) cluster_p4_key_[i] = StringHash("p4:" + c.substr(0, 4));
      if (bits && c.size() > 6) cluster_p6_key_[i] = StringHash("p6:" + c.substr(0, 6));
    }
  }
  surface_on_ = w.surface_bits > 0;
  if (surface_on_) {
    // Word representations at positions -1 .. n: the word (lowercased if frequent, else
    // its signature), its shape, (tag_sets) the tags it may take and (surface_clusters) its
    // cluster; the sentence boundaries are words of their own. A retry with every tag gives
    // every word the same tag set, which training never saw: those sentences fall back on
    // words, shapes and clusters.
    rep_word_.assign(n_ + 2, 0), rep_shape_.assign(n_ + 2, 0), shape_symbol_.assign(n_, 'x');
    rep_tag_set_.assign(n_ + 2, 0), rep_cluster_.assign(n_ + 2, 0);
    rep_word_[0] = rep_shape_[0] = rep_tag_set_[0] = rep_cluster_[0] = StringHash("<s>");
    rep_word_[n_ + 1] = rep_shape_[n_ + 1] = rep_tag_set_[n_ + 1] = rep_cluster_[n_ + 1] = StringHash("</s>");
    for (int i = 0; i < n_; ++i) {
      const std::string& text = tokens[i].text;
      rep_word_[i + 1] = word_key_[i];
      rep_shape_[i + 1] = StringHash("s:" + WordShape(text, ShapeRuns::kClassRuns, 6));
      if (w.tag_sets) rep_tag_set_[i + 1] = TagSetKey(tokens[i].tags);
      if (w.surface_clusters) rep_cluster_[i + 1] = cluster_key_[i] ? cluster_key_[i] : rep_shape_[i + 1];
      size_t at = 0;
      const uint32_t cp = text.empty() ? ' ' : NextCodepoint(text, at);
      const char symbol = ShapeSymbol(cp);
      shape_symbol_[i] = symbol != 0 ? symbol : cp < 0x80 ? static_cast<char>(cp) : 'p';
    }
  }
}

void CrfSentence::SurfaceKeys(Edge edge, int p, SurfaceKey out[kMaxSurfaceKeys]) const {
  // rep index of word w is w + 1 (word -1 is <s>, word n is </s>).
  int a, b;         // the two words
  uint64_t ta, tb;  // their templates
  switch (edge) {
    case Edge::kLeft:
      a = p, ta = kSurfFirst, b = p - 1, tb = kSurfBefore;
      break;
    case Edge::kRight:
      a = p - 1, ta = kSurfLast, b = p, tb = kSurfAfter;
      break;
    default:
      a = p - 1, ta = kSurfSplitLeft, b = p, tb = kSurfSplitRight;
      break;
  }
  out[0] = {ta, rep_word_[a + 1]};
  out[1] = {ta + 1, rep_shape_[a + 1]};
  out[2] = {tb, rep_word_[b + 1]};
  out[3] = {tb + 1, rep_shape_[b + 1]};
  int q = 4;
  if (w_->tag_sets)
    out[q++] = {ta + kSurfTagSet, rep_tag_set_[a + 1]}, out[q++] = {tb + kSurfTagSet, rep_tag_set_[b + 1]};
  if (w_->surface_clusters)
    out[q++] = {ta + kSurfCluster, rep_cluster_[a + 1]}, out[q++] = {tb + kSurfCluster, rep_cluster_[b + 1]};
}

uint64_t CrfSentence::SpanShapeKey(int i, int j) const {
  std::string shape;
  if (j - i <= 8) {
    shape.assign(shape_symbol_.begin() + i, shape_symbol_.begin() + j);
  } else {
    shape.assign(shape_symbol_.begin() + i, shape_symbol_.begin() + i + 4);
    shape += '~';
    shape.append(shape_symbol_.begin() + j - 4, shape_symbol_.begin() + j);
  }
  return StringHash(shape);
}

void CrfSentence::PrepareSurface() {
  const CrfWeights& w = *w_;
  const Grammar& g = *g_;
  const size_t R = g.binary.size(), U = static_cast<size_t>(U_), S = static_cast<size_t>(g.num_symbols);
  const size_t rows = static_cast<size_t>(n_ + 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int e = 0; e < 5; ++e) {
    const size_t entries = rows * (e < 3 ? R : U);
    surf_[e].resize(entries);
    surf_known_[e].assign((entries + 63) / 64, 0);
  }
  for (int e = 0; e < 3; ++e) surf_parent_[e].assign(rows * S, nan);
  for (int e = 0; e < 3; ++e) {
    edge_keys_[e].assign(rows * kMaxSurfaceKeys, SurfaceKey{0, 0});
    for (int p = 0; p <= n_; ++p) {
      const Edge edge = static_cast<Edge>(e);
      if ((edge == Edge::kLeft && p == n_) || (edge == Edge::kRight && p == 0) ||
          (edge == Edge::kSplit && (p == 0 || p == n_)))
        continue;
      SurfaceKeys(edge, p, &edge_keys_[e][static_cast<size_t>(p) * kMaxSurfaceKeys]);
    }
    edge_rows_[e].resize(edge_keys_[e].size());
    for (size_t a = 0; a < edge_keys_[e].size(); ++a)
      edge_rows_[e][a] = CrfWeights::SurfaceRow(edge_keys_[e][a].templ, edge_keys_[e][a].value);
  }
  // Span shape x parent base category, one slot per (cell, base).
  const int cells = n_ * (n_ + 1) / 2;
  shape_slot_.assign(static_cast<size_t>(cells) * B_, 0);
  for (int i = 0; i < n_; ++i)
    for (int j = i + 1; j <= n_; ++j) {
      const uint64_t key = SpanShapeKey(i, j);
      int64_t* row = &shape_slot_[static_cast<size_t>(Cell(i, j)) * B_];
      for (int32_t b = 0; b < B_; ++b)
        row[b] = w.SurfaceSlot(kSurfSpanShape, kConjParent + static_cast<uint64_t>(b), key);
    }
}

double CrfSentence::ComputeSurface(int edge, int p, int32_t rule, bool unary) const {
  const CrfWeights& w = *w_;
  const double* t = w.theta.data();
  const size_t at = static_cast<size_t>(p) * kMaxSurfaceKeys;
  const SurfaceKey* keys = &edge_keys_[edge][at];
  const uint64_t* rows = &edge_rows_[edge][at];
  auto weight = [&](int q, uint64_t conj) { return t[KeySlot(keys[q], rows[q], conj)]; };
  const int nk = NumSurfaceKeys();
  const int32_t parent = unary ? g_->unary[rule].parent : g_->binary[rule].parent;
  double& pv = surf_parent_[edge][static_cast<size_t>(p) * g_->num_symbols + parent];
  if (pv != pv) {
    pv = 0;
    for (int q = 0; q < nk; ++q) pv += weight(q, kConjParent + static_cast<uint64_t>(parent));
  }
  const uint64_t conj = unary ? kConjUnary + static_cast<uint64_t>(rule) : static_cast<uint64_t>(rule);
  double v = pv;
  for (int q = 0; q < nk; ++q) v += weight(q, conj);
  return v;
}

namespace {

// Adds into the hashed surface gradient, whose slots are random reads of a table larger
// than the caches: each add is queued with its slot prefetched, and the queue runs (in
// order: the same sums, bit for bit) once it holds enough adds for the misses to overlap.
class ScatterAdds {
 public:
  explicit ScatterAdds(double* grad) : grad_(grad) {}
  ~ScatterAdds() { Run(); }
  void Add(int64_t slot, double value) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(grad_ + slot, 1);
#endif
    slot_[count_] = slot, value_[count_] = value;
    if (++count_ == kQueue) Run();
  }
  void Run() {
    for (int q = 0; q < count_; ++q) grad_[slot_[q]] += value_[q];
    count_ = 0;
  }

 private:
  static constexpr int kQueue = 32;
  double* grad_;
  int count_ = 0;
  int64_t slot_[kQueue];
  double value_[kQueue];
};

}  // namespace

void CrfSentence::FlushSurface(double* grad) {
  const Grammar& g = *g_;
  const size_t R = g.binary.size(), U = static_cast<size_t>(U_), S = static_cast<size_t>(g.num_symbols);
  std::vector<double> parent(S);
  const SurfaceKey* keys = nullptr;  // the boundary's keys and rows, as PrepareSurface left them
  const uint64_t* rows = nullptr;
  const int nk = NumSurfaceKeys();
  auto slot = [&](int q, uint64_t conj) { return KeySlot(keys[q], rows[q], conj); };
  ScatterAdds adds(grad);
  for (Edge edge : {Edge::kLeft, Edge::kRight, Edge::kSplit}) {
    const std::vector<double>& bin = edge == Edge::kLeft    ? mass_left_
                                     : edge == Edge::kRight ? mass_right_
                                                            : mass_split_;
    const std::vector<double>* un = edge == Edge::kLeft    ? &mass_uleft_
                                    : edge == Edge::kRight ? &mass_uright_
                                                           : nullptr;
    for (int p = 0; p <= n_; ++p) {
      if ((edge == Edge::kLeft && p == n_) || (edge == Edge::kRight && p == 0) ||
          (edge == Edge::kSplit && (p == 0 || p == n_)))
        continue;
      const size_t at = static_cast<size_t>(p) * kMaxSurfaceKeys;
      keys = &edge_keys_[static_cast<int>(edge)][at];
      rows = &edge_rows_[static_cast<int>(edge)][at];
      std::fill(parent.begin(), parent.end(), 0.0);
      bool any = false;
      const double* row = &bin[p * R];
      for (size_t r = 0; r < R; ++r) {
        const double m = row[r];
        if (m == 0) continue;
        any = true;
        parent[g.binary[r].parent] += m;
        for (int q = 0; q < nk; ++q) adds.Add(slot(q, r), m);
      }
      if (un) {
        const double* urow = &(*un)[p * U];
        for (size_t u = 0; u < U; ++u) {
          const double m = urow[u];
          if (m == 0) continue;
          any = true;
          parent[g.unary[u].parent] += m;
          for (int q = 0; q < nk; ++q) adds.Add(slot(q, kConjUnary + u), m);
        }
      }
      if (!any) continue;
      for (size_t x = 0; x < S; ++x)
        if (parent[x] != 0)
          for (int q = 0; q < nk; ++q) adds.Add(slot(q, kConjParent + x), parent[x]);
    }
  }
}

void CrfSentence::SpanKeys(int32_t b, int i, int j, uint64_t out[4]) const {
  static const uint64_t kStart = StringHash("<s>"), kEnd = StringHash("</s>");
  out[0] = FeatureKey(kSpanFirst, b, word_key_[i]);
  out[1] = FeatureKey(kSpanLast, b, word_key_[j - 1]);
  out[2] = FeatureKey(kSpanBefore, b, i > 0 ? word_key_[i - 1] : kStart);
  out[3] = FeatureKey(kSpanAfter, b, j < n_ ? word_key_[j] : kEnd);
}

void CrfSentence::EdgeKeys(int32_t b, int p, uint64_t out[4]) const {
  static const uint64_t kStart = StringHash("<s>"), kEnd = StringHash("</s>");
  out[0] = p < n_ ? FeatureKey(kSpanFirst, b, word_key_[p]) : 0;
  out[1] = p < n_ ? FeatureKey(kSpanLast, b, word_key_[p]) : 0;
  out[2] = FeatureKey(kSpanBefore, b, p > 0 ? word_key_[p - 1] : kStart);
  out[3] = FeatureKey(kSpanAfter, b, p < n_ ? word_key_[p] : kEnd);
}

void CrfSentence::SplitKeys(int32_t b, int k, uint64_t out[2]) const {
  out[0] = FeatureKey(kSplitLeft, b, word_key_[k - 1]);
  out[1] = FeatureKey(kSplitRight, b, word_key_[k]);
}

int CrfSentence::LexKeys(int i, int32_t tag, uint64_t out[kMaxLexKeys]) const {
  const int32_t b = g_->base[tag];
  out[0] = FeatureKey(kLexWord, tag, word_key_[i]);
  out[1] = FeatureKey(kLexSig, tag, sig_key_[i]);
  out[2] = FeatureKey(kLexSuffix2, tag, suffix2_key_[i]);
  out[3] = FeatureKey(kLexSuffix3, tag, suffix3_key_[i]);
  out[4] = FeatureKey(kLexBaseWord, b, word_key_[i]);
  out[5] = FeatureKey(kLexBaseSig, b, sig_key_[i]);
  int m = 6;
  if (cluster_key_[i]) {
    out[m++] = FeatureKey(kLexCluster, tag, cluster_key_[i]);
    out[m++] = FeatureKey(kLexBaseCluster, b, cluster_key_[i]);
    if (cluster_p4_key_[i]) out[m++] = FeatureKey(kLexClusterPrefix, tag, cluster_p4_key_[i]);
    if (cluster_p6_key_[i]) out[m++] = FeatureKey(kLexClusterPrefix, tag, cluster_p6_key_[i]);
  }
  if (surface_on_) out[m++] = FeatureKey(kLexShape, tag, rep_shape_[i + 1]);
  return m;
}

double CrfSentence::VerbScore(int32_t r, int i, int k, int j) const {
  double s = 0;
  const uint8_t v = g_->binary_verb[r];
  if ((v & 1) && k - i == 1 && verb_pos_[i]) {
    const int32_t f = w_->Find(FeatureKey(kRuleVerbLeft, r, lower_key_[i]));
    if (f >= 0) s += w_->theta[f];
  }
  if ((v & 2) && j - k == 1 && verb_pos_[k]) {
    const int32_t f = w_->Find(FeatureKey(kRuleVerbRight, r, lower_key_[k]));
    if (f >= 0) s += w_->theta[f];
  }
  return s;
}

void CrfSentence::VerbKeys(int32_t r, int i, int k, int j, uint64_t out[2]) const {
  out[0] = out[1] = 0;
  const uint8_t v = g_->binary_verb.size() == g_->binary.size() ? g_->binary_verb[r] : 0;
  if ((v & 1) && k - i == 1) out[0] = FeatureKey(kRuleVerbLeft, r, lower_key_[i]);
  if ((v & 2) && j - k == 1) out[1] = FeatureKey(kRuleVerbRight, r, lower_key_[k]);
}

void CrfSentence::ResolveIds(SentenceFeatureIds& out) const {
  const CrfWeights& w = *w_;
  // Most lookups miss the caches (and most keys are absent): each batch of keys has its
  // slots prefetched first, so that the misses overlap.
  std::vector<uint64_t> keys;
  auto prefetch = [&] {
    for (uint64_t key : keys)
      if (key != 0) w.sparse.Prefetch(key);
  };
  // Looks up `keys` as B_ rows of `width` (0 = no key): one position's ids, id_of(feature,
  // q), go to `ids` with their base to `bases`, base by base, and its end to `offsets`.
  auto resolve_position = [&](int width, std::vector<int32_t>& ids, std::vector<uint16_t>& bases,
                              std::vector<int32_t>& offsets, auto id_of) {
    prefetch();
    for (int32_t b = 0; b < B_; ++b) {
      for (int q = 0; q < width; ++q) {
        const uint64_t key = keys[static_cast<size_t>(b) * width + q];
        if (key == 0) continue;
        const int32_t f = w.Find(key);
        if (f >= 0) ids.push_back(id_of(f, q)), bases.push_back(static_cast<uint16_t>(b));
      }
    }
    offsets.push_back(static_cast<int32_t>(ids.size()));
  };
  out.edge_offsets.assign(1, 0), out.edge.clear(), out.edge_base.clear();
  for (int p = 0; p <= n_; ++p) {
    keys.resize(static_cast<size_t>(B_) * 4);
    for (int32_t b = 0; b < B_; ++b) EdgeKeys(b, p, &keys[static_cast<size_t>(b) * 4]);
    resolve_position(4, out.edge, out.edge_base, out.edge_offsets,
                     [](int32_t f, int q) { return f * 4 + q; });
  }
  out.split_offsets.assign(1, 0), out.split.clear(), out.split_base.clear();
  for (int k = 0; k <= n_; ++k) {
    keys.assign(static_cast<size_t>(B_) * 2, 0);
    if (k >= 1 && k < n_)
      for (int32_t b = 0; b < B_; ++b) SplitKeys(b, k, &keys[static_cast<size_t>(b) * 2]);
    resolve_position(2, out.split, out.split_base, out.split_offsets, [](int32_t f, int) { return f; });
  }
  out.lex_offsets.assign(1, 0), out.lex.clear();
  uint64_t lex_keys[kMaxLexKeys];
  for (int i = 0; i < n_; ++i) {
    for (int32_t tag : (*tokens_)[i].tags) {
      const int m = LexKeys(i, tag, lex_keys);
      for (int q = 0; q < m; ++q) {
        const int32_t f = w.Find(lex_keys[q]);
        if (f >= 0) out.lex.push_back(f);
      }
      out.lex_offsets.push_back(static_cast<int32_t>(out.lex.size()));
    }
  }
  out.unary_offsets.assign(1, 0), out.unary.clear();
  for (int i = 0; i < n_; ++i) {
    keys.resize(U_);
    for (int32_t u = 0; u < U_; ++u) keys[u] = UnaryWordKey(u, i);
    prefetch();
    for (int32_t u = 0; u < U_; ++u) {
      const int32_t f = w.Find(keys[u]);
      if (f >= 0) out.unary.push_back(u), out.unary.push_back(f);
    }
    out.unary_offsets.push_back(static_cast<int32_t>(out.unary.size()));
  }
}

void CrfSentence::Prepare(const CrfWeights& w, const Grammar& g, const Lexicon& lex,
                          const std::vector<Token>& tokens, const SentenceFeatureIds* cached,
                          SentenceFeatureIds* record) {
  BindKeys(w, g, lex, tokens);
  U_ = static_cast<int>(g.unary.size());
  if (cached) {
    ids_ = cached;
  } else {
    ResolveIds(own_ids_);
    if (record) *record = own_ids_;
    ids_ = &own_ids_;
  }
  const SentenceFeatureIds& ids = *ids_;
  const double* t = w.theta.data();
  const int cells = n_ * (n_ + 1) / 2;
  span_base_.assign(static_cast<size_t>(cells) * B_, 0.0);
  split_base_.assign(static_cast<size_t>(n_ + 1) * B_, 0.0);
  // The four word-edge templates depend on one position each: summed per position.
  for (int q = 0; q < 4; ++q) edge_[q].assign(static_cast<size_t>(n_ + 1) * B_, 0.0);
  for (size_t p = 0; p + 1 < ids.edge_offsets.size(); ++p)
    for (int32_t a = ids.edge_offsets[p]; a < ids.edge_offsets[p + 1]; ++a)
      edge_[ids.edge[a] & 3][p * B_ + ids.edge_base[a]] += t[ids.edge[a] >> 2];
  for (int i = 0; i < n_; ++i) {
    for (int j = i + 1; j <= n_; ++j) {
      double* row = &span_base_[static_cast<size_t>(Cell(i, j)) * B_];
      const double* first = &edge_[0][static_cast<size_t>(i) * B_];
      const double* last = &edge_[1][static_cast<size_t>(j - 1) * B_];
      const double* before = &edge_[2][static_cast<size_t>(i) * B_];
      const double* after = &edge_[3][static_cast<size_t>(j) * B_];
      const int bucket = LenBucket(j - i);
      for (int32_t b = 0; b < B_; ++b) {
        double s = t[w.base_len + b * kLenBuckets + bucket] + first[b] + last[b] + before[b] + after[b];
        if (j == n_) s += t[w.base_heavy + b];
        row[b] = s;
      }
    }
  }
  if (surface_on_) {
    PrepareSurface();
    for (size_t a = 0; a < span_base_.size(); ++a) span_base_[a] += t[shape_slot_[a]];
  }
  for (size_t k = 0; k + 1 < ids.split_offsets.size(); ++k)
    for (int32_t a = ids.split_offsets[k]; a < ids.split_offsets[k + 1]; ++a)
      split_base_[k * B_ + ids.split_base[a]] += t[ids.split[a]];
  unary_word_score_.assign(static_cast<size_t>(n_) * U_, 0.0);
  unary_word_id_.assign(static_cast<size_t>(n_) * U_, -1);
  for (int i = 0; i < n_; ++i)
    for (int32_t a = ids.unary_offsets[i]; a < ids.unary_offsets[i + 1]; a += 2) {
      const size_t at = static_cast<size_t>(i) * U_ + ids.unary[a];
      unary_word_id_[at] = ids.unary[a + 1];
      unary_word_score_[at] = t[ids.unary[a + 1]];
    }
  lex_.assign(n_, {});
  lex_logp_.assign(n_, {});
  size_t slot = 0;
  for (int i = 0; i < n_; ++i) {
    for (int32_t tag : tokens[i].tags) {
      const double logp = std::max(lex.LogProb(tokens[i], tag), -50.0);
      lex_logp_[i].push_back(logp);
      double s = t[w.tag_prior + tag] + t[w.pcfg_lex] * logp;
      for (int32_t a = ids.lex_offsets[slot]; a < ids.lex_offsets[slot + 1]; ++a) s += t[ids.lex[a]];
      ++slot;
      lex_[i].emplace_back(tag, s);
    }
  }
}

void CrfSentence::BeginGradient() {
  const int cells = n_ * (n_ + 1) / 2;
  span_mass_.assign(static_cast<size_t>(cells) * B_, 0.0);
  split_mass_.assign(static_cast<size_t>(n_ + 1) * B_, 0.0);
  for (int q = 0; q < 4; ++q) edge_mass_[q].assign(static_cast<size_t>(n_ + 1) * B_, 0.0);
  lex_mass_.assign(n_, {});
  for (int i = 0; i < n_; ++i) lex_mass_[i].assign((*tokens_)[i].tags.size(), 0.0);
  if (surface_on_) {
    const size_t rows = static_cast<size_t>(n_ + 1), R = g_->binary.size(), U = static_cast<size_t>(U_);
    mass_left_.assign(rows * R, 0.0), mass_right_.assign(rows * R, 0.0), mass_split_.assign(rows * R, 0.0);
    mass_uleft_.assign(rows * U, 0.0), mass_uright_.assign(rows * U, 0.0);
  }
}

void CrfSentence::AddBinary(int32_t r, int i, int k, int j, double coeff, double* grad) {
  const int32_t b = g_->base[g_->binary[r].parent];
  grad[w_->binary_rule + r] += coeff;
  grad[w_->binary_len + r * kLenBuckets + LenBucket(j - i)] += coeff;
  grad[w_->binary_children + (static_cast<int64_t>(r) * kLenBuckets + LenBucket(k - i)) * kLenBuckets +
       LenBucket(j - k)] += coeff;
  if (j == n_) grad[w_->binary_heavy + r] += coeff;
  if (verb_on_ && g_->binary_verb[r]) {
    const uint8_t v = g_->binary_verb[r];
    if ((v & 1) && k - i == 1 && verb_pos_[i]) {
      int32_t f = w_->Find(FeatureKey(kRuleVerbLeft, r, lower_key_[i]));
      if (f >= 0) grad[f] += coeff;
    }
    if ((v & 2) && j - k == 1 && verb_pos_[k]) {
      int32_t f = w_->Find(FeatureKey(kRuleVerbRight, r, lower_key_[k]));
      if (f >= 0) grad[f] += coeff;
    }
  }
  span_mass_[static_cast<size_t>(Cell(i, j)) * B_ + b] += coeff;
  split_mass_[static_cast<size_t>(k) * B_ + b] += coeff;
  if (surface_on_) {
    const size_t R = g_->binary.size();
    mass_left_[i * R + r] += coeff, mass_right_[j * R + r] += coeff, mass_split_[k * R + r] += coeff;
  }
}

void CrfSentence::AddUnary(int32_t u, int i, int j, double coeff, double* grad) {
  const int32_t b = g_->base[g_->unary[u].parent];
  grad[w_->unary_rule + u] += coeff;
  grad[w_->unary_len + u * kLenBuckets + LenBucket(j - i)] += coeff;
  span_mass_[static_cast<size_t>(Cell(i, j)) * B_ + b] += coeff;
  if (j - i == 1) {
    const int32_t f = unary_word_id_[static_cast<size_t>(i) * U_ + u];
    if (f >= 0) grad[f] += coeff;
  }
  if (surface_on_)
    mass_uleft_[static_cast<size_t>(i) * U_ + u] += coeff,
        mass_uright_[static_cast<size_t>(j) * U_ + u] += coeff;
}

void CrfSentence::AddLex(int i, int32_t tag, double coeff, double* /*grad*/) {
  const auto& tags = (*tokens_)[i].tags;
  auto it = std::lower_bound(tags.begin(), tags.end(), tag);
  if (it == tags.end() || *it != tag) return;  // a gold tag the lexicon would not allow: no features
  lex_mass_[i][it - tags.begin()] += coeff;
}

void CrfSentence::Flush(double* grad) {
  const SentenceFeatureIds& ids = *ids_;
  for (int i = 0; i < n_; ++i) {
    for (int j = i + 1; j <= n_; ++j) {
      const double* row = &span_mass_[static_cast<size_t>(Cell(i, j)) * B_];
      for (int32_t b = 0; b < B_; ++b) {
        const double m = row[b];
        if (m == 0) continue;
        grad[w_->base_len + b * kLenBuckets + LenBucket(j - i)] += m;
        if (j == n_) grad[w_->base_heavy + b] += m;
        if (surface_on_) grad[shape_slot_[static_cast<size_t>(Cell(i, j)) * B_ + b]] += m;
        edge_mass_[0][static_cast<size_t>(i) * B_ + b] += m;
        edge_mass_[1][static_cast<size_t>(j - 1) * B_ + b] += m;
        edge_mass_[2][static_cast<size_t>(i) * B_ + b] += m;
        edge_mass_[3][static_cast<size_t>(j) * B_ + b] += m;
      }
    }
  }
  for (size_t p = 0; p + 1 < ids.edge_offsets.size(); ++p)
    for (int32_t a = ids.edge_offsets[p]; a < ids.edge_offsets[p + 1]; ++a) {
      const double m = edge_mass_[ids.edge[a] & 3][p * B_ + ids.edge_base[a]];
      if (m != 0) grad[ids.edge[a] >> 2] += m;
    }
  for (size_t k = 0; k + 1 < ids.split_offsets.size(); ++k)
    for (int32_t a = ids.split_offsets[k]; a < ids.split_offsets[k + 1]; ++a) {
      const double m = split_mass_[k * B_ + ids.split_base[a]];
      if (m != 0) grad[ids.split[a]] += m;
    }
  if (surface_on_) FlushSurface(grad);
  size_t slot = 0;
  for (int i = 0; i < n_; ++i) {
    const auto& tags = (*tokens_)[i].tags;
    for (size_t a = 0; a < tags.size(); ++a, ++slot) {
      const double m = lex_mass_[i][a];
      if (m == 0) continue;
      grad[w_->tag_prior + tags[a]] += m;
      grad[w_->pcfg_lex] += m * lex_logp_[i][a];
      for (int32_t e = ids.lex_offsets[slot]; e < ids.lex_offsets[slot + 1]; ++e) grad[ids.lex[e]] += m;
    }
  }
}

void CrfSentence::AddSpanCost(const GoldItems& gold, double cost) {
  // span_base_ enters every binary and unary application of its (span, base category), and
  // the gold tree's own nodes keep their scores, so the gold score is unchanged.
  std::vector<uint8_t> in_gold(span_base_.size(), 0);
  for (const auto& b : gold.binary)
    in_gold[static_cast<size_t>(Cell(b.i, b.j)) * B_ + g_->base[b.parent]] = 1;
  for (const auto& u : gold.unary) in_gold[static_cast<size_t>(Cell(u.i, u.j)) * B_ + g_->base[u.parent]] = 1;
  for (size_t a = 0; a < span_base_.size(); ++a)
    if (!in_gold[a]) span_base_[a] += cost;
}

size_t CrfSentence::HeldBytes() const {
  size_t bytes = 0;
  auto add = [&](const auto& v) { bytes += v.capacity() * sizeof(v[0]); };
  add(unary_word_score_), add(unary_word_id_), add(span_base_), add(split_base_), add(shape_slot_);
  add(span_mass_), add(split_mass_), add(mass_left_), add(mass_right_), add(mass_split_);
  add(mass_uleft_), add(mass_uright_);
  for (int e = 0; e < 5; ++e) add(surf_[e]), add(surf_known_[e]);
  for (int e = 0; e < 3; ++e) add(surf_parent_[e]), add(edge_keys_[e]), add(edge_rows_[e]);
  for (int q = 0; q < 4; ++q) add(edge_[q]), add(edge_mass_[q]);
  return bytes;
}

}  // namespace structrank
