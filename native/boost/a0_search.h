// The a_0 search of Collins & Koo (2005), section 4.4: the grid 0.001, 0.002, ..., 10 minimizing
// ExpLoss(a_0) = sum_p S_p exp(-a_0 * (L(x_{i,1}) - L(x_{i,j}))) with all other a_k = 0.
#pragma once
#include <cstdint>

#include "boost/pair_problem.h"

namespace structrank {

constexpr int kA0GridPoints = 10000;  // a_0 = t * 0.001, t = 1..10000
inline double A0GridValue(int t) { return t * 0.001; }

// ExpLoss at a_0 = value, summed in fixed chunks so the result does not depend on threads.
double A0Loss(const PairProblem& pp, double a0, int threads);

// ExpLoss is a sum of exponentials of linear functions of a_0, hence convex: the grid's
// first minimizer is the first t with loss(t+1) >= loss(t), found by binary search
// (about 28 loss evaluations instead of 10,000).
double SearchA0(const PairProblem& pp, int threads);

// Reference: evaluates every grid point (parallel over grid points); the first minimum wins.
double SearchA0BruteForce(const PairProblem& pp, int threads);

}  // namespace structrank
