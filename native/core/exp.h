// e^x over an array, in vector registers. The CRF's forward-backward takes exp of every
// (token, label) score: one libm call each was a tenth of an L-BFGS iteration.
// Within 1 ulp of the exact value, NaN kept, inf from 709.79 on, and 0 below -708.05: no
// subnormal results, which cost a microcode assist each on x86 (about a hundred cycles).
// e^-708 = 3.3e-308 is within a factor 8 of the smallest normal double, a factor that
// vanishes in any sum with 1 (forward-backward shifts each row so its largest factor is 1).
// The same bits on every CPU: plain IEEE multiplies and adds in a fixed order, no table, no
// FMA (the build does not contract a * b + c), so every vector clone rounds as the scalar code.
#pragma once
#include <cstddef>

namespace structrank {

// x[i] = e^x[i] for i < n (the vector loop has a scalar tail: whole rows of 8 are fastest).
void ExpArray(double* x, std::size_t n);

// One value, rounded exactly as ExpArray rounds it.
double Exp(double x);

}  // namespace structrank
