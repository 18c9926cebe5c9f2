#include "chart/latent_grammar.h"

#include <algorithm>
#include <cmath>

#include "chart/chart_model.h"
#include "core/errors.h"
#include "core/gap_code.h"

namespace structrank {

namespace {

size_t BlockSize(const LatentGrammar& g, int32_t p, int32_t l, int32_t r) {
  return static_cast<size_t>(g.num_subs[p]) * g.num_subs[l] * (r < 0 ? 1 : g.num_subs[r]);
}

// The lengths of the binary, unary and root layouts (num_subs checked first).
struct Layout {
  uint64_t binary = 0, unary = 0, root = 0;
};
Layout LayoutOf(const LatentGrammar& g) {
  Layout out;
  for (const auto& r : g.base.binary) out.binary += BlockSize(g, r.parent, r.left, r.right);
  for (const auto& r : g.base.unary) out.unary += BlockSize(g, r.parent, r.child, -1);
  for (int32_t s : g.base.root) out.root += g.num_subs[s];
  return out;
}

void PutPositions(ByteWriter& out, const std::vector<uint64_t>& at) {
  std::vector<uint8_t> gaps;
  uint64_t next = 0;
  for (uint64_t position : at) AppendGap(gaps, position, next);
  out.Put<uint64_t>(at.size());
  out.PutVector(gaps);
}

std::vector<uint64_t> GetPositions(ByteReader& in, uint64_t limit) {
  const uint64_t count = in.Get<uint64_t>();
  const std::vector<uint8_t> gaps = in.GetVector<uint8_t>();
  if (count > gaps.size()) throw InputError("chart model: bad latent PCFG positions");
  std::vector<uint64_t> at(count);
  uint64_t next = 0;
  size_t k = 0;
  for (uint64_t& position : at)
    position = ReadGap(gaps, k, next, limit, "chart model: bad latent PCFG positions");
  if (k != gaps.size()) throw InputError("chart model: bad latent PCFG positions");
  return at;
}

}  // namespace

void LatentGrammar::Finish() {
  const int32_t S = base.num_symbols;
  if (num_subs.size() != static_cast<size_t>(S)) throw InputError("latent PCFG: subsymbol counts do not fit");
  first_sub.assign(S, 0);
  symbol_of.clear();
  for (int32_t s = 0; s < S; ++s) {
    if (num_subs[s] < 1 || num_subs[s] > 1024) throw InputError("latent PCFG: bad subsymbol count");
    first_sub[s] = static_cast<int32_t>(symbol_of.size());
    symbol_of.insert(symbol_of.end(), num_subs[s], s);
  }
  const Layout layout = LayoutOf(*this);
  auto check = [](const std::vector<uint64_t>& at, size_t codes, uint64_t size) {
    if (at.size() != codes) throw InputError("latent PCFG: rule blocks do not fit the grammar");
    for (size_t k = 0; k < at.size(); ++k)
      if (at[k] >= size || (k > 0 && at[k] <= at[k - 1]))
        throw InputError("latent PCFG: rule blocks do not fit the grammar");
  };
  check(binary_at, binary.size(), layout.binary);
  check(unary_at, unary.size(), layout.unary);
  check(root_at, root.size(), layout.root);
  if (split_at.size() != split.size() || num_words < 0 || word_min < 1)
    throw InputError("latent PCFG: bad word splits");
  split_of.clear();
  split_of.reserve(split_at.size());
  const uint64_t S_sub = symbol_of.size();
  for (size_t k = 0; k < split_at.size(); ++k) {
    const uint64_t sub = split_at[k] % S_sub;
    if ((k > 0 && split_at[k] <= split_at[k - 1]) || !base.is_tag[symbol_of[sub]])
      throw InputError("latent PCFG: bad word split");
    split_of[split_at[k]] = split[k] / kLatentLogScale;
  }
}

uint16_t LatentGrammar::RuleCode(double p) {
  return static_cast<uint16_t>(std::min(65535.0, std::round(-std::log(p) * kLatentLogScale)));
}

int16_t LatentGrammar::SplitCode(double log_ratio) {
  return static_cast<int16_t>(std::clamp(std::round(log_ratio * kLatentLogScale), -32767.0, 32767.0));
}

int32_t LatentGrammar::ClassOf(const Lexicon& lexicon, const Token& token) const {
  if (token.word >= 0 && lexicon.word_count[token.word] >= word_min) return token.word;
  if (token.sig >= 0) return num_words + token.sig;
  return -1;
}

double LatentGrammar::SplitScore(int32_t word_class, int32_t sub) const {
  if (word_class < 0) return 0;
  const auto it =
      split_of.find(static_cast<uint64_t>(word_class) * symbol_of.size() + static_cast<uint64_t>(sub));
  return it == split_of.end() ? 0.0 : it->second;
}

void LatentGrammar::Write(ByteWriter& out) const {
  base.Write(out);
  out.PutVector(num_subs);
  PutPositions(out, binary_at), out.PutVector(binary);
  PutPositions(out, unary_at), out.PutVector(unary);
  PutPositions(out, root_at), out.PutVector(root);
  out.Put<int32_t>(num_words);
  out.Put<int32_t>(word_min);
  PutPositions(out, split_at), out.PutVector(split);
}

LatentGrammar LatentGrammar::Read(ByteReader& in) {
  LatentGrammar g;
  g.base = Grammar::Read(in);
  g.num_subs = in.GetVector<int32_t>();
  if (g.num_subs.size() != static_cast<size_t>(g.base.num_symbols))
    throw InputError("chart model: bad latent PCFG");
  uint64_t subsymbols = 0;
  for (int32_t n : g.num_subs) {
    if (n < 1 || n > 1024) throw InputError("chart model: bad latent PCFG");
    subsymbols += n;
  }
  const Layout layout = LayoutOf(g);
  g.binary_at = GetPositions(in, layout.binary), g.binary = in.GetVector<uint16_t>();
  g.unary_at = GetPositions(in, layout.unary), g.unary = in.GetVector<uint16_t>();
  g.root_at = GetPositions(in, layout.root), g.root = in.GetVector<uint16_t>();
  g.num_words = in.Get<int32_t>();
  g.word_min = in.Get<int32_t>();
  if (g.num_words < 0 || g.word_min < 1) throw InputError("chart model: bad latent PCFG");
  // Classes are word ids and signature ids after them: fewer than 2^32 of each.
  g.split_at = GetPositions(in, subsymbols << 33), g.split = in.GetVector<int16_t>();
  g.base.BuildIndexes();
  g.Finish();
  return g;
}

std::unique_ptr<ChartModel> ExpandLatent(std::shared_ptr<const LatentGrammar> latent, Lexicon lexicon) {
  const LatentGrammar& L = *latent;
  if (lexicon.num_tags_symbols != L.base.num_symbols)
    throw InputError("latent PCFG: the lexicon does not fit the base grammar");
  auto model = std::make_unique<ChartModel>();
  Grammar& g = model->grammar;
  g.num_symbols = L.num_symbols();
  g.num_bases = L.base.num_bases;
  for (int32_t s : L.symbol_of) {
    g.is_tag.push_back(L.base.is_tag[s]);
    g.base.push_back(L.base.base[s]);
  }
  auto sub = [&](int32_t s, size_t a) { return L.first_sub[s] + static_cast<int32_t>(a); };
  // The entries of each block in turn: `offset` is where the block starts in the layout.
  size_t k = 0, offset = 0;
  for (const auto& rule : L.base.binary) {
    const size_t nl = L.num_subs[rule.left], nr = L.num_subs[rule.right];
    const size_t end = offset + L.num_subs[rule.parent] * nl * nr;
    for (; k < L.binary_at.size() && L.binary_at[k] < end; ++k) {
      const size_t x = L.binary_at[k] - offset;
      g.binary.push_back(
          {sub(rule.parent, x / (nl * nr)), sub(rule.left, x / nr % nl), sub(rule.right, x % nr)});
      model->binary_logp.push_back(-L.binary[k] / kLatentLogScale);
    }
    offset = end;
  }
  k = 0, offset = 0;
  for (const auto& rule : L.base.unary) {
    const size_t nc = L.num_subs[rule.child];
    const size_t end = offset + L.num_subs[rule.parent] * nc;
    for (; k < L.unary_at.size() && L.unary_at[k] < end; ++k) {
      const size_t x = L.unary_at[k] - offset;
      g.unary.push_back({sub(rule.parent, x / nc), sub(rule.child, x % nc)});
      model->unary_logp.push_back(-L.unary[k] / kLatentLogScale);
    }
    offset = end;
  }
  k = 0, offset = 0;
  for (int32_t s : L.base.root) {
    const size_t end = offset + L.num_subs[s];
    for (; k < L.root_at.size() && L.root_at[k] < end; ++k) {
      g.root.push_back(sub(s, L.root_at[k] - offset));
      model->root_logp.push_back(-L.root[k] / kLatentLogScale);
    }
    offset = end;
  }
  g.BuildIndexes();
  model->lexicon = std::move(lexicon);
  model->latent = std::move(latent);
  return model;
}

}  // namespace structrank
