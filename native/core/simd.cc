#include "core/simd.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace structrank {

namespace {

SimdLevel Best() {
#ifdef SR_X86_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return SimdLevel::kAvx512;
  if (__builtin_cpu_supports("avx2")) return SimdLevel::kAvx2;
#endif
  return SimdLevel::kPortable;
}

struct Choice {
  SimdLevel level;
  std::string description;
};

// Read once: STRUCTRANK_SIMD below the CPU's best is honoured, above it or unknown is not
// (the description says so; a library does not print).
Choice Choose() {
  const SimdLevel best = Best();
  Choice c{best, ""};
  const char* env = std::getenv("STRUCTRANK_SIMD");
  std::string note;
  if (env && *env && std::strcmp(env, "auto") != 0) {
    int asked = -1;
    for (int l = 0; l <= 2; ++l) {
      if (std::strcmp(env, SimdName(static_cast<SimdLevel>(l))) == 0) asked = l;
    }
    if (asked < 0) {
      note = std::string(", STRUCTRANK_SIMD=") + env + " unknown (portable, avx2, avx512 or auto): ignored";
    } else if (asked > static_cast<int>(best)) {
      note = std::string(", STRUCTRANK_SIMD=") + env + " not supported by this CPU: ignored";
    } else {
      c.level = static_cast<SimdLevel>(asked);
      note = std::string(", forced by STRUCTRANK_SIMD=") + env;
    }
  }
  c.description = std::string(SimdName(c.level)) + " (CPU best " + SimdName(best) + note + ")";
  return c;
}

Choice& Chosen() {
  static Choice c = Choose();
  return c;
}

std::atomic<int> forced{-1};

}  // namespace

SimdLevel SimdActive() {
  const int f = forced.load(std::memory_order_relaxed);
  return f >= 0 ? static_cast<SimdLevel>(f) : Chosen().level;
}

bool SimdSupported(SimdLevel level) { return static_cast<int>(level) <= static_cast<int>(Best()); }

const char* SimdName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512:
      return "avx512";
    case SimdLevel::kAvx2:
      return "avx2";
    default:
      return "portable";
  }
}

const char* SimdDescription() {
  const int f = forced.load(std::memory_order_relaxed);
  if (f >= 0) return SimdName(static_cast<SimdLevel>(f));
  return Chosen().description.c_str();
}

bool SimdForce(SimdLevel level) {
  if (!SimdSupported(level)) return false;
  forced.store(static_cast<int>(level), std::memory_order_relaxed);
  return true;
}

}  // namespace structrank
