#include "binding/errors.h"

#include <new>
#include <string>

#include "binding/registry.h"

namespace structrank::binding {

namespace {

// The JS error of one native kind: built by the factory lib/native.ts registers (so it is an
// instance of the lib/errors.ts class for that kind), else a plain Error carrying `kind`.
Napi::Error KindError(Napi::Env env, const char* kind, const std::string& message) {
  if (Napi::FunctionReference* factory = FindConstructor(env, "errorFactory")) {
    Napi::Value made = factory->Call({Napi::String::New(env, kind), Napi::String::New(env, message)});
    if (made.IsObject()) return Napi::Error(env, made);
  }
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("kind", Napi::String::New(env, kind));
  return err;
}

}  // namespace

Napi::Error ErrorFromException(Napi::Env env, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    return KindError(env, "cancelled", "The operation was aborted");
  } catch (const ModelError& e) {
    return KindError(env, "model", e.what());
  } catch (const InputError& e) {
    return KindError(env, "input", e.what());
  } catch (const std::bad_alloc&) {
    return KindError(env, "internal", "out of memory in native code");
  } catch (const std::exception& e) {
    return KindError(env, "internal", e.what());
  } catch (...) {
    return KindError(env, "internal", "unknown native error");
  }
}

}  // namespace structrank::binding
