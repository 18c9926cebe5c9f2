// Reading the option objects lib/ hands to the addon. Every default lives once, in the option
// schemas of lib/options/: the TypeScript side passes complete objects, so the binding reads
// each field without a fallback, and a missing or mistyped field is a TypeError naming it,
// never a silent second default.
#pragma once
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/thread_pool.h"

namespace structrank::binding {

// The field `key` of `options` when `ok`; else a TypeError naming the field and the `kind` expected.
inline Napi::Value RequiredField(const Napi::Object& options, const char* key, const char* kind, bool ok) {
  Napi::Value v = options.Get(key);
  if (!ok)
    throw Napi::TypeError::New(
        options.Env(),
        std::string(v.IsUndefined() ? "missing option '" : "bad option '") + key + "': expected " + kind);
  return v;
}

inline double RequiredDouble(const Napi::Object& options, const char* key) {
  Napi::Value v = options.Get(key);
  return RequiredField(options, key, "a number", v.IsNumber()).As<Napi::Number>().DoubleValue();
}

inline int RequiredInt(const Napi::Object& options, const char* key) {
  Napi::Value v = options.Get(key);
  const bool ok = v.IsNumber() &&
                  std::nearbyint(v.As<Napi::Number>().DoubleValue()) == v.As<Napi::Number>().DoubleValue() &&
                  std::fabs(v.As<Napi::Number>().DoubleValue()) <= 2147483647.0;
  return RequiredField(options, key, "an integer", ok).As<Napi::Number>().Int32Value();
}

// An integer that may exceed 32 bits (counts, seeds): exact up to 2^53.
inline int64_t RequiredInt64(const Napi::Object& options, const char* key) {
  Napi::Value v = options.Get(key);
  const bool ok = v.IsNumber() &&
                  std::nearbyint(v.As<Napi::Number>().DoubleValue()) == v.As<Napi::Number>().DoubleValue();
  return RequiredField(options, key, "an integer", ok).As<Napi::Number>().Int64Value();
}

inline bool RequiredBool(const Napi::Object& options, const char* key) {
  Napi::Value v = options.Get(key);
  return RequiredField(options, key, "a boolean", v.IsBoolean()).As<Napi::Boolean>().Value();
}

inline std::string RequiredString(const Napi::Object& options, const char* key) {
  Napi::Value v = options.Get(key);
  return RequiredField(options, key, "a string", v.IsString()).As<Napi::String>().Utf8Value();
}

// A thread count as lib/native.ts resolveThreads returns it (1 to the cores, at most
// kMaxThreads): the one place a count is resolved is there; the binding passes it on as
// given and never substitutes "all cores" itself; anything else is a TypeError.
inline int ThreadsValue(const Napi::Value& v, const char* what) {
  const bool ok = v.IsNumber() && v.As<Napi::Number>().DoubleValue() >= 1 &&
                  std::nearbyint(v.As<Napi::Number>().DoubleValue()) == v.As<Napi::Number>().DoubleValue() &&
                  v.As<Napi::Number>().DoubleValue() <= kMaxThreads;
  if (!ok) {
    throw Napi::TypeError::New(v.Env(), std::string(v.IsUndefined() ? "missing " : "bad ") + what +
                                            ": expected a thread count >= 1 (lib/native.ts resolveThreads)");
  }
  return v.As<Napi::Number>().Int32Value();
}

inline int RequiredThreads(const Napi::Object& options, const char* key = "threads") {
  return ThreadsValue(options.Get(key), (std::string("option '") + key + "'").c_str());
}

// The thread count passed as positional argument `index` of `info`.
inline int ThreadsArgument(const Napi::CallbackInfo& info, std::size_t index) {
  return ThreadsValue(info.Length() > index ? info[index] : info.Env().Undefined(), "threads argument");
}

}  // namespace structrank::binding
