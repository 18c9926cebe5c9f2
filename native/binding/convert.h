// Small helpers for typed arrays and argument checks at the N-API boundary.
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace structrank::binding {

inline Napi::Float64Array ToFloat64Array(Napi::Env env, const std::vector<double>& v) {
  Napi::Float64Array out = Napi::Float64Array::New(env, v.size());
  std::copy(v.begin(), v.end(), out.Data());
  return out;
}

inline Napi::Int32Array ToInt32Array(Napi::Env env, const std::vector<int32_t>& v) {
  Napi::Int32Array out = Napi::Int32Array::New(env, v.size());
  std::copy(v.begin(), v.end(), out.Data());
  return out;
}

inline Napi::Uint8Array ToUint8Array(Napi::Env env, const std::vector<uint8_t>& v) {
  Napi::Uint8Array out = Napi::Uint8Array::New(env, v.size());
  std::copy(v.begin(), v.end(), out.Data());
  return out;
}

template <typename T, typename TypedArray>
std::vector<T> ToVector(const TypedArray& a) {
  return std::vector<T>(a.Data(), a.Data() + a.ElementLength());
}

// Throws a TypeError naming the argument when it is not of the expected kind.
inline void Expect(bool ok, Napi::Env env, const std::string& what) {
  if (!ok) throw Napi::TypeError::New(env, "expected " + what);
}

// A Float64Array's values; a TypeError naming `what` for anything else.
inline std::vector<double> ToDoubles(const Napi::Value& v, const char* what) {
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, v.Env(),
         std::string(what) + " as a Float64Array");
  return ToVector<double>(v.As<Napi::Float64Array>());
}

// A JS array of strings as std::strings; throws a TypeError naming `what` otherwise.
inline std::vector<std::string> StringArray(const Napi::Value& v, const char* what) {
  Expect(v.IsArray(), v.Env(), what);
  Napi::Array a = v.As<Napi::Array>();
  std::vector<std::string> out(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value s = a.Get(i);
    Expect(s.IsString(), v.Env(), std::string(what) + " of strings");
    out[i] = s.As<Napi::String>().Utf8Value();
  }
  return out;
}

}  // namespace structrank::binding
