// Runtime dispatch of a hot loop to the widest vector unit the CPU has: GCC compiles a
// function marked SR_VECTOR_CLONES once per target and picks one when the library loads.
// No FMA target is listed and the build does not contract a * b + c (-std=c++17), so
// every clone rounds exactly as the portable one: results do not depend on the CPU.
#pragma once
#include <cstdint>  // defines __GLIBC__ where the C library is glibc

// The clones are dispatched through an ifunc: glibc on x86-64 has them, musl does not.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define SR_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SR_VECTOR_CLONES
#endif

#if defined(__GNUC__)  // GCC and clang: vector extensions
// Eight doubles: one AVX-512 register (two AVX2 ones, four SSE2 ones in the other clones).
// Load and store them with memcpy: the rows they are used on are 8-byte aligned only.
typedef double Lanes __attribute__((vector_size(64)));
#define SR_HAS_LANES 1
#endif

// The pointer is the only way to reach its data in this function: lets the compiler keep
// values in vector registers across stores (GCC, clang and MSVC all spell it __restrict).
#define SR_RESTRICT __restrict
