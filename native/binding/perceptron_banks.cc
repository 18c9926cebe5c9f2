#include "binding/perceptron_banks.h"

#include <string>

#include "binding/convert.h"
#include "binding/options.h"
#include "perceptron/linear_sum_bank.h"
#include "perceptron/structured_banks.h"

namespace structrank::binding {

namespace {

std::unique_ptr<LinearBank> LinearBankFrom(const Napi::Object& features) {
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
  for (double v : ToVector<double>(ptr.As<Napi::Float64Array>()))
    m.row_ptr.push_back(static_cast<int64_t>(v));
  m.cols = ToVector<int32_t>(cols.As<Napi::Int32Array>());
  if (values.IsTypedArray()) {
    Expect(values.As<Napi::TypedArray>().TypedArrayType() == napi_float32_array, env,
           "features.values: Float32Array");
    m.values = ToVector<float>(values.As<Napi::Float32Array>());
  }
  return std::make_unique<LinearBank>(std::move(m));
}

std::vector<int32_t> Ints(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, o.Env(),
         std::string(key) + ": Int32Array");
  return ToVector<int32_t>(v.As<Napi::Int32Array>());
}

std::unique_ptr<CandidateBank> TreeBankFrom(const Napi::Object& o) {
  PreorderTrees t;
  t.symbols = StringArray(o.Get("symbols"), "trees.symbols: array");
  t.label = Ints(o, "label");
  t.word = Ints(o, "word");
  t.arity = Ints(o, "arity");
  t.tree_size = Ints(o, "sizes");
  return std::make_unique<TreeCandidateBank>(std::move(t), RequiredDouble(o, "lambda"));
}

std::unique_ptr<CandidateBank> TagBankFrom(const Napi::Object& o) {
  TaggedSequences s;
  s.symbols = StringArray(o.Get("symbols"), "tags.symbols: array");
  s.label = Ints(o, "label");
  s.word = Ints(o, "word");
  s.length = Ints(o, "lengths");
  TagKernelWeights w;
  w.lambda = RequiredDouble(o, "lambda");
  w.sim1 = RequiredDouble(o, "sim1");
  w.sim2 = RequiredDouble(o, "sim2");
  std::string feature = RequiredString(o, "wordFeature");
  const bool normalize = RequiredBool(o, "normalize");
  return std::make_unique<TagCandidateBank>(std::move(s), w, std::move(feature), normalize);
}

std::unique_ptr<CandidateBank> StructureBankFrom(const Napi::Object& spec, const std::string& kernel) {
  Napi::Env env = spec.Env();
  if (kernel == "tree") {
    Expect(spec.Get("trees").IsObject(), env, "trees: {symbols, label, word, arity, sizes, lambda}");
    return TreeBankFrom(spec.Get("trees").As<Napi::Object>());
  }
  if (kernel == "tags") {
    Expect(spec.Get("tags").IsObject(), env,
           "tags: {symbols, label, word, lengths, lambda, sim1, sim2, wordFeature}");
    return TagBankFrom(spec.Get("tags").As<Napi::Object>());
  }
  throw Napi::TypeError::New(env, "perceptron: unsupported kernel '" + kernel + "'");
}

}  // namespace

std::shared_ptr<CandidateBank> MakeCandidateBank(const Napi::Object& spec) {
  Napi::Env env = spec.Env();
  const std::string kernel =
      spec.Get("kernel").IsString() ? spec.Get("kernel").As<Napi::String>().Utf8Value() : "";
  if (kernel == "linear") {
    Expect(spec.Get("features").IsObject(), env, "features: {rowPtr, cols, values?}");
    return LinearBankFrom(spec.Get("features").As<Napi::Object>());
  }
  std::unique_ptr<CandidateBank> bank = StructureBankFrom(spec, kernel);
  // A tree or tagging kernel plus explicit features: K + featureWeight * Phi . Phi.
  if (spec.Get("featureWeight").IsNumber()) {
    Expect(spec.Get("features").IsObject(), env, "features: {rowPtr, cols, values?}");
    return std::make_shared<LinearSumBank>(std::move(bank),
                                           LinearBankFrom(spec.Get("features").As<Napi::Object>()),
                                           spec.Get("featureWeight").As<Napi::Number>().DoubleValue());
  }
  return bank;
}

}  // namespace structrank::binding
