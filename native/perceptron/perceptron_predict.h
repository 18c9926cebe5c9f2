// Choosing a candidate per sentence with a trained perceptron: one weighted scoring
// function (last or averaged hypothesis) or Freund & Schapire's vote over all hypotheses.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/candidate_order.h"
#include "core/csr.h"
#include "perceptron/candidate_kernel.h"
#include "perceptron/perceptron_run.h"
#include "perceptron/ranking_set.h"

namespace structrank {

// ScoreAbove (core/candidate_order.h): scores that differ only by summation order (kernel
// sums vs the DAG, primal vs dual) count as ties, so every form breaks them the same way.

// Scores query candidates by id (thread-safe: called concurrently).
struct CandidateScorer {
  virtual ~CandidateScorer() = default;
  virtual double Score(int32_t candidate) const = 0;
  // out[c - begin] = Score(c) for the candidates [begin, end) of one sentence; scorers that
  // share work between a sentence's candidates override it.
  virtual void ScoreSentence(int32_t begin, int32_t end, double* out) const {
    for (int32_t c = begin; c < end; ++c) out[c - begin] = Score(c);
  }
};

// sum_s coef_s K(s, x), skipping zero coefficients; kernel(left = support index, right = query id).
class DualCandidateScorer : public CandidateScorer {
 public:
  DualCandidateScorer(std::vector<double> coef, const CandidateKernel* kernel);
  double Score(int32_t candidate) const override;

 private:
  std::vector<int32_t> nonzero_;
  std::vector<double> coef_;
  const CandidateKernel* kernel_;
};

// W . Phi(x) + beta * L(x) * logprob_weight, with W = sum_s coef_s Phi(s) folded once.
class LinearCandidateScorer : public CandidateScorer {
 public:
  LinearCandidateScorer(const std::vector<double>& coef, const CsrMatrix& support_rows,
                        const std::vector<double>& support_logprob, double beta, const CsrMatrix* query_rows,
                        const double* query_logprob);
  double Score(int32_t candidate) const override;
  const std::vector<double>& weights() const { return weights_; }

 private:
  std::vector<double> weights_;  // indexed by feature id (grown to the largest support id)
  double logprob_weight_ = 0;
  double beta_;
  const CsrMatrix* query_;
  const double* query_logprob_;
};

// inner(x) + beta * L(x) * sum_s coef_s L(s): adds the combined kernel's log-probability
// term to a scorer of sum_s coef_s K(s, x).
class LogprobPlusScorer : public CandidateScorer {
 public:
  LogprobPlusScorer(std::unique_ptr<CandidateScorer> inner, const std::vector<double>& coef,
                    const std::vector<double>& support_logprob, double beta, const double* query_logprob);
  double Score(int32_t candidate) const override;
  void ScoreSentence(int32_t begin, int32_t end, double* out) const override;

 private:
  std::unique_ptr<CandidateScorer> inner_;
  double logprob_weight_ = 0;
  double beta_;
  const double* query_logprob_;
};

// argmax per sentence (ties to the lower candidate index) of the scorer's score plus
// base_weight * L(x); optional scores per candidate.
std::vector<int32_t> ChooseBest(const RankingSet& query, const CandidateScorer& scorer, int threads,
                                const std::atomic<bool>* cancel, std::vector<double>* scores = nullptr,
                                double base_weight = 0);

// K'(s, x) for every support candidate s against one query candidate x (thread-safe):
// what voting needs of a kernel.
struct SupportColumns {
  virtual ~SupportColumns() = default;
  // out[s] for s in [0, support size).
  virtual void Column(int32_t candidate, double* out) const = 0;
  // The columns of the candidates [begin, end) of one sentence: candidate c's at
  // out + (c - begin) * stride. Columns that share work between candidates override it.
  virtual void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const {
    for (int32_t c = begin; c < end; ++c) Column(c, out + (c - begin) * stride);
  }
};

// One kernel call per support candidate (skipping those flagged unused).
class KernelColumns : public SupportColumns {
 public:
  KernelColumns(const CandidateKernel* kernel, std::vector<char> used)
      : kernel_(kernel), used_(std::move(used)) {}
  void Column(int32_t candidate, double* out) const override;

 private:
  const CandidateKernel* kernel_;
  std::vector<char> used_;
};

// inner + beta * L(s) * L(x): the combined kernel's base-model term for any columns.
class LogprobPlusColumns : public SupportColumns {
 public:
  LogprobPlusColumns(std::unique_ptr<SupportColumns> inner, const double* support_logprob, int64_t support,
                     double beta, const double* query_logprob)
      : inner_(std::move(inner)),
        support_logprob_(support_logprob),
        support_(support),
        beta_(beta),
        query_logprob_(query_logprob) {}
  void Column(int32_t candidate, double* out) const override;
  void SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const override;

 private:
  void AddLogprob(int32_t candidate, double* out) const;
  std::unique_ptr<SupportColumns> inner_;
  const double* support_logprob_;
  int64_t support_;
  double beta_;
  const double* query_logprob_;
};

// Support entries that take part in some mistake (all of them, in a trained run).
std::vector<char> UsedSupport(const PerceptronRun& run);

// The voted perceptron: every hypothesis G_t of every chunk votes for its argmax (ties to
// the lower index); the candidate with most votes wins, ties to the one voted for by the
// later hypothesis (chunks in order, then steps). G_t = G_{t-1} + the mistake terms of
// step t, so this needs only the |support| x |candidates| kernel values of a sentence.
// `votes` (optional) receives each candidate's share of the votes.
// Every hypothesis also adds base_weight * L(x) (training's fixed base-model prior).
std::vector<int32_t> ChooseVoted(const PerceptronRun& run, const RankingSet& query,
                                 const SupportColumns& columns, int threads, const std::atomic<bool>* cancel,
                                 std::vector<double>* votes = nullptr, double base_weight = 0);

}  // namespace structrank
