// Candidate banks over the kernels of native/kernels: trees for the subset-tree kernel
// and tag sequences for the tagging kernel. Each keeps its input encoding (so it can save
// itself and select support candidates) next to the compact bank the kernel reads.
#pragma once
#include <memory>
#include <string>

#include "kernels/sequence_bank.h"
#include "kernels/tag_kernel.h"
#include "kernels/tree_bank.h"
#include "perceptron/candidate_bank.h"
#include "perceptron/tag_suffix_scoring.h"

namespace structrank {

class TreeCandidateBank : public CandidateBank {
 public:
  TreeCandidateBank(PreorderTrees trees, double lambda);
  KernelKind kind() const override { return KernelKind::kTree; }
  int64_t size() const override { return static_cast<int64_t>(bank_.size()); }
  std::unique_ptr<CandidateBank> Select(const std::vector<int32_t>& ids) const override;
  std::unique_ptr<CandidateKernel> KernelWith(const CandidateBank& right) const override;
  void Save(ByteWriter& out) const override;
  static std::unique_ptr<TreeCandidateBank> Load(ByteReader& in);
  // The shared-subtree DAG of the support forest (Collins & Duffy 2002b, section 5).
  std::unique_ptr<CandidateScorer> CompressedScorer(const std::vector<double>& coef,
                                                    const CandidateBank& query) const override;
  // Kernel values against every support tree from one DAG pass (voted prediction).
  std::unique_ptr<SupportColumns> CompressedColumns(const CandidateBank& query) const override;
  // Dual training against a growing DAG of the support trees.
  ChunkScorerFactory CompressedTrainer(const RankingSet& set, double beta) const override;

  const TreeBank& bank() const { return bank_; }
  double lambda() const { return lambda_; }

 private:
  PreorderTrees trees_;
  std::vector<int64_t> offset_;  // first pre-order node of each tree in trees_
  double lambda_;
  TreeBank bank_;
};

class TagCandidateBank : public CandidateBank {
 public:
  // `normalize`: the kernel is K(a, b) / sqrt(K(a, a) K(b, b)).
  TagCandidateBank(TaggedSequences seqs, TagKernelWeights weights, std::string word_feature,
                   bool normalize = false);
  KernelKind kind() const override { return KernelKind::kTags; }
  int64_t size() const override { return static_cast<int64_t>(bank_.size()); }
  std::unique_ptr<CandidateBank> Select(const std::vector<int32_t>& ids) const override;
  std::unique_ptr<CandidateKernel> KernelWith(const CandidateBank& right) const override;
  void Save(ByteWriter& out) const override;
  // `with_normalize`: the payload has the normalize flag (perceptron payload PRM3 on).
  static std::unique_ptr<TagCandidateBank> Load(ByteReader& in, bool with_normalize);
  bool normalized() const { return normalize_; }
  // Scoring a query sentence's candidates at once over their distinct suffixes
  // (perceptron/tag_suffix_scoring.h): prediction and training.
  std::unique_ptr<CandidateScorer> CompressedScorer(const std::vector<double>& coef,
                                                    const CandidateBank& query) const override;
  std::unique_ptr<SupportColumns> CompressedColumns(const CandidateBank& query) const override;
  ChunkScorerFactory CompressedTrainer(const RankingSet& set, double beta) const override;

 private:
  // `query` as a tag bank built with this bank's word feature, or InputError.
  const TagCandidateBank& Query(const CandidateBank& query) const;
  // This bank as support against `query` (itself in training), with both sides' inverse
  // norms under this bank's kernel weights when normalizing.
  TagKernelBanks BanksWith(const TagCandidateBank& query) const;
  TaggedSequences seqs_;
  std::vector<int64_t> offset_;
  TagKernelWeights weights_;
  std::string word_feature_;
  bool normalize_;
  SequenceBank bank_;
  std::vector<double> inv_norm_;  // 1/sqrt(K(x, x)) per sequence when normalizing
};

}  // namespace structrank
