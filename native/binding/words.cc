// Word forms for the TypeScript features: the shape comes from core/word_signature.h, so
// the rerankers read the same shapes as the parser and the taggers.
#include <napi.h>

#include "binding/convert.h"
#include "binding/registry.h"
#include "core/word_signature.h"

namespace structrank::binding {

namespace {

// wordShape(word): the shape with runs of one letter or digit class written once.
Napi::Value WordShapeOf(const Napi::CallbackInfo& info) {
  Expect(info[0].IsString(), info.Env(), "a string");
  return Napi::String::New(info.Env(), WordShape(info[0].As<Napi::String>().Utf8Value()));
}

void Init(Napi::Env env, Napi::Object exports) {
  exports.Set("wordShape", Napi::Function::New(env, WordShapeOf, "wordShape"));
}

}  // namespace

static ModuleRegistration registration("words", &Init);

}  // namespace structrank::binding
