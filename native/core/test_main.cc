#include <cstdio>
#include <exception>

#include "core/test_harness.h"

namespace structrank::testing {
std::vector<TestCase>& Registry() {
  static std::vector<TestCase> tests;
  return tests;
}
}  // namespace structrank::testing

int main() {
  using namespace structrank::testing;
  int passed = 0, failed = 0;
  for (const auto& test : Registry()) {
    try {
      test.body();
      ++passed;
    } catch (const Failure& f) {
      ++failed;
      std::fprintf(stderr, "FAIL %s: %s\n", test.name, f.message.c_str());
    } catch (const std::exception& e) {
      ++failed;
      std::fprintf(stderr, "FAIL %s: exception: %s\n", test.name, e.what());
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
