#include "binding/perceptron_banks.h"

#include <string>

#include "binding/convert.h"

namespace structrank::binding {

namespace {

std::shared_ptr<CandidateBank> LinearBankFrom(const Napi::Object& features) {
  Napi::Env env = features.Env();
  Napi::Value ptr = features.Get("rowPtr");
  Napi::Value cols = features.Get("cols");
  Napi::Value values = features.Get("values");
  Expect(ptr.IsTypedArray() && ptr.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
         "features.rowPtr: Float64Array");
  Expect(cols.IsTypedArray() && cols.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, env,
         "features.cols: Int32Array");
  CsrMatrix m;
  m.row_ptr.clear();
  for (double v : ToVector<double>(ptr.As<Napi::Float64Array>())) m.row_ptr.push_back(static_cast<int64_t>(v));
  m.cols = ToVector<int32_t>(cols.As<Napi::Int32Array>());
  if (values.IsTypedArray()) {
    Expect(values.As<Napi::TypedArray>().TypedArrayType() == napi_float32_array, env, "features.values: Float32Array");
    m.values = ToVector<float>(values.As<Napi::Float32Array>());
  }
  return std::make_shared<LinearBank>(std::move(m));
}

}  // namespace

std::shared_ptr<CandidateBank> MakeCandidateBank(const Napi::Object& spec) {
  Napi::Env env = spec.Env();
  const std::string kernel = spec.Get("kernel").IsString() ? spec.Get("kernel").As<Napi::String>().Utf8Value() : "";
  if (kernel == "linear") {
    Expect(spec.Get("features").IsObject(), env, "features: {rowPtr, cols, values?}");
    return LinearBankFrom(spec.Get("features").As<Napi::Object>());
  }
  throw Napi::TypeError::New(env, "perceptron: unsupported kernel '" + kernel + "'");
}

}  // namespace structrank::binding
