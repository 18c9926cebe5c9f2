// Native errors reach JavaScript as the lib/errors.ts class of their kind, chosen by the
// core's exception type (core/errors.h), never by message:
//   InputError -> InputError, ModelError -> ModelFileError, Cancelled -> AbortError,
//   anything else -> InternalError.
// The same mapping covers promises (binding/async.cc), synchronous methods (every class
// derives from ErrorMappingWrap instead of Napi::ObjectWrap; free functions are exported
// through MappedFunction) and constructors (a function-try-block calling ErrorFromException).
#pragma once
#include <napi.h>

#include <deque>
#include <exception>
#include <mutex>

#include "core/errors.h"

namespace structrank::binding {

// Turns an exception into the JS error of its kind (the error factory lib/native.ts registers).
Napi::Error ErrorFromException(Napi::Env env, std::exception_ptr error);

// Runs `body`; a core exception leaves as the JS error of its kind. Napi errors (argument
// checks in the binding) pass through unchanged.
template <typename Body>
Napi::Value CallMappingErrors(Napi::Env env, Body&& body) {
  try {
    return body();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(env, std::current_exception());
  }
}

// Runs `read`, which decodes a model payload: its bad-input errors are model-file errors.
template <typename Read>
auto ReadingModelPayload(Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const ModelError&) {
    throw;
  } catch (const InputError& e) {
    throw ModelError(e.what());
  }
}

// A free function whose core exceptions map by kind: MappedFunction<Fn>(env, "name").
template <Napi::Value (*Fn)(const Napi::CallbackInfo&)>
Napi::Function MappedFunction(Napi::Env env, const char* name) {
  return Napi::Function::New(
      env,
      [](const Napi::CallbackInfo& info) { return CallMappingErrors(info.Env(), [&] { return Fn(info); }); },
      name);
}

// Napi::ObjectWrap whose InstanceMethod and StaticMethod (as called in a class's Init) map
// core exceptions by kind: the method pointer travels as the callback's data.
template <typename T>
class ErrorMappingWrap : public Napi::ObjectWrap<T> {
  using Base = Napi::ObjectWrap<T>;

 public:
  using Base::Base;

  static typename Base::PropertyDescriptor InstanceMethod(
      const char* name, typename Base::InstanceMethodCallback method,
      napi_property_attributes attributes = napi_default) {
    return Base::InstanceMethod(name, &ErrorMappingWrap::CallInstance, attributes, Keep(method));
  }

  static typename Base::PropertyDescriptor StaticMethod(const char* name,
                                                        typename Base::StaticMethodCallback method,
                                                        napi_property_attributes attributes = napi_default) {
    return Base::StaticMethod(name, &ErrorMappingWrap::CallStatic, attributes, Keep(method));
  }

 private:
  // One stable copy of each method pointer per class (a deque never moves its elements).
  template <typename Callback>
  static void* Keep(Callback callback) {
    static std::mutex mutex;
    static std::deque<Callback> kept;
    std::lock_guard<std::mutex> lock(mutex);
    for (Callback& k : kept)
      if (k == callback) return &k;
    kept.push_back(callback);
    return &kept.back();
  }

  Napi::Value CallInstance(const Napi::CallbackInfo& info) {
    auto method = *static_cast<typename Base::InstanceMethodCallback*>(info.Data());
    return CallMappingErrors(info.Env(), [&] { return (static_cast<T*>(this)->*method)(info); });
  }

  static Napi::Value CallStatic(const Napi::CallbackInfo& info) {
    auto method = *static_cast<typename Base::StaticMethodCallback*>(info.Data());
    return CallMappingErrors(info.Env(), [&] { return method(info); });
  }
};

}  // namespace structrank::binding
