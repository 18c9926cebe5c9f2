// Exception types the binding turns into JS errors with a recognisable `code`.
#pragma once
#include <stdexcept>
#include <string>

namespace structrank {

// Bad input from the caller: a malformed tree, mismatched handles, a corrupt model.
struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// Work stopped because the caller's cancellation flag was set.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("operation cancelled") {}
};

}  // namespace structrank
