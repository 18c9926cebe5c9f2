#include "binding/async.h"

#include <exception>
#include <string>

#include "binding/registry.h"
#include "core/errors.h"

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

namespace {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, std::function<void()> work,
                std::function<Napi::Value(Napi::Env)> done)
      : Napi::AsyncWorker(env, "structrank"),
        deferred_(Napi::Promise::Deferred::New(env)),
        work_(std::move(work)),
        done_(std::move(done)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    try {
      work_();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (error_) {
      deferred_.Reject(ErrorFromException(env, error_).Value());
      return;
    }
    try {
      deferred_.Resolve(done_(env));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (...) {
      deferred_.Reject(ErrorFromException(env, std::current_exception()).Value());
    }
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::function<void()> work_;
  std::function<Napi::Value(Napi::Env)> done_;
  std::exception_ptr error_;
};

}  // namespace

Napi::Promise RunAsync(Napi::Env env, std::function<void()> work,
                       std::function<Napi::Value(Napi::Env)> done) {
  auto* worker = new PromiseWorker(env, std::move(work), std::move(done));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace structrank::binding
