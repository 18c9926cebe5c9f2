// The addon's entry point: runs every registered module's Init.
#include <napi.h>

#include <thread>

#include "binding/registry.h"
#include "core/heap_policy.h"
#include "core/simd.h"
#include "core/thread_pool.h"

namespace structrank::binding {

std::vector<ModuleEntry>& Modules() {
  static std::vector<ModuleEntry> modules;
  return modules;
}

namespace {
struct AddonData {
  std::map<std::string, Napi::FunctionReference> constructors;
};
}  // namespace

void SaveConstructor(Napi::Env env, const char* name, Napi::Function constructor) {
  env.GetInstanceData<AddonData>()->constructors[name] = Napi::Persistent(constructor);
}

Napi::FunctionReference* FindConstructor(Napi::Env env, const char* name) {
  auto& map = env.GetInstanceData<AddonData>()->constructors;
  auto it = map.find(name);
  return it == map.end() ? nullptr : &it->second;
}

Napi::FunctionReference& GetConstructor(Napi::Env env, const char* name) {
  auto& map = env.GetInstanceData<AddonData>()->constructors;
  auto it = map.find(name);
  if (it == map.end()) throw Napi::Error::New(env, std::string("class not registered: ") + name);
  return it->second;
}

namespace {

Napi::Value NativeInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("abi", Napi::Number::New(env, NAPI_VERSION));
  // The cores as C++ sees them (a query: lib/native.ts resolveThreads decides the counts),
  // and the most threads any native call takes.
  out.Set("defaultThreads", Napi::Number::New(env, HardwareThreads()));
  out.Set("maxThreads", Napi::Number::New(env, kMaxThreads));
  Napi::Array names = Napi::Array::New(env);
  uint32_t i = 0;
  for (const auto& m : Modules()) names.Set(i++, Napi::String::New(env, m.name));
  out.Set("modules", names);
  // The vector variant the hot loops run (core/simd.h), for benchmarks and tests.
  Napi::Object simd = Napi::Object::New(env);
  simd.Set("active", Napi::String::New(env, SimdName(SimdActive())));
  Napi::Array supported = Napi::Array::New(env);
  uint32_t n = 0;
  for (SimdLevel l : {SimdLevel::kPortable, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (SimdSupported(l)) supported.Set(n++, Napi::String::New(env, SimdName(l)));
  }
  simd.Set("supported", supported);
  simd.Set("description", Napi::String::New(env, SimdDescription()));
  out.Set("simd", simd);
  return out;
}

// forceSimd(name): tests run every variant in one process; false when the CPU lacks it.
Napi::Value ForceSimd(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "forceSimd: expected portable, avx2 or avx512");
  const std::string name = info[0].As<Napi::String>();
  for (SimdLevel l : {SimdLevel::kPortable, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
    if (name == SimdName(l)) return Napi::Boolean::New(env, SimdForce(l));
  }
  throw Napi::TypeError::New(env, "forceSimd: expected portable, avx2 or avx512, got " + name);
}

// setErrorFactory(fn): fn(kind, message) builds the JS error for a native exception
// (lib/errors.ts nativeError); see binding/async.cc.
Napi::Value SetErrorFactory(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "expected a function");
  SaveConstructor(info.Env(), "errorFactory", info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  UseFixedMmapThreshold();  // large buffers back to the system when freed (core/heap_policy.h)
  env.SetInstanceData(new AddonData());
  exports.Set("nativeInfo", Napi::Function::New(env, NativeInfo, "nativeInfo"));
  exports.Set("forceSimd", Napi::Function::New(env, ForceSimd, "forceSimd"));
  exports.Set("setErrorFactory", Napi::Function::New(env, SetErrorFactory, "setErrorFactory"));
  for (const auto& m : Modules()) m.init(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(structrank, Init)

}  // namespace structrank::binding
