#include "perceptron/structured_banks.h"

#include <string>

#include "core/errors.h"
#include "kernels/tree_kernel.h"
#include "kernels/word_features.h"
#include "perceptron/tag_suffix_scoring.h"
#include "perceptron/tree_dag.h"

namespace structrank {

namespace {

// Copies the listed items (runs of `sizes[i]` entries) of parallel arrays and keeps only
// the symbols they use, renumbered densely.
struct SymbolSubset {
  std::vector<int32_t> remap;
  std::vector<std::string> symbols;
  explicit SymbolSubset(std::size_t n) : remap(n, -1) {}
  int32_t Map(const std::vector<std::string>& from, int32_t id) {
    if (id < 0) return id;
    if (remap[id] < 0) {
      remap[id] = static_cast<int32_t>(symbols.size());
      symbols.push_back(from[id]);
    }
    return remap[id];
  }
};

std::vector<int64_t> Offsets(const std::vector<int32_t>& sizes) {
  std::vector<int64_t> off{0};
  for (int32_t s : sizes) off.push_back(off.back() + s);
  return off;
}

void PutStrings(ByteWriter& out, const std::vector<std::string>& v) {
  out.Put<uint64_t>(v.size());
  for (const auto& s : v) out.PutString(s);
}

std::vector<std::string> GetStrings(ByteReader& in) {
  const uint64_t n = in.Get<uint64_t>();
  std::vector<std::string> v;
  for (uint64_t i = 0; i < n; ++i) v.push_back(in.GetString());  // GetString checks each length
  return v;
}

class TreeKernelAdapter : public CandidateKernel {
 public:
  TreeKernelAdapter(const TreeBank* left, const TreeBank* right, double lambda)
      : left_(left), right_(right), lambda_(lambda) {}
  double operator()(int32_t a, int32_t b) const override {
    return SubsetTreeKernel(left_->Tree(a), right_->Tree(b), lambda_);
  }

 private:
  const TreeBank* left_;
  const TreeBank* right_;
  double lambda_;
};

class TagKernelAdapter : public CandidateKernel {
 public:
  explicit TagKernelAdapter(TagKernelBanks banks) : banks_(std::move(banks)) {}
  double operator()(int32_t a, int32_t b) const override {
    return TagKernel(banks_.support->Sequence(a), banks_.query->Sequence(b), banks_.weights) *
           banks_.SupportScale(a) * banks_.QueryScale(b);
  }

 private:
  TagKernelBanks banks_;
};

WordFeature FeatureByName(const std::string& name) {
  return name.empty() || name == "none" ? WordFeature::kNone : WordFeatureByName(name);
}

}  // namespace

// ---- trees ----

TreeCandidateBank::TreeCandidateBank(PreorderTrees trees, double lambda)
    : trees_(std::move(trees)), offset_(Offsets(trees_.tree_size)), lambda_(lambda) {
  if (!(lambda_ > 0 && lambda_ <= 1)) throw InputError("tree kernel: lambda must be in (0, 1]");
  bank_.Add(trees_);
}

std::unique_ptr<CandidateBank> TreeCandidateBank::Select(const std::vector<int32_t>& ids) const {
  PreorderTrees out;
  SymbolSubset symbols(trees_.symbols.size());
  for (int32_t id : ids) {
    for (int64_t k = offset_[id]; k < offset_[id + 1]; ++k) {
      out.label.push_back(symbols.Map(trees_.symbols, trees_.label[k]));
      out.word.push_back(symbols.Map(trees_.symbols, trees_.word[k]));
      out.arity.push_back(trees_.arity[k]);
    }
    out.tree_size.push_back(trees_.tree_size[id]);
  }
  out.symbols = std::move(symbols.symbols);
  return std::make_unique<TreeCandidateBank>(std::move(out), lambda_);
}

std::unique_ptr<CandidateKernel> TreeCandidateBank::KernelWith(const CandidateBank& right) const {
  if (right.kind() != KernelKind::kTree) throw InputError("tree kernel: query candidates are not trees");
  return std::make_unique<TreeKernelAdapter>(&bank_, &static_cast<const TreeCandidateBank&>(right).bank_,
                                             lambda_);
}

std::unique_ptr<CandidateScorer> TreeCandidateBank::CompressedScorer(const std::vector<double>& coef,
                                                                     const CandidateBank& query) const {
  if (query.kind() != KernelKind::kTree) throw InputError("tree kernel: query candidates are not trees");
  auto dag = std::make_shared<const TreeDag>(TreeDag::Build(bank_, coef));
  return std::make_unique<TreeDagScorer>(std::move(dag), &static_cast<const TreeCandidateBank&>(query).bank_,
                                         lambda_);
}

std::unique_ptr<SupportColumns> TreeCandidateBank::CompressedColumns(const CandidateBank& query) const {
  if (query.kind() != KernelKind::kTree) throw InputError("tree kernel: query candidates are not trees");
  auto dag = std::make_shared<TreeDag>();
  for (std::size_t t = 0; t < bank_.size(); ++t) dag->AddTree(bank_.Tree(t), 0.0, true);
  return std::make_unique<TreeDagColumns>(std::move(dag), &static_cast<const TreeCandidateBank&>(query).bank_,
                                          lambda_);
}

ChunkScorerFactory TreeCandidateBank::CompressedTrainer(const RankingSet& set, double beta) const {
  const double* logprob = set.logprob.data();
  return [this, beta, logprob]() -> std::unique_ptr<ChunkScorer> {
    return std::make_unique<TreeDagTrainer>(&bank_, lambda_, beta, logprob);
  };
}

void TreeCandidateBank::Save(ByteWriter& out) const {
  out.Put<double>(lambda_);
  PutStrings(out, trees_.symbols);
  out.PutVector(trees_.label);
  out.PutVector(trees_.word);
  out.PutVector(trees_.arity);
  out.PutVector(trees_.tree_size);
}

std::unique_ptr<TreeCandidateBank> TreeCandidateBank::Load(ByteReader& in) {
  const double lambda = in.Get<double>();
  PreorderTrees t;
  t.symbols = GetStrings(in);
  t.label = in.GetVector<int32_t>();
  t.word = in.GetVector<int32_t>();
  t.arity = in.GetVector<int32_t>();
  t.tree_size = in.GetVector<int32_t>();
  const auto n = static_cast<int32_t>(t.symbols.size());
  for (std::size_t k = 0; k < t.label.size(); ++k) {
    if (t.label[k] < 0 || t.label[k] >= n || (k < t.word.size() && t.word[k] >= n)) {
      throw InputError("perceptron model: tree symbol id out of range");
    }
  }
  return std::make_unique<TreeCandidateBank>(std::move(t), lambda);
}

// ---- tag sequences ----

TagCandidateBank::TagCandidateBank(TaggedSequences seqs, TagKernelWeights weights, std::string word_feature,
                                   bool normalize)
    : seqs_(std::move(seqs)),
      offset_(Offsets(seqs_.length)),
      weights_(weights),
      word_feature_(std::move(word_feature)),
      normalize_(normalize),
      bank_(FeatureByName(word_feature_), word_feature_) {
  if (!(weights_.lambda > 0 && weights_.lambda <= 1))
    throw InputError("tagging kernel: lambda must be in (0, 1]");
  if (weights_.sim2 != 0 && FeatureByName(word_feature_) == WordFeature::kNone) {
    throw InputError("tagging kernel: sim2 needs a word feature (caps, digits, suffix2, suffix3, shape)");
  }
  bank_.Add(seqs_);
  if (normalize_) inv_norm_ = TagKernelInverseNorms(bank_, weights_);
}

std::unique_ptr<CandidateBank> TagCandidateBank::Select(const std::vector<int32_t>& ids) const {
  TaggedSequences out;
  SymbolSubset symbols(seqs_.symbols.size());
  for (int32_t id : ids) {
    for (int64_t k = offset_[id]; k < offset_[id + 1]; ++k) {
      out.label.push_back(symbols.Map(seqs_.symbols, seqs_.label[k]));
      out.word.push_back(symbols.Map(seqs_.symbols, seqs_.word[k]));
    }
    out.length.push_back(seqs_.length[id]);
  }
  out.symbols = std::move(symbols.symbols);
  return std::make_unique<TagCandidateBank>(std::move(out), weights_, word_feature_, normalize_);
}

std::unique_ptr<CandidateKernel> TagCandidateBank::KernelWith(const CandidateBank& right) const {
  return std::make_unique<TagKernelAdapter>(BanksWith(Query(right)));
}

TagKernelBanks TagCandidateBank::BanksWith(const TagCandidateBank& query) const {
  TagKernelBanks banks{&bank_, &query.bank_, weights_, nullptr, {}};
  if (normalize_) {
    banks.support_inv_norm = inv_norm_.data();
    // A query's own kernel weights may differ from ours; training queries this bank itself.
    banks.query_inv_norm = &query == this ? inv_norm_ : TagKernelInverseNorms(query.bank_, weights_);
  }
  return banks;
}

const TagCandidateBank& TagCandidateBank::Query(const CandidateBank& query) const {
  if (query.kind() != KernelKind::kTags)
    throw InputError("tagging kernel: query candidates are not tag sequences");
  const auto& q = static_cast<const TagCandidateBank&>(query);
  if (q.word_feature_ != word_feature_)
    throw InputError("tagging kernel: query built with another word feature");
  return q;
}

std::unique_ptr<CandidateScorer> TagCandidateBank::CompressedScorer(const std::vector<double>& coef,
                                                                    const CandidateBank& query) const {
  return std::make_unique<TagSuffixScorer>(BanksWith(Query(query)), coef);
}

std::unique_ptr<SupportColumns> TagCandidateBank::CompressedColumns(const CandidateBank& query) const {
  return std::make_unique<TagSuffixColumns>(BanksWith(Query(query)));
}

ChunkScorerFactory TagCandidateBank::CompressedTrainer(const RankingSet& set, double beta) const {
  const double* logprob = set.logprob.data();
  return [this, beta, logprob]() -> std::unique_ptr<ChunkScorer> {
    return std::make_unique<TagSuffixTrainer>(BanksWith(*this), beta, logprob);
  };
}

void TagCandidateBank::Save(ByteWriter& out) const {
  out.Put<double>(weights_.lambda);
  out.Put<double>(weights_.sim1);
  out.Put<double>(weights_.sim2);
  out.PutString(word_feature_);
  out.Put<uint8_t>(normalize_ ? 1 : 0);
  PutStrings(out, seqs_.symbols);
  out.PutVector(seqs_.label);
  out.PutVector(seqs_.word);
  out.PutVector(seqs_.length);
}

std::unique_ptr<TagCandidateBank> TagCandidateBank::Load(ByteReader& in, bool with_normalize) {
  TagKernelWeights w;
  w.lambda = in.Get<double>();
  w.sim1 = in.Get<double>();
  w.sim2 = in.Get<double>();
  std::string feature = in.GetString();
  const uint8_t normalize = with_normalize ? in.Get<uint8_t>() : 0;
  if (normalize > 1) throw InputError("perceptron model: bad tagging-kernel normalize flag");
  TaggedSequences s;
  s.symbols = GetStrings(in);
  s.label = in.GetVector<int32_t>();
  s.word = in.GetVector<int32_t>();
  s.length = in.GetVector<int32_t>();
  return std::make_unique<TagCandidateBank>(std::move(s), w, std::move(feature), normalize == 1);
}

}  // namespace structrank
