// The perceptron sees candidates only through a kernel over global candidate indices:
// K(left, right), where `left` indexes one candidate set (training candidates, or a
// model's support candidates) and `right` another (training or query candidates).
// Tree, tagging and linear kernels all plug in here; the perceptron never looks inside.
#pragma once
#include <cstdint>
#include <vector>

#include "core/csr.h"

namespace structrank {

struct CandidateKernel {
  virtual ~CandidateKernel() = default;
  virtual double operator()(int32_t left, int32_t right) const = 0;
};

// Sorts every row's column ids and sums duplicate ids, so dot products can merge rows.
void CanonicalizeRows(CsrMatrix& m);

// Dot product of row a of `x` and row b of `y`; both rows sorted by column id.
double SparseDot(const CsrMatrix& x, int64_t a, const CsrMatrix& y, int64_t b);

// K(a, b) = Phi(a) . Phi(b) over explicit sparse features (rows canonicalized).
class LinearKernel : public CandidateKernel {
 public:
  LinearKernel(const CsrMatrix* left, const CsrMatrix* right) : left_(left), right_(right) {}
  double operator()(int32_t a, int32_t b) const override { return SparseDot(*left_, a, *right_, b); }

 private:
  const CsrMatrix* left_;
  const CsrMatrix* right_;
};

// K'(x, y) = beta * L(x) * L(y) + K(x, y): the base model's log-probability as one more
// feature (Collins & Duffy 2002a, section 6).
class CombinedKernel : public CandidateKernel {
 public:
  CombinedKernel(const CandidateKernel* inner, double beta, const double* left_logprob,
                 const double* right_logprob)
      : inner_(inner), beta_(beta), left_(left_logprob), right_(right_logprob) {}
  double operator()(int32_t a, int32_t b) const override {
    double k = (*inner_)(a, b);
    return beta_ == 0 ? k : beta_ * left_[a] * right_[b] + k;
  }

 private:
  const CandidateKernel* inner_;
  double beta_;
  const double* left_;
  const double* right_;
};

// The rows of `m` listed in `rows`, in that order.
CsrMatrix SelectRows(const CsrMatrix& m, const std::vector<int32_t>& rows);

}  // namespace structrank
