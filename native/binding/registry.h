// Each binding file registers its exports here at static-initialisation time, so adding
// a capability never edits a shared list: `static ModuleRegistration reg("kernels", Init);`
#pragma once
#include <napi.h>

#include <map>
#include <string>
#include <vector>

namespace structrank::binding {

using ModuleInit = void (*)(Napi::Env env, Napi::Object exports);

struct ModuleEntry {
  const char* name;
  ModuleInit init;
};

std::vector<ModuleEntry>& Modules();

// Per-environment store of class constructors (works with worker_threads): a class
// saves its constructor at Init and finds it again for InstanceOf checks or New().
void SaveConstructor(Napi::Env env, const char* name, Napi::Function constructor);
Napi::FunctionReference& GetConstructor(Napi::Env env, const char* name);
// The same store; null when nothing was saved under `name`.
Napi::FunctionReference* FindConstructor(Napi::Env env, const char* name);

struct ModuleRegistration {
  ModuleRegistration(const char* name, ModuleInit init) { Modules().push_back({name, init}); }
};

}  // namespace structrank::binding
