#include "binding/async.h"

#include <exception>
#include <string>

namespace structrank::binding {

namespace {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, std::function<void()> work, std::function<Napi::Value(Napi::Env)> done)
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
