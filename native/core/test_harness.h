// A minimal unit-test harness for the C++ core (no Node, no external framework).
// TEST(name) { CHECK(cond); CHECK_NEAR(a, b, tol); } ; test_main.cc runs them all.
#pragma once
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace structrank::testing {

struct TestCase {
  const char* name;
  std::function<void()> body;
};
std::vector<TestCase>& Registry();
struct Register {
  Register(const char* name, std::function<void()> body) { Registry().push_back({name, body}); }
};
struct Failure {
  std::string message;
};

}  // namespace structrank::testing

#define SR_CONCAT2(a, b) a##b
#define SR_CONCAT(a, b) SR_CONCAT2(a, b)
#define TEST(name)                                                                \
  static void name();                                                             \
  static ::structrank::testing::Register SR_CONCAT(register_, name)(#name, name); \
  static void name()

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::ostringstream os_;                                            \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed"; \
      throw ::structrank::testing::Failure{os_.str()};                   \
    }                                                                    \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                                              \
  do {                                                                                                     \
    double a_ = (a), b_ = (b);                                                                             \
    if (!(std::fabs(a_ - b_) <= (tol) * (1.0 + std::fabs(b_)))) {                                          \
      std::ostringstream os_;                                                                              \
      os_.precision(17);                                                                                   \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK_NEAR(" #a ", " #b ") failed: " << a_ << " vs " << b_; \
      throw ::structrank::testing::Failure{os_.str()};                                                     \
    }                                                                                                      \
  } while (0)

#define CHECK_THROWS(expr)                                                             \
  do {                                                                                 \
    bool threw_ = false;                                                               \
    try {                                                                              \
      (void)(expr);                                                                    \
    } catch (const ::structrank::testing::Failure&) {                                  \
      throw;                                                                           \
    } catch (...) {                                                                    \
      threw_ = true;                                                                   \
    }                                                                                  \
    if (!threw_) {                                                                     \
      std::ostringstream os_;                                                          \
      os_ << __FILE__ << ":" << __LINE__ << ": CHECK_THROWS(" #expr ") did not throw"; \
      throw ::structrank::testing::Failure{os_.str()};                                 \
    }                                                                                  \
  } while (0)
