// Runtime dispatch of the hot loops to the vector unit the CPU has. Each hot loop is written
// once, as an always-inline template over N, the doubles per vector register, and compiled
// three times: portable (N = 2: SSE2 on x86-64, NEON on arm64), AVX2 (N = 4) and AVX-512F
// (N = 8). The variant is chosen once per process by a CPU feature test, or forced with
// STRUCTRANK_SIMD=portable|avx2|avx512 (never above what the CPU has).
// Why not target_clones over one 8-double vector type: GCC lowers a vector wider than the
// target's registers through the stack (a store of two halves, a load of the whole), and on
// AMD's Zen 3 every such store-to-load forwarding failed: the AVX2 clone ran the CRF 1.5x
// slower than plain loops. Each variant here uses its own register width.
// No FMA is enabled and the build does not contract a * b + c (-ffp-contract=off), and each
// lane sums in the same order whatever N is: every variant gives the same bits.
#pragma once
#include <cstdint>

namespace structrank {

enum class SimdLevel : int { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// The variant the hot loops run: STRUCTRANK_SIMD if set and supported, else the CPU's best.
SimdLevel SimdActive();
// Whether this CPU (and this build) can run `level`.
bool SimdSupported(SimdLevel level);
// "portable", "avx2", "avx512".
const char* SimdName(SimdLevel level);
// One line for benchmarks: the variant run, the CPU's best, and what STRUCTRANK_SIMD asked.
const char* SimdDescription();
// Tests: run `level` from now on in this process; false (nothing changed) when unsupported.
bool SimdForce(SimdLevel level);

}  // namespace structrank

// x86-64 with GCC or clang: per-function target attributes and __builtin_cpu_supports.
#if defined(__x86_64__) && defined(__GNUC__)
#define SR_X86_DISPATCH 1
#define SR_TARGET_AVX2 __attribute__((target("avx2")))
#define SR_TARGET_AVX512 __attribute__((target("avx512f")))
#endif

#if defined(__GNUC__)
#define SR_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SR_ALWAYS_INLINE inline
#endif

#if defined(__GNUC__)  // GCC and clang: vector extensions
#define SR_HAS_LANES 1
namespace structrank {
// N doubles in one register. Loaded and stored with memcpy: rows are 8-byte aligned only.
template <int N>
struct VecOf;
template <>
struct VecOf<2> {
  typedef double type __attribute__((vector_size(16)));
};
template <>
struct VecOf<4> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct VecOf<8> {
  typedef double type __attribute__((vector_size(64)));
};
template <int N>
using Vec = typename VecOf<N>::type;
}  // namespace structrank
#endif

// Defines `void NAME PARAMS`, dispatching to NAME##Body<N> ARGS compiled for each variant
// (NAME##Body: a template over N, marked SR_ALWAYS_INLINE, so each copy is compiled for
// its target).
#ifdef SR_X86_DISPATCH
#define SR_SIMD_DISPATCH(NAME, PARAMS, ARGS)                        \
  void NAME##Portable PARAMS { NAME##Body<2> ARGS; }                \
  SR_TARGET_AVX2 void NAME##Avx2 PARAMS { NAME##Body<4> ARGS; }     \
  SR_TARGET_AVX512 void NAME##Avx512 PARAMS { NAME##Body<8> ARGS; } \
  void NAME PARAMS {                                                \
    switch (::structrank::SimdActive()) {                           \
      case ::structrank::SimdLevel::kAvx512:                        \
        return NAME##Avx512 ARGS;                                   \
      case ::structrank::SimdLevel::kAvx2:                          \
        return NAME##Avx2 ARGS;                                     \
      default:                                                      \
        return NAME##Portable ARGS;                                 \
    }                                                               \
  }
#else
#define SR_SIMD_DISPATCH(NAME, PARAMS, ARGS) \
  void NAME PARAMS { NAME##Body<2> ARGS; }
#endif

// The pointer is the only way to reach its data in this function: lets the compiler keep
// values in vector registers across stores (GCC, clang and MSVC all spell it __restrict).
#define SR_RESTRICT __restrict
