// A JS-visible handle on a std::atomic<bool> that native loops poll: the TS layer
// creates one per call and sets it from an AbortSignal's 'abort' event.
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>

namespace structrank::binding {

class CancelFlag : public Napi::ObjectWrap<CancelFlag> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit CancelFlag(const Napi::CallbackInfo& info);

  // The flag an async job keeps alive for as long as it runs.
  std::shared_ptr<std::atomic<bool>> flag() const { return flag_; }

  // The flag of an optional CancelFlag argument, or a fresh never-set flag.
  static std::shared_ptr<std::atomic<bool>> From(const Napi::Value& value);

 private:
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value IsCancelled(const Napi::CallbackInfo& info);
  std::shared_ptr<std::atomic<bool>> flag_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace structrank::binding
