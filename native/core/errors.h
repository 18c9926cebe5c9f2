// Exception kinds of the core. The binding (binding/async.cc) turns each into its JS class
// (lib/errors.ts): InputError -> InputError, ModelError -> ModelFileError, Cancelled ->
// AbortError, anything else -> InternalError. Code that needs Node never sees these types.
#pragma once
#include <stdexcept>
#include <string>

namespace structrank {

// Bad input from the caller: a malformed tree, mismatched handles, a corrupt model.
struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// A model payload that cannot be read: truncated, corrupt, or of an unknown version.
struct ModelError : InputError {
  explicit ModelError(const std::string& what) : InputError(what) {}
};

// Work stopped because the caller's cancellation flag was set.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("operation cancelled") {}
};

}  // namespace structrank
