// The structures a kernel reads (feature rows, trees, tag sequences), one bank per
// candidate set. A trained model keeps the bank of its support candidates; scoring builds
// the kernel between that bank and a bank of query candidates.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/byte_io.h"
#include "core/csr.h"
#include "perceptron/candidate_kernel.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/perceptron_train.h"
#include "perceptron/ranking_set.h"

namespace structrank {

// kLinearSum: another kind's kernel plus explicit features (linear_sum_bank.h).
enum class KernelKind : int32_t { kLinear = 0, kTree = 1, kTags = 2, kLinearSum = 3 };

class CandidateBank {
 public:
  virtual ~CandidateBank() = default;
  virtual KernelKind kind() const = 0;
  virtual int64_t size() const = 0;
  // A new bank holding candidates `ids` of this one, in that order.
  virtual std::unique_ptr<CandidateBank> Select(const std::vector<int32_t>& ids) const = 0;
  // K(left = candidate of this bank, right = candidate of `right`); `right` must be of
  // the same kind. The kernel refers to both banks, which must outlive it.
  virtual std::unique_ptr<CandidateKernel> KernelWith(const CandidateBank& right) const = 0;
  virtual void Save(ByteWriter& out) const = 0;
  // A scorer for sum_s coef_s K(s, x) over query candidates x that is faster than one
  // kernel call per support candidate (the tree bank's shared-subtree DAG), or null.
  virtual std::unique_ptr<CandidateScorer> CompressedScorer(const std::vector<double>& /*coef*/,
                                                            const CandidateBank& /*query*/) const {
    return nullptr;
  }
  // K(s, x) for all candidates s of this bank against query candidates x, faster than one
  // kernel call each (the tree bank: one DAG pass per x), or null.
  virtual std::unique_ptr<SupportColumns> CompressedColumns(const CandidateBank& /*query*/) const {
    return nullptr;
  }
  // A trainer faster than kernel sums for this bank's candidates (the tree bank's growing
  // DAG), or an empty factory. `set` and this bank must outlive training.
  virtual ChunkScorerFactory CompressedTrainer(const RankingSet& /*set*/, double /*beta*/) const {
    return {};
  }
};

// Explicit sparse features; rows canonicalized on construction.
class LinearBank : public CandidateBank {
 public:
  explicit LinearBank(CsrMatrix rows);
  KernelKind kind() const override { return KernelKind::kLinear; }
  int64_t size() const override { return rows_.rows(); }
  std::unique_ptr<CandidateBank> Select(const std::vector<int32_t>& ids) const override;
  std::unique_ptr<CandidateKernel> KernelWith(const CandidateBank& right) const override;
  void Save(ByteWriter& out) const override;
  static std::unique_ptr<LinearBank> Load(ByteReader& in);
  const CsrMatrix& rows() const { return rows_; }
  int32_t num_features() const;  // 1 + the largest feature id
  // Renumbers the feature ids densely (0..F-1) in order of first use; returns the old id
  // of each new one, so a saved model carries only the features its support uses.
  std::vector<int32_t> CompactFeatures();

 private:
  CsrMatrix rows_;
};

}  // namespace structrank
