// Runs native work off the JS thread and settles a Promise with its result.
// C++ exceptions become rejected Promises with the lib/errors.ts class of their kind
// (binding/errors.h).
#pragma once
#include <napi.h>

#include <functional>
#include <memory>

#include "binding/errors.h"

namespace structrank::binding {

// `work` runs on a libuv pool thread and must not touch JS values; `done` runs on the
// JS thread afterwards and builds the resolved value.
Napi::Promise RunAsync(Napi::Env env, std::function<void()> work, std::function<Napi::Value(Napi::Env)> done);

}  // namespace structrank::binding
