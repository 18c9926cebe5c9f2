#include "binding/cancel_flag.h"

#include "binding/registry.h"

namespace structrank::binding {

void CancelFlag::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "CancelFlag",
                                   {InstanceMethod("cancel", &CancelFlag::Cancel),
                                    InstanceMethod("isCancelled", &CancelFlag::IsCancelled)});
  SaveConstructor(env, "CancelFlag", cls);
  exports.Set("CancelFlag", cls);
}

CancelFlag::CancelFlag(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CancelFlag>(info) {}

Napi::Value CancelFlag::Cancel(const Napi::CallbackInfo& info) {
  flag_->store(true);
  return info.Env().Undefined();
}

Napi::Value CancelFlag::IsCancelled(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), flag_->load());
}

std::shared_ptr<std::atomic<bool>> CancelFlag::From(const Napi::Value& value) {
  if (value.IsObject() &&
      value.As<Napi::Object>().InstanceOf(GetConstructor(value.Env(), "CancelFlag").Value())) {
    return CancelFlag::Unwrap(value.As<Napi::Object>())->flag();
  }
  return std::make_shared<std::atomic<bool>>(false);
}

static ModuleRegistration registration("cancel", &CancelFlag::Init);

}  // namespace structrank::binding
